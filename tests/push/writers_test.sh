#!/usr/bin/env bash
# File: writers_test.sh
# Two writers on one calendar (issue 35, defect 2): a writer owns exactly what it wrote.
#   two installs   config one pushes feed pub (34 events) through target a, config two feed jobs (57 job
#                  posts as events) through target b, both into the calendar "Shared": the calendar then
#                  holds all 91, and pushing each again writes nothing (before: b deleted a's 34, a deleted
#                  b's 57, and so on every run)
#   upgrade        a's resources renamed to an earlier version's names (icsbridge-<32 hex>.ics) and its state
#                  file saying so: the next push adopts them from the state, writes nothing and creates none
#                  twice; an item dropped from the feed is then deleted under its old name
#   one config     both targets in one config naming the same collection: `check` refuses it with the
#                  FILE:LINE:COL of both tables, and `push` writes nothing; spelt so that only the server's
#                  answer shows it (a URL, and the root with a display name), `push` refuses the second
#                  target with an error naming both, nothing written to it
#   several feeds  feeds pub and pub-alarm (the same UIDs, the second with alarms) into one target: each
#                  item written once, and pushing again writes nothing (no flapping between the two)
#   writers_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=push.writers
fail_logs="push.out push.err proxy.log radicale.log check.err"
push_init

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"
start_radicale
start_dav_proxy
export TEST_DAV_PASSWORD=$dav_password
make_calendar "$dav_user/shared/" "Shared"

jobs_feed='[feeds.jobs]
source = "jobs"
select = "search"
due_after = "30d"
jobs_as = "vevent"'

# writer_config FILE TARGET FEED: its own storage dir, feed FEED pushed into TARGET, which writes into
# "Shared".
writer_config() {
    local feed
    if [ "$3" = pub ]; then feed=$(organizer_feed_toml pub 'push = ["a"]'); else feed="$jobs_feed
push = [\"b\"]"; fi
    write_config "$1" "$(server_toml "$work/state-$2" "127.0.0.1:0")" "$(fake_sources_toml "$upstream")" "$feed" \
        "$(caldav_target_toml "$2" "${proxy_url}$dav_user/shared/")"
}
writer_config "$work/one.toml" a pub
writer_config "$work/two.toml" b jobs
"$bin" export --config "$work/one.toml" --feed pub --output "$work/pub.ics" 2>"$work/export.err" ||
    fail "export pub failed: $(cat "$work/export.err")"
"$bin" export --config "$work/two.toml" --feed jobs --output "$work/jobs.ics" 2>"$work/export.err" ||
    fail "export jobs failed: $(cat "$work/export.err")"

# push_with CONFIG WANT: one push of CONFIG whose line must be WANT (a prefix).
push_with() {
    "$bin" push --config "$1" >"$work/push.out" 2>"$work/push.err" || fail "push $1 exited $?: $(cat "$work/push.err")"
    grep -q "^$2" "$work/push.out" || fail "push $1 printed: $(cat "$work/push.out") (want $2)"
}

# 1. Two installs, one calendar: each writes its own items once, then nothing.
push_with "$work/one.toml" "a: created 34, updated 0, deleted 0"
push_with "$work/two.toml" "b: created 57, updated 0, deleted 0"
proxy_reset_log
for round in 1 2; do
    push_with "$work/one.toml" "a: created 0, updated 0, deleted 0, unchanged 34"
    push_with "$work/two.toml" "b: created 0, updated 0, deleted 0, unchanged 57"
done
[ "$(proxy_writes)" = 0 ] || fail "pushes with nothing changed wrote: $(proxy_summary)"
dav_check --calendar Shared --compare "$work/pub.ics" --compare "$work/jobs.ics" >"$work/cal.json" ||
    fail "dav_check failed"
[ "$(json_get "$work/cal.json" 'd["ours"], d["duplicate_uids"], d["bad_names"], d["compare"]["missing"][:3], d["compare"]["extra"][:3]')" = "(91, [], [], [], [])" ] ||
    fail "'Shared' is not both feeds once: $(json_get "$work/cal.json" 'd["ours"], d["duplicate_uids"][:3], d["bad_names"][:3], d["compare"]["missing"][:3], d["compare"]["extra"][:3]')"
echo "two installs: 91 items, 4 pushes with nothing changed wrote nothing"

# 1b. An earlier version's names: a's resources renamed to icsbridge-<32 hex>.ics in the calendar (MOVE,
# straight into Radicale) and in a's state file, as that version left them.
state_a="$work/state-a/push/a.json"
$python - "$state_a" >"$work/renames.txt" <<'PY' || fail "could not rewrite a's state"
import hashlib, json, sys
path = sys.argv[1]
s = json.load(open(path))
for uid, w in s["items"].items():
    old = "icsbridge-" + hashlib.sha256(uid.encode()).hexdigest()[:32] + ".ics"
    print(w["name"], old)
    s["listing"][old] = s["listing"].pop(w["name"])
    w["name"] = old
json.dump(s, open(path, "w"))
PY
[ "$(wc -l <"$work/renames.txt")" = 34 ] || fail "a's state names $(wc -l <"$work/renames.txt") items, not 34"
while read -r new old; do
    dav_curl -f -o /dev/null -X MOVE -H "Destination: $radicale_url$dav_user/shared/$old" \
        "$radicale_url$dav_user/shared/$new" || fail "could not rename $new to $old"
done <"$work/renames.txt"
proxy_reset_log
push_with "$work/one.toml" "a: created 0, updated 0, deleted 0, unchanged 34"
push_with "$work/two.toml" "b: created 0, updated 0, deleted 0, unchanged 57"
[ "$(proxy_writes)" = 0 ] || fail "pushes after the upgrade wrote: $(proxy_summary)"
dav_check --calendar Shared >"$work/cal.json" || fail "dav_check failed"
[ "$(json_get "$work/cal.json" 'd["ours"], d["duplicate_uids"], sum(1 for i in d["items"] if len(i["name"]) == 46)')" = "(91, [], 34)" ] ||
    fail "after the upgrade 'Shared' holds: $(json_get "$work/cal.json" 'd["ours"], d["duplicate_uids"][:3], sum(1 for i in d["items"] if len(i["name"]) == 46)')"
# An item the feed drops is deleted under the old name it has (and b's are still not a's to touch).
fixtures_without "$src" "$work/removed" 251769507000
curl -s -X POST "$upstream/__control/reload?dir=$work/removed" >/dev/null
proxy_reset_log
push_with "$work/one.toml" "a: created 0, updated 0, deleted 1, unchanged 33"
old_removed="icsbridge-$(printf '%s' event-251769507000@127.0.0.1 | sha256sum | cut -c1-32).ics"
grep -q "^DELETE /$dav_user/shared/$old_removed " "$work/proxy.log" ||
    fail "the DELETE was not of the adopted resource $old_removed: $(grep '^DELETE' "$work/proxy.log")"
curl -s -X POST "$upstream/__control/reload?dir=$src/tests/fixtures/upstream" >/dev/null
push_with "$work/one.toml" "a: created 1, updated 0, deleted 0, unchanged 33"
echo "upgrade: 34 items of an earlier version adopted from the state, nothing written twice"

# 2. One config, two targets on one collection: refused before anything is written.
cat >"$work/both.toml" <<TOML
$(server_toml "$work/state-both" "127.0.0.1:0")

$(fake_sources_toml "$upstream")

$(organizer_feed_toml pub 'push = ["a"]')

$jobs_feed
push = ["b"]

$(caldav_target_toml a "${proxy_url}$dav_user/shared/")

$(caldav_target_toml b "${proxy_url}$dav_user/shared")
TOML
line_a=$(grep -n '^\[targets.a\]' "$work/both.toml" | cut -d: -f1)
line_b=$(grep -n '^\[targets.b\]' "$work/both.toml" | cut -d: -f1)
"$bin" check --config "$work/both.toml" >/dev/null 2>"$work/check.err" && fail "check accepted two targets on one calendar"
grep -qF "$work/both.toml:$line_b:1:" "$work/check.err" && grep -qF "$work/both.toml:$line_a:1" "$work/check.err" ||
    fail "check does not name both tables at FILE:LINE:COL: $(cat "$work/check.err")"
grep -q "targets.a" "$work/check.err" && grep -q "targets.b" "$work/check.err" ||
    fail "check does not name both targets: $(cat "$work/check.err")"
echo "check: $(head -1 "$work/check.err")"
proxy_reset_log
"$bin" push --config "$work/both.toml" >"$work/push.out" 2>"$work/push.err" && fail "push accepted two targets on one calendar"
[ "$(proxy_writes)" = 0 ] || fail "push wrote into a calendar two targets name: $(proxy_summary)"
echo "push: refused, nothing written"

# 2b. Two spellings the config cannot tell apart (a collection's URL; the server's root and the calendar's
# display name): the server resolves both to one collection, and push refuses the second target, naming both.
cat >"$work/spelt.toml" <<TOML
$(server_toml "$work/state-a" "127.0.0.1:0")

$(fake_sources_toml "$upstream")

$(organizer_feed_toml pub 'push = ["a"]')

$jobs_feed
push = ["b"]

$(caldav_target_toml a "${proxy_url}$dav_user/shared/")

$(caldav_target_toml b "${proxy_url}" 'calendar = "Shared"')
TOML
"$bin" check --config "$work/spelt.toml" >/dev/null 2>"$work/check.err" || fail "check refused two spellings: $(cat "$work/check.err")"
proxy_reset_log
"$bin" push --config "$work/spelt.toml" >"$work/push.out" 2>"$work/push.err" && fail "push accepted two targets resolving to one calendar"
grep -Eq "targets (a and b|b and a) both write into the calendar" "$work/push.err" || fail "push does not name both targets: $(cat "$work/push.err")"
[ "$(proxy_writes)" = 0 ] || fail "push wrote with two targets on one calendar: $(proxy_summary)"
echo "push: $(head -1 "$work/push.err")"

# 3. Several feeds into one target, the same UIDs in both (the second with alarms): each item once, no flapping.
make_calendar "$dav_user/several/" "Several"
cat >"$work/several.toml" <<TOML
$(server_toml "$work/state-several" "127.0.0.1:0")

$(fake_sources_toml "$upstream")

$(organizer_feed_toml pub 'push = ["c"]')

$(organizer_feed_toml pub-alarm 'push = [{ target = "c", view = "alarm=30m" }]')

$(caldav_target_toml c "${proxy_url}$dav_user/several/")
TOML
push_with "$work/several.toml" "c: created 34, updated 0, deleted 0"
proxy_reset_log
for round in 1 2; do
    push_with "$work/several.toml" "c: created 0, updated 0, deleted 0, unchanged 34"
done
[ "$(proxy_writes)" = 0 ] || fail "two feeds into one target flapped: $(proxy_summary)"
dav_check --calendar Several --compare "$work/pub.ics" >"$work/cal.json" || fail "dav_check failed"
[ "$(json_get "$work/cal.json" 'd["ours"], d["duplicate_uids"], d["compare"]["missing"][:3], d["compare"]["extra"][:3]')" = "(34, [], [], [])" ] ||
    fail "'Several' is not pub once: $(json_get "$work/cal.json" 'd["ours"], d["duplicate_uids"][:3], d["compare"]["missing"][:3]')"
echo "several feeds: 34 items once, two pushes wrote nothing"
echo "PASS [$test_name]"
