#!/usr/bin/env bash
# File: lifecycle_test.sh
# An organizer feed over its events' whole life, through the real binary and the fake upstream's lifecycle
# data (events dated around now): a running event is present, one ended 10 days ago present and one ended
# 60 days ago absent (default keep_past), a cancelled one STATUS:CANCELLED, a draft and a series parent
# never, each series date its own VEVENT; the upstream's plain text round-trips exactly through
# python3-icalendar and vobject, and X-ALT-DESC carries no script. Then keep_past = "0s".
#   lifecycle_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=lifecycle
fail_logs="err"
init_work

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream" --lifecycle

life_config() { # life_config FILE KEEP_PAST_LINE
    write_config "$1" "$(events_source_toml "$upstream" 'timeout = "5s"')" \
        "$(feed_toml life eb organization 'cancelled = "status"' "$2")"
}

export_feed() { # export_feed CONFIG OUT
    "$bin" export --config "$1" --feed life --output "$2" 2>"$work/err" || fail "export exited $?"
}

life_config "$work/default.toml" ""
export_feed "$work/default.toml" "$work/default.ics"

uid() { echo "event-$1@127.0.0.1"; }
cat >"$work/expect.json" <<JSON
{
  "items": [
    {"uid": "$(uid 700000000001)", "summary": "Running now: Lifecycle Workshop", "status": "CONFIRMED"},
    {"uid": "$(uid 700000000002)", "summary": "Ended ten days ago: Lifecycle Meetup"},
    {"uid": "$(uid 700000000004)", "summary": "Lifecycle Picnic", "status": "CANCELLED"},
    {"uid": "$(uid 700000000011)", "summary": "Lifecycle Course, week 1"},
    {"uid": "$(uid 700000000012)", "summary": "Lifecycle Course, week 2"},
    {"uid": "$(uid 700000000013)", "summary": "Lifecycle Course, week 3"},
    {"uid": "$(uid 700000000020)",
     "description_startswith": $("$python" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$(printf 'First paragraph, with commas; semicolons and a back\\slash.\n\n\tIndented line after a blank one.\nColumns:\tA\tB\n\n\nTwo blank lines above. Unicode: Grüße — 東京 🎵')"),
     "alt_desc_contains": ["<p>First paragraph", "href=\"https://example.com/more?a=1&amp;b=2\"", "good link"],
     "alt_desc_lacks": ["script", "onclick", "javascript:", "iframe", "style=", "alert"]}
  ],
  "forbidden": ["$(uid 700000000003)", "$(uid 700000000005)", "$(uid 700000000010)", "demo-events-token"]
}
JSON
"$python" "$src/tests/python/check_ics.py" "$work/default.ics" --expect "$work/expect.json" >"$work/check.out" ||
    { cat "$work/check.out" >&2; fail "check_ics.py rejected the default-keep_past calendar"; }

# keep_past = "0s": an event leaves when it ends; a running one stays; a cancelled future one stays.
life_config "$work/zero.toml" 'keep_past = "0s"'
export_feed "$work/zero.toml" "$work/zero.ics"
cat >"$work/expect0.json" <<JSON
{
  "items": [
    {"uid": "$(uid 700000000001)", "summary": "Running now: Lifecycle Workshop"},
    {"uid": "$(uid 700000000004)", "status": "CANCELLED"}
  ],
  "forbidden": ["$(uid 700000000002)", "$(uid 700000000003)", "$(uid 700000000005)", "$(uid 700000000010)"]
}
JSON
"$python" "$src/tests/python/check_ics.py" "$work/zero.ics" --expect "$work/expect0.json" >"$work/check.out" ||
    { cat "$work/check.out" >&2; fail "check_ics.py rejected the keep_past = 0s calendar"; }

# Same data, same bytes: SEQUENCE and DTSTAMP come from the upstream, not the clock.
export_feed "$work/default.toml" "$work/again.ics"
cmp -s "$work/default.ics" "$work/again.ics" || fail "a second export differs"
echo "lifecycle: ok"
