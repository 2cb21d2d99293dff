#!/usr/bin/env bash
# File: merge_e2e.sh
# A merged feed served by the real `icsbridge serve`: an events feed and a jobs feed, each from a fake
# upstream process of its own, merged; exact counts through python3-icalendar and vobject. Then the jobs
# upstream answers 500 to everything and the merge keeps that part's last good items; a restart with both
# upstreams gone serves the merge at once. Also check, /healthz, the index page, a token merge, a view,
# 304, and export (fails naming the part while it fails, works once it answers). Merges with their own
# `filter` and `alarm`: exactly the parts' items the filter keeps (an oracle here reads the parts with
# python3-icalendar; `online` is compared with the parts' own feed-level filter), each event reminded by
# the merge's alarm only, the failing part's kept items still filtered; `check` rejects a wrong filter key.
#   merge_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=merge_e2e
init_work

# count FILE: VEVENTs + VTODOs as python3-icalendar reads them.
count() {
    "$python" -c 'import sys, icalendar
cal = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
print(sum(1 for c in cal.walk() if c.name in ("VEVENT", "VTODO")))' "$1"
}

# check_exact FILE N: both real parsers (tests/python/check_ics.py) find exactly N items, and the wire rules hold.
check_exact() {
    echo "{\"count\": $2}" >"$work/expect.json"
    "$python" "$src/tests/python/check_ics.py" "$1" --expect "$work/expect.json" >"$work/check.out" 2>&1 ||
        fail "$1 does not check out with $2 items: $(cat "$work/check.out")"
}

# uids_of FILE...: the UIDs of the files, sorted and unique.
uids_of() {
    cat "$@" | tr -d '\r' | grep '^UID:' | sort -u
}

cp -r "$src/tests/fixtures/upstream" "$work/data"
# The jobs part has an upstream of its own, so it can fail while the events upstream answers.
start_fake_upstream "$fake" "$work" "$work/data"
extra_pids+=("$fake_pid") # stopped at exit with the rest
jobs_upstream=$upstream
start_fake_upstream "$fake" "$work" "$work/data"
events_upstream=$upstream

cat >"$work/merge.toml" <<TOML
$(server_toml "$work/state" 127.0.0.1:0 'threads = 1')

$(events_source_toml "$events_upstream" 'timeout = "2s"')

$(jobs_source_toml "$jobs_upstream" 'timeout = "2s"')

[feeds.all]
merge = ["ev", "jb"]
title = "Events and jobs"

[feeds.ev]
source = "eb"
select = "organizer"
keep_past = "3650d"
refresh = "1h"

[feeds.jb]
source = "jobs"
select = "search"
jobs_as = "both"
params = { keywords = "designer" }
refresh = "2s"

[feeds.private-all]
merge = ["jb", "ev"]
token = "merge-secret-token-1"

[feeds.picked]
merge = ["ev", "jb"]
title = "Music and interaction design"
alarm = "20m"
filter = { categories = ["music", "Interaction Design"], exclude_keywords = ["SENIOR"] }

[feeds.online]
merge = ["ev", "jb"]
filter = { online = true }

# The same online filter on each part: what the online merge must hold.
[feeds.ev-online]
source = "eb"
select = "organizer"
keep_past = "3650d"
refresh = "1h"
filter = { online = true }

[feeds.jb-remote]
source = "jobs"
select = "search"
jobs_as = "both"
params = { keywords = "designer" }
refresh = "1h"
filter = { online = true }
TOML
chmod 600 "$work/merge.toml"

# check shows the merge and its parts, and no fetch settings.
"$bin" check --config "$work/merge.toml" >"$work/check.txt" 2>&1 || fail "check failed: $(cat "$work/check.txt")"
grep -q '^  merge:   ev, jb$' "$work/check.txt" || fail "check does not show the parts: $(cat "$work/check.txt")"
grep -q '^  refresh: rebuilt whenever a part publishes (hint 2s)$' "$work/check.txt" ||
    fail "check does not say how the merge refreshes: $(cat "$work/check.txt")"

start_icsbridge "$bin" "$work/merge.toml" "$work/serve.log"
wait_for_feeds ev.ics jb.ics all.ics

# The merge follows its parts: wait until it holds every item of both.
n=0
for _ in $(seq 1 100); do
    curl -s -o "$work/ev.ics" "$base/feeds/ev.ics"
    curl -s -o "$work/jb.ics" "$base/feeds/jb.ics"
    curl -s -o "$work/all.ics" "$base/feeds/all.ics"
    n=$(($(count "$work/ev.ics") + $(count "$work/jb.ics")))
    [ "$(count "$work/all.ics")" = "$n" ] && break
    sleep 0.1
done
n_ev=$(count "$work/ev.ics")
n_jb=$(count "$work/jb.ics")
[ "$n_ev" -gt 0 ] && [ "$n_jb" -gt 0 ] || fail "a part is empty (events $n_ev, jobs $n_jb)"
check_exact "$work/all.ics" "$n"
grep -q 'BEGIN:VTODO' "$work/all.ics" && grep -q 'BEGIN:VEVENT' "$work/all.ics" ||
    fail "the merge lacks events or to-dos"
cmp -s <(uids_of "$work/all.ics") <(uids_of "$work/ev.ics" "$work/jb.ics") ||
    fail "the merge's UIDs are not its parts' UIDs"
grep -q '^X-WR-CALNAME:Events and jobs' "$work/all.ics" || fail "the merge lacks its own title"
cp "$work/jb.ics" "$work/jb_good.ics"

# Its own validators: 304 on a matching ETag; a view of it works like any feed's.
etag=$(curl -s -D - -o /dev/null "$base/feeds/all.ics" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p')
[ -n "$etag" ] || fail "no ETag on the merge"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$base/feeds/all.ics")" = 304 ] ||
    fail "no 304 for the merge's ETag"
curl -s -o "$work/noalarm.ics" "$base/feeds/all.ics?alarm=none"
check_exact "$work/noalarm.ics" "$n"

# The token merge: 404 without its token, the same items with it; not on the index page.
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/feeds/private-all.ics")" = 404 ] ||
    fail "the token merge is served without its token"
wait_for_feeds "private-all.ics?token=merge-secret-token-1"
curl -s -o "$work/private.ics" "$base/feeds/private-all.ics?token=merge-secret-token-1"
check_exact "$work/private.ics" "$n"
curl -s -o "$work/index.html" "$base/"
grep -q 'Events and jobs' "$work/index.html" && grep -q '/feeds/all.ics' "$work/index.html" ||
    fail "the index page does not list the merge"
grep -q 'private-all' "$work/index.html" && fail "the index page lists the token merge"

# picked_oracle EV JB: the UIDs (one a line) the picked merge must hold, read from the parts with
# python3-icalendar, then a line "valarms N": its events that are not cancelled.
picked_oracle() {
    "$python" - "$@" <<'PY'
import sys, icalendar
seen, valarms = [], 0
for path in sys.argv[1:]:
    for c in icalendar.Calendar.from_ical(open(path, "rb").read()).walk():
        if c.name not in ("VEVENT", "VTODO") or str(c["UID"]) in seen:
            continue
        cats = c.get("CATEGORIES")
        cats = [] if cats is None else cats if isinstance(cats, list) else [cats]
        names = {str(x).lower() for cl in cats for x in cl.cats}
        text = (str(c.get("SUMMARY", "")) + " " + str(c.get("DESCRIPTION", ""))).lower()
        if not names & {"music", "interaction design"} or "senior" in text:
            continue
        seen.append(str(c["UID"]))
        valarms += c.name == "VEVENT" and str(c.get("STATUS", "")) != "CANCELLED"
print("\n".join(sorted(seen)))
print("valarms", valarms)
PY
}

# check_picked EV JB: the picked merge is exactly what the oracle says, reminders included.
check_picked() {
    picked_oracle "$1" "$2" >"$work/picked.want"
    local want_n want_alarms
    want_n=$(grep -c @ "$work/picked.want")
    want_alarms=$(sed -n 's/^valarms //p' "$work/picked.want")
    [ "$want_n" -gt 0 ] && grep -q VEVENT "$work/picked.ics" && grep -q VTODO "$work/picked.ics" ||
        fail "the picked merge should hold events and to-dos ($want_n items)"
    check_exact "$work/picked.ics" "$want_n"
    cmp -s <(uids_of "$work/picked.ics" | sed 's/^UID://') <(grep @ "$work/picked.want") ||
        fail "the picked merge holds other items than its filter keeps"
    [ "$(grep -c '^BEGIN:VALARM' "$work/picked.ics")" = "$want_alarms" ] ||
        fail "the picked merge has $(grep -c '^BEGIN:VALARM' "$work/picked.ics") reminders, not $want_alarms"
    [ "$(grep -c '^TRIGGER:-PT20M' "$work/picked.ics")" = "$want_alarms" ] ||
        fail "the picked merge's reminders are not its own 20 minutes"
    [ "$(grep -c '^X-WR-CALNAME:Music and interaction design' "$work/picked.ics")" = 1 ] ||
        fail "the picked merge lacks its title"
}

# A merge's own filter and alarm, over both parts (rebuilt right after the plain merge: wait for it).
for _ in $(seq 1 100); do
    curl -s -o "$work/picked.ics" "$base/feeds/picked.ics"
    picked_oracle "$work/ev.ics" "$work/jb.ics" | grep @ >"$work/picked.uids"
    cmp -s <(uids_of "$work/picked.ics" | sed 's/^UID://') "$work/picked.uids" && break
    sleep 0.1
done
check_picked "$work/ev.ics" "$work/jb.ics"
n_picked=$(grep -c @ "$work/picked.uids")
[ "$n_picked" -lt "$n" ] || fail "the filter kept every item ($n_picked of $n)"
# A view of the filtered merge works like any feed's.
curl -s -o "$work/picked-noalarm.ics" "$base/feeds/picked.ics?alarm=none"
check_exact "$work/picked-noalarm.ics" "$n_picked"
grep -q 'BEGIN:VALARM' "$work/picked-noalarm.ics" && fail "?alarm=none on the picked merge kept reminders"

# online = true on the merge keeps what the same filter keeps on each part (events: online, posts: remote).
wait_for_feeds ev-online.ics jb-remote.ics online.ics
for _ in $(seq 1 100); do
    curl -s -o "$work/ev-online.ics" "$base/feeds/ev-online.ics"
    curl -s -o "$work/jb-remote.ics" "$base/feeds/jb-remote.ics"
    curl -s -o "$work/online.ics" "$base/feeds/online.ics"
    cmp -s <(uids_of "$work/online.ics") <(uids_of "$work/ev-online.ics" "$work/jb-remote.ics") && break
    sleep 0.1
done
n_online=$(($(count "$work/ev-online.ics") + $(count "$work/jb-remote.ics")))
[ "$n_online" -gt 0 ] && [ "$n_online" -lt "$n" ] || fail "online parts hold $n_online of $n items"
check_exact "$work/online.ics" "$n_online"
cmp -s <(uids_of "$work/online.ics") <(uids_of "$work/ev-online.ics" "$work/jb-remote.ics") ||
    fail "online = true on the merge keeps other items than on the parts"

# check: a wrong key in a merge's filter is refused at its FILE:LINE:COL.
sed '0,/^filter = { online = true }$/s//filter = { onlin = true }/' "$work/merge.toml" >"$work/bad.toml"
line=$(grep -n '^filter = { onlin = true }$' "$work/bad.toml" | head -1 | cut -d: -f1)
"$bin" check --config "$work/bad.toml" >"$work/bad.out" 2>&1
status=$?
[ $status -eq 2 ] || fail "check of a wrong filter key exited $status"
grep -q "^$work/bad.toml:$line:12: unknown key 'onlin' in \[feeds.online\].filter; did you mean 'online'?$" \
    "$work/bad.out" || fail "check does not point at the wrong filter key: $(cat "$work/bad.out")"

# The jobs upstream breaks: every call answers 500 from now on.
curl -s -X POST "$jobs_upstream/__control/fault?kind=status500" >/dev/null || fail "cannot set the fault"
failing=
for _ in $(seq 1 300); do
    curl -s -o "$work/health.json" "$base/healthz"
    failing=$("$python" -c 'import json, sys
h = json.load(open(sys.argv[1]))
print(next(f for f in h["feeds"] if f["name"] == "jb")["last_error"] or "")' "$work/health.json")
    [ -n "$failing" ] && break
    sleep 0.1
done
[ -n "$failing" ] || fail "the jobs part never failed: $(cat "$work/health.json")"

# The merge still holds the failing part's last good items, checked again by both parsers.
curl -s -o "$work/all2.ics" "$base/feeds/all.ics"
check_exact "$work/all2.ics" "$n"
cmp -s <(uids_of "$work/all2.ics") <(uids_of "$work/ev.ics" "$work/jb_good.ics") ||
    fail "the merge lost the failing part's items"
# The filtered merge too: the failing part's last good items, through the merge's filter and alarm.
curl -s -o "$work/picked.ics" "$base/feeds/picked.ics"
check_picked "$work/ev.ics" "$work/jb_good.ics"
"$python" - "$work/health.json" "$n" <<'PY' || fail "/healthz does not show the merge: $(cat "$work/health.json")"
import json, sys
h = json.load(open(sys.argv[1]))
f = next(f for f in h["feeds"] if f["name"] == "all")
assert f["merge"] == ["ev", "jb"], f
assert f["served"] and f["items"] == int(sys.argv[2]), f
assert not f["stale"] and f["last_error"] is None, f
PY

# export runs the parts and merges them: while a part fails it fails naming it, and writes nothing.
"$bin" export --config "$work/merge.toml" --feed all --output "$work/export.ics" 2>"$work/export.err"
status=$?
[ $status -eq 1 ] || fail "export of a merge with a failing part exited $status"
grep -q 'export all: part jb: ' "$work/export.err" || fail "export does not name the failing part: $(cat "$work/export.err")"
[ -e "$work/export.ics" ] && fail "a failed export wrote its output"

# A restart with both upstreams gone serves the merge at once, from the stored snapshots.
kill -TERM "$serve_pid"
wait "$serve_pid"
serve_pid=
kill -TERM "$fake_pid"
wait "$fake_pid" 2>/dev/null
fake_pid=
start_icsbridge "$bin" "$work/merge.toml" "$work/serve2.log"
[ "$(curl -s -o "$work/all3.ics" -w '%{http_code}' "$base/feeds/all.ics")" = 200 ] ||
    fail "the merge is not served at once after a restart"
check_exact "$work/all3.ics" "$n"
cmp -s "$work/all2.ics" "$work/all3.ics" || fail "the merge changed across the restart"

# Both upstreams answering again: export runs both parts and gives the items serve showed.
curl -s -X POST "$jobs_upstream/__control/fault?kind=none" >/dev/null || fail "cannot clear the fault"
start_fake_upstream "$fake" "$work" "$work/data"
sed -i "s|base_url = \"$events_upstream\"|base_url = \"$upstream\"|" "$work/merge.toml"
"$bin" export --config "$work/merge.toml" --feed all --output "$work/export.ics" 2>"$work/export.err" ||
    fail "export of the merge failed: $(cat "$work/export.err")"
check_exact "$work/export.ics" "$n"
cmp -s <(uids_of "$work/export.ics") <(uids_of "$work/all.ics") || fail "export gave other items than serve"
echo "merge_e2e: OK ($n items: $n_ev events, $n_jb job items; the failing part kept its items;" \
    "filtered merges: $n_picked picked, $n_online online)"
