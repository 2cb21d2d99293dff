#!/usr/bin/env bash
# File: e2e_test.sh
# End to end: `icsbridge export` of each demo-like feed against the fake upstream, compared byte for byte
# with tests/fixtures/golden/*.ics and checked by a real iCalendar parser (tests/python/check_ics.py).
#   e2e_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
# Regenerate the goldens after an intended output change:
#   ICSBRIDGE_UPDATE_GOLDEN=1 ctest --test-dir build -R cli.e2e   (then review `git diff tests/fixtures/golden`)
set -u

bin=$1
fake=$2
src=$3
golden="$src/tests/fixtures/golden"
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=e2e
fail_logs="err fake.log"
init_work

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"

events_token=demo-events-token
jobs_key=demo-jobs-key
e2e_config() { # e2e_config FILE EVENTS_TOKEN
    write_config "$1" "$(events_source_toml "$upstream" "token = \"$2\"" 'timeout = "5s"')" \
        "$(jobs_source_toml "$upstream" "api_key = \"$jobs_key\"" 'timeout = "5s"')" "$e2e_feeds"
}
e2e_feeds=$(cat <<'TOML'
[feeds.organizer]
source = "eb"
select = "organizer"
title = "My events"
alarm = "1h"
cancelled = "prefix"
token = "e2e-feed-token-secret"
# Ten years: the fixture's events stay in the calendar as they move into the past, so the golden file does
# not depend on today's date (the lifecycle tests cover keep_past itself).
keep_past = "3650d"

[feeds.search]
source = "eb"
select = "search"
title = "Tech in San Francisco"
# The date range is pinned (not window = ...) so the golden file does not depend on today's date.
params = { q = "rust", "location.address" = "San Francisco", "location.within" = "25mi", "start_date.range_start" = "2026-12-01T00:00:00Z", "start_date.range_end" = "2027-12-31T23:59:59Z" }

[feeds.jobs]
source = "jobs"
select = "search"
title = "Design jobs"
due_after = "30d"
jobs_as = "both"
params = { keywords = "designer" }
TOML
)
e2e_config "$work/e2e.toml" "$events_token"

secrets=("$events_token" "$jobs_key" e2e-feed-token-secret)
no_secret() { # no_secret FILE...
    for s in "${secrets[@]}"; do
        if grep -qF -- "$s" "$@"; then fail "secret '$s' found in $*"; fi
    done
}

for feed in organizer search jobs; do
    "$bin" export --config "$work/e2e.toml" --feed "$feed" --output "$work/$feed.ics" 2>"$work/err"
    status=$?
    [ $status -eq 0 ] || fail "export $feed exited $status"
    [ -s "$work/err" ] && fail "export $feed wrote to stderr"
    no_secret "$work/$feed.ics"

    # Same upstream data -> byte-identical calendar (stdout path included).
    "$bin" export --config "$work/e2e.toml" --feed "$feed" >"$work/$feed.stdout.ics" 2>"$work/err" ||
        fail "export $feed to stdout failed"
    cmp -s "$work/$feed.ics" "$work/$feed.stdout.ics" || fail "export $feed: a second run (to stdout) differs"

    if [ "${ICSBRIDGE_UPDATE_GOLDEN:-0}" = 1 ]; then
        mkdir -p "$golden"
        cp "$work/$feed.ics" "$golden/$feed.ics"
        echo "updated $golden/$feed.ics"
    elif ! cmp -s "$work/$feed.ics" "$golden/$feed.ics"; then
        diff -u "$golden/$feed.ics" "$work/$feed.ics" | head -40 >&2
        fail "$feed.ics differs from the golden file (ICSBRIDGE_UPDATE_GOLDEN=1 regenerates it)"
    fi

    "$python" "$src/tests/python/check_ics.py" "$work/$feed.ics" --expect "$golden/$feed.expect.json" >"$work/err" 2>&1 ||
        fail "check_ics.py rejected $feed.ics"
done

# The upstream refuses a wrong token: exit 1, one line naming the feed, and the token is not echoed.
e2e_config "$work/bad.toml" wrong-token-value-secret
secrets+=(wrong-token-value-secret)
cp "$work/organizer.ics" "$work/keep.ics"
"$bin" export --config "$work/bad.toml" --feed organizer --output "$work/keep.ics" 2>"$work/err"
status=$?
[ $status -eq 1 ] || fail "export with a rejected token exited $status, expected 1"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "export with a rejected token printed more than one line"
grep -qE "^icsbridge: export organizer: .*(token|auth)" "$work/err" || fail "rejected token: unclear message"
cmp -s "$work/keep.ics" "$work/organizer.ics" || fail "a failed export changed the output file"
no_secret "$work/err"

# On a terminal, export shows a progress line and clears it (script(1) provides the terminal).
if command -v script >/dev/null; then
    script -qec "'$bin' export --config '$work/e2e.toml' --feed search --output '$work/tty.ics'" /dev/null \
        >"$work/tty.log" 2>&1 || fail "export on a terminal failed"
    grep -qaE $'\r  search: page [0-9]+, [0-9]+' "$work/tty.log" || fail "no progress line on a terminal"
    cmp -s "$work/tty.ics" "$work/search.ics" || fail "export on a terminal wrote different bytes"
    no_secret "$work/tty.log"
fi

categories=$("$bin" categories --config "$work/e2e.toml" --source jobs 2>"$work/err") || fail "categories on jobs failed"
[ -n "$categories" ] || fail "no job categories printed"
echo "$categories" | grep -qvE $'^[^\t]+\t.+$' && fail "a category line is not id<TAB>name"
tags=$("$bin" tags --config "$work/e2e.toml" --source jobs 2>"$work/err") || fail "tags on jobs failed"
[ -n "$tags" ] || fail "no job tags printed"
echo "ok [e2e]"
