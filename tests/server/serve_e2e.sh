#!/usr/bin/env bash
# File: serve_e2e.sh
# End to end for `icsbridge serve` against the fake upstream binary: the served feed parses, edited
# upstream data shows after the next refresh with unchanged UIDs kept, SIGTERM exits 0 without leaving
# temp files, and a restart with the upstream down serves the stored snapshot at once with /healthz ok.
#   serve_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=serve_e2e
fail_logs="serve.log serve2.log fake.log"
init_work

start_fake() { start_fake_upstream "$fake" "$work" "$work/data"; }

# start_serve LOG: starts the server; sets serve_pid and base (http://127.0.0.1:PORT)
start_serve() { start_icsbridge "$bin" "$work/serve.toml" "$work/$1"; }

uids() { # uids FILE: the UIDs of a calendar, one per line, sorted
    "$python" -c 'import sys, icalendar
cal = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
print("\n".join(sorted(str(c["UID"]) for c in cal.walk("VEVENT"))))' "$1"
}

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake

{
    server_toml "$work/state" 127.0.0.1:0
    events_source_toml "$upstream" 'timeout = "5s"'
    feed_toml mine eb organizer 'title = "My events"' 'refresh = "3s"'
} >"$work/serve.toml"

start_serve serve.log
wait_for_url "$base/feeds/mine.ics" || fail "feed not served (last status $last_status)"
curl -s -o "$work/v1.ics" "$base/feeds/mine.ics"
"$python" "$src/tests/python/check_ics.py" "$work/v1.ics" >"$work/check.out" 2>&1 || { cat "$work/check.out" >&2; fail "served feed does not parse"; }
uids "$work/v1.ics" >"$work/uids1"

# Edit the upstream: rename one live event, remove another, add a new one.
read -r renamed removed <<<"$("$python" - "$work/data/events/events.json" <<'PY'
import json, sys, copy
path = sys.argv[1]
d = json.load(open(path))
live = [e for e in d["events"] if e.get("status") == "live"]
a, b, c = live[0], live[1], live[2]
a["name"]["text"] = a["name"]["html"] = "Renamed by serve_e2e"
a["changed"] = "2030-01-01T00:00:00Z"
d["events"].remove(b)
n = copy.deepcopy(c)
n["id"] = "990000000001"
n["name"]["text"] = n["name"]["html"] = "Added by serve_e2e"
d["events"].append(n)
json.dump(d, open(path, "w"))
print(a["id"], b["id"])
PY
)"
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null || fail "reload failed"
for _ in $(seq 1 200); do
    curl -s -o "$work/v2.ics" "$base/feeds/mine.ics"
    grep -q "Added by serve_e2e" "$work/v2.ics" && break
    sleep 0.1
done
grep -q "Added by serve_e2e" "$work/v2.ics" || fail "the added event never appeared"
grep -q "Renamed by serve_e2e" "$work/v2.ics" || fail "the renamed event is not renamed"
uids "$work/v2.ics" >"$work/uids2"
grep -v "$removed" "$work/uids1" >"$work/kept"
grep -q "990000000001" "$work/uids2" || fail "the added event has no UID from its id"
grep -v "990000000001" "$work/uids2" >"$work/kept2"
cmp -s "$work/kept" "$work/kept2" || fail "UIDs of unchanged events changed: $(diff "$work/kept" "$work/kept2")"
grep -q "$removed" "$work/uids2" && fail "the removed event is still there"
[ "$(grep -c . "$work/uids2")" -eq "$(grep -c . "$work/uids1")" ] || fail "event count changed unexpectedly"

stop_icsbridge
# The snapshot, its CalDAV change history (dav/history_kept.cpp) and the WebDAV-Push folder (the VAPID key,
# made at the first start: [dav] push is on by default), nothing else.
ls -A "$work/state" | grep -vE '^(mine\.(snapshot|davhistory)|webpush)$' && fail "stray files left in storage.dir"

# Upstream down: the restart serves the stored snapshot at once, byte for byte.
kill -TERM "$fake_pid"
wait "$fake_pid" 2>/dev/null
fake_pid=
curl -s -o "$work/before.ics" "$base/feeds/mine.ics" && fail "old server still answering"
cp "$work/v2.ics" "$work/before.ics"
start_serve serve2.log
curl -s -o "$work/v3.ics" -w '%{http_code}' "$base/feeds/mine.ics" >"$work/code3"
[ "$(cat "$work/code3")" = 200 ] || fail "restart with the upstream down: status $(cat "$work/code3")"
cmp -s "$work/v3.ics" "$work/before.ics" || fail "restart served different bytes"
# ... and /healthz stays green: the stored snapshot is seconds old, whatever the upstream does now.
curl -s -o "$work/health3.json" "$base/healthz" || fail "no /healthz after the restart"
"$python" - "$work/health3.json" <<'PY' || fail "/healthz after the restart: $(cat "$work/health3.json")"
import json, sys
h = json.load(open(sys.argv[1]))
f = h["feeds"][0]
sys.exit(0 if h["ok"] and f["last_success"] and not f["stale"] else 1)
PY
stop_icsbridge
grep -q "demo-events-token" "$work/serve.log" "$work/serve2.log" && fail "a secret reached the log"
echo "serve_e2e: ok"
