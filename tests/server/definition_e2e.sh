#!/usr/bin/env bash
# File: definition_e2e.sh
# A kept snapshot is served only under the definition it was made under (issue 29): a token feed `team`
# redefined as a public search feed on another source whose upstream is down answers 503, not the old
# private calendar, after a restart and after a SIGHUP; the index page lists nothing of it. A feed removed
# and added back by reloads serves its kept snapshot at once, with the upstream down.
#   definition_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=definition_e2e
init_work

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"
token=team-definition-secret-7c1d
# A port nothing listens on: the other source's upstream is down.
dead="http://127.0.0.1:$(free_port)"

# private: `team` is the organizer's events behind a token, and `pub` a public feed.
private() {
    server_toml "$work/state" 127.0.0.1:0
    echo
    events_source_toml "$upstream"
    printf '\n[sources.other]\ntype = "events"\nbase_url = "%s"\ntoken = "other-token"\n\n' "$dead"
    organizer_feed_toml team "token = \"$token\""
    echo
    organizer_feed_toml pub
}
# public: `team` is a public search on the other source; `pub` is gone (WITHOUT_PUB) or back.
public() {
    server_toml "$work/state" 127.0.0.1:0
    echo
    events_source_toml "$upstream"
    printf '\n[sources.other]\ntype = "events"\nbase_url = "%s"\ntoken = "other-token"\n\n' "$dead"
    printf '[feeds.team]\nsource = "other"\nselect = "search"\nrefresh = "1h"\nparams = { q = "x" }\n\n'
    [ "${1:-}" = without_pub ] || organizer_feed_toml pub
}
status_of() { curl -s -o /dev/null -w '%{http_code}' "$base/feeds/$1"; }

# The private calendar is fetched and kept.
private >"$work/serve.toml"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds "team.ics?token=$token" pub.ics
[ "$(status_of "team.ics?token=$token")" = 200 ] || fail "the token feed was never served"
secret_event=$(curl -s "$base/feeds/team.ics?token=$token" | grep -m1 '^SUMMARY:' | cut -d: -f2- | tr -d '\r')
[ -n "$secret_event" ] || fail "the token feed has no event"
pub_etag=$(curl -s -D - -o /dev/null "$base/feeds/pub.ics" | tr -d '\r' | grep -i '^etag:' | cut -d' ' -f2)
stop_icsbridge

# After a restart under the public definition, with its upstream down: 503, never the old calendar.
public >"$work/serve.toml"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
[ "$(status_of team.ics)" = 503 ] || fail "after a restart, team.ics answered $(status_of team.ics), not 503"
! curl -s "$base/feeds/team.ics" | grep -qF "$secret_event" || fail "the old private calendar was served"
! curl -s "$base/" | grep -qF "$secret_event" || fail "the index page shows the old private calendar"
grep -q 'feed team: the restored snapshot was made under another definition' "$work/serve.log" ||
    fail "no log line says why team's kept snapshot is not served"
stop_icsbridge

# The same through a reload: the private calendar in memory goes when the definition changes.
private >"$work/serve.toml"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds "team.ics?token=$token"
public >"$work/serve.toml"
kill -HUP "$serve_pid"
for _ in $(seq 1 50); do [ "$(status_of team.ics)" = 503 ] && break; sleep 0.1; done
[ "$(status_of team.ics)" = 503 ] || fail "after a SIGHUP, team.ics answered $(status_of team.ics), not 503"
! curl -s "$base/feeds/team.ics" | grep -qF "$secret_event" || fail "the old private calendar was served"

# pub removed, then added back, its upstream down: its kept snapshot is served at once, the same bytes.
kill -TERM "$fake_pid"
wait "$fake_pid" 2>/dev/null
fake_pid=
public without_pub >"$work/serve.toml"
kill -HUP "$serve_pid"
for _ in $(seq 1 50); do [ "$(status_of pub.ics)" = 404 ] && break; sleep 0.1; done
[ "$(status_of pub.ics)" = 404 ] || fail "a removed feed answered $(status_of pub.ics)"
public >"$work/serve.toml"
kill -HUP "$serve_pid"
for _ in $(seq 1 20); do [ "$(status_of pub.ics)" = 200 ] && break; sleep 0.1; done
[ "$(status_of pub.ics)" = 200 ] || fail "a feed added back answered $(status_of pub.ics), not its kept snapshot"
again=$(curl -s -D - -o /dev/null "$base/feeds/pub.ics" | tr -d '\r' | grep -i '^etag:' | cut -d' ' -f2)
[ "$again" = "$pub_etag" ] || fail "the feed added back serves $again, not its kept $pub_etag"
! grep -q "$token" "$work/serve.log" || fail "the feed token is in the log"
echo "definition_e2e: ok"
