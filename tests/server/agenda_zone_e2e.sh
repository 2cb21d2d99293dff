#!/usr/bin/env bash
# File: agenda_zone_e2e.sh
# The agenda page's zone, served by the real `icsbridge serve` from the demo's data (the fake upstream with
# --lifecycle, as deploy/demo.sh runs it): the events carry their venues' zones, so a feed without
# `timezone` shows the zone most of them use (America/Los_Angeles, not Asia/Tokyo); a feed's `timezone`
# (a merged feed's too) is the page's default; `?tz=` still wins. A job post written both ways
# (jobs_as = "both") is listed once, and its place reads each part once.
#   agenda_zone_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=agenda_zone_e2e
init_work

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream" --lifecycle
{
    server_toml "$work/state" 127.0.0.1:0
    echo
    fake_sources_toml "$upstream" 'timeout = "5s"'
    echo
    feed_toml my-events eb organizer 'refresh = "1h"'
    echo
    feed_toml berlin eb organizer 'refresh = "1h"' 'timezone = "Europe/Berlin"'
    echo
    feed_toml jobs jobs search 'refresh = "1h"' 'jobs_as = "both"' 'due_after = "3650d"'
    echo
    printf '[feeds.both]\nmerge = ["my-events", "jobs"]\ntimezone = "Asia/Kolkata"\n'
} >"$work/serve.toml"

start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
for feed in my-events berlin jobs both; do
    wait_for_url "$base/feeds/$feed.ics" 20 || fail "feed $feed not served (last status $last_status)"
done
page() { curl -s -o "$work/$1.html" -w '%{http_code}' "$base/feeds/$1.html$2"; }

# The lifecycle events (in San Francisco) are written in the venue's zone.
curl -s -o "$work/my-events.ics" "$base/feeds/my-events.ics"
grep -q "^UID:.*700000000001" "$work/my-events.ics" || fail "no lifecycle event in my-events"
awk '/^BEGIN:VEVENT/{e=""} {e=e $0 "\n"} /^END:VEVENT/ && e ~ /700000000001/ {print e}' "$work/my-events.ics" |
    grep -q "^DTSTART;TZID=America/Los_Angeles:" || fail "the running lifecycle event is not in America/Los_Angeles"

[ "$(page my-events "")" = 200 ] || fail "my-events.html"
grep -q "Times in America/Los_Angeles" "$work/my-events.html" || fail "my-events: $(grep -o 'Times in [^.]*' "$work/my-events.html")"
[ "$(page berlin "")" = 200 ] || fail "berlin.html"
grep -q "Times in Europe/Berlin" "$work/berlin.html" || fail "the feed's timezone is not the page's default"
[ "$(page berlin "?tz=Asia/Tokyo")" = 200 ] || fail "berlin.html?tz="
grep -q "Times in Asia/Tokyo" "$work/berlin.html" || fail "?tz= does not win over the feed's timezone"
for _ in $(seq 1 100); do [ "$(page both "")" = 200 ] && break; sleep 0.1; done
grep -q "Times in Asia/Kolkata" "$work/both.html" || fail "the merged feed's timezone is not the page's default"

# Job posts written both ways: one row each; "Boston, MA, MA, US" reads each part once.
[ "$(page jobs "")" = 200 ] || fail "jobs.html"
posts=$(grep -c "^BEGIN:VTODO" <(curl -s "$base/feeds/jobs.ics"))
rows=$(grep -c '<span class="when">' "$work/jobs.html")
[ "$posts" -gt 1 ] && [ "$rows" = "$posts" ] || fail "$posts job posts, $rows rows on the agenda"
grep -q "Boston, MA, US" "$work/jobs.html" || fail "no Boston, MA, US on the jobs page"
grep -q "MA, MA" "$work/jobs.html" && fail "a place repeats a part"
stop_icsbridge
echo "agenda_zone_e2e: ok ($posts job posts, one row each)"
