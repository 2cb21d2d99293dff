#!/usr/bin/env bash
# File: export_threads_test.sh
# `export` renders pages on worker threads while the next ones arrive (PrerenderPool). libical's lazy,
# process-wide set-up once crashed a fresh process 4 runs in 100 when two workers reached it together, and
# its zones gave events an hour off: 60 fresh exports of 1,000 events in one page (the case that failed),
# over several zones, must each succeed and write the same bytes.
#   export_threads_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=export_threads
fail_logs="err fake.log"
init_work

launch_fake_upstream "$fake" "$work" --generate-events 1000 --page-size 1000 --description-bytes 300 ||
    fail "the fake upstream did not start"
cat >"$work/c.toml" <<TOML
[sources.eb]
type = "events"
base_url = "$upstream"
token = "demo-events-token"
timeout = "30s"

[feeds.big]
source = "eb"
select = "organizer"
keep_past = "0s"
TOML
chmod 600 "$work/c.toml"

"$bin" export --config "$work/c.toml" --feed big >"$work/first.ics" 2>"$work/err" || fail "the first export failed"
n=$(grep -c '^BEGIN:VEVENT' "$work/first.ics")
[ "$n" -eq 1000 ] || fail "the first export wrote $n events, not 1000"
zones=$(grep -c '^BEGIN:VTIMEZONE' "$work/first.ics")
for i in $(seq 2 60); do
    "$bin" export --config "$work/c.toml" --feed big >"$work/again.ics" 2>"$work/err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "export $i of 60 exited $rc"
    cmp -s "$work/first.ics" "$work/again.ics" || fail "export $i of 60 wrote other bytes: $(diff "$work/first.ics" "$work/again.ics" | head -4)"
done
echo "PASS [cli.export_threads]: 60 exports of 1000 events ($zones zones), byte-identical"
