#!/usr/bin/env bash
# File: reload_e2e.sh
# SIGHUP re-reads the config while wrk loads the server (0 errors): a feed added is served once fetched, a
# subscriber removed from `tokens` gets 410 Gone at once (still after a restart; an unknown token 404),
# unchanged feeds keep their ETag without a refetch,
# a removed feed answers 404 (its snapshot stays on disk), a broken config is refused with FILE:LINE:COL
# and shown in /healthz while the old one keeps running, a changed listen is logged as needing a restart.
#   reload_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=reload_e2e
init_work
command -v wrk >/dev/null || { echo "wrk not installed: skipping"; exit 77; }

admin=admin-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"

# reload_config [EXTRA_FEED] [BOB] [LISTEN]: the config, with or without the feed `extra` and subscriber bob
reload_config() {
    local extra=
    if [ "${1:-}" = extra ]; then
        extra=$(printf '[feeds.extra]\nsource = "jobs"\nselect = "recent"\nrefresh = "1h"')
    fi
    write_config "$work/serve.toml" \
        "$(server_toml "$work/state" "${3:-127.0.0.1:0}" "admin_token = \"$admin\"")" \
        "$(fake_sources_toml "$upstream")" \
        "$(organizer_feed_toml pub)" \
        "$(organizer_feed_toml team 'title = "Team"')
tokens = { alice = \"alice-reload-secret-1\"$( [ "${2:-bob}" = bob ] && echo ', bob = "bob-reload-secret-2"' ) }" \
        ${extra:+"$extra"}
}
status() { curl -s -o /dev/null -w '%{http_code}' "$base/feeds/$1"; }
etag() { curl -s -D - -o /dev/null "$base/feeds/$1" | tr -d '\r' | grep -i '^etag:' | cut -d' ' -f2; }
requests_to() {
    curl -s "$upstream/__control/requests" |
        /usr/bin/python3 -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin) if sys.argv[1] in r.get("target", r.get("path", ""))))' "$1"
}

reload_config "" bob
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics "team.ics?token=alice-reload-secret-1"
[ "$(status "team.ics?token=bob-reload-secret-2")" = 200 ] || fail "bob is not served before the reload"
[ "$(status extra.ics)" = 404 ] || fail "extra exists before it is configured"
pub_etag=$(etag pub.ics)
team_etag=$(etag "team.ics?token=alice-reload-secret-1")

# Load for the whole sequence of reloads: not one request may fail. It runs until the last reload is
# checked (SIGINT: wrk stops and reports), however long that takes, not for a fixed time.
wrk -t1 -c8 -d120s "$base/feeds/pub.ics" >"$work/wrk.out" 2>&1 &
wrk_pid=$!
sleep 1

# 1. Add a feed, revoke bob.
curl -s -X POST "$upstream/__control/clear_requests" >/dev/null
reload_config extra nobob
hup_and_wait 1
# Revoked: 410 Gone (calendar apps stop polling), for the feed and its agenda page; a token never given: 404.
[ "$(status "team.ics?token=bob-reload-secret-2")" = 410 ] || fail "bob does not get 410 Gone after the reload"
[ "$(status "team.html?token=bob-reload-secret-2")" = 410 ] || fail "bob's agenda page is not 410 Gone"
[ "$(status "team.ics?token=never-given-secret-3")" = 404 ] || fail "an unknown token does not get 404"
grep -q "reload: 1 token(s) revoked; they answer 410 Gone for a week" "$work/serve.log" ||
    fail "the revocation is not logged"
[ "$(status "team.ics?token=alice-reload-secret-1")" = 200 ] || fail "alice lost her feed in the reload"
code=
for _ in $(seq 1 100); do
    code=$(status extra.ics)
    [ "$code" = 200 ] && break
    sleep 0.1
done
[ "$code" = 200 ] || fail "the added feed was not served after the reload (last $code)"
grep -q 'reloaded: 1 feed(s) added, 0 removed, 0 changed (fetched again now), 2 kept' "$work/serve.log" ||
    fail "the reload summary is wrong: $(grep reloaded: "$work/serve.log")"
[ "$(etag pub.ics)" = "$pub_etag" ] || fail "an unchanged feed changed its ETag"
[ "$(etag "team.ics?token=alice-reload-secret-1")" = "$team_etag" ] || fail "the token change refetched the team feed"
sleep 1
[ "$(requests_to /users/me/events)" = 0 ] || fail "unchanged feeds were fetched again after the reload"

# 2. A broken config: refused, logged with FILE:LINE:COL, shown in /healthz; the old one keeps serving.
cp "$work/serve.toml" "$work/good.toml"
printf '\n[feeds.broken]\nsource = "eb"\nselect = "organiser"\n' >>"$work/serve.toml"
hup_and_wait 2
grep -q "reload refused, the running config stays: $work/serve.toml:[0-9]*:[0-9]*: " "$work/serve.log" ||
    fail "the refused reload does not name FILE:LINE:COL"
curl -s -H "Authorization: Bearer $admin" "$base/healthz" >"$work/healthz.json"
/usr/bin/python3 - "$work/healthz.json" <<'PY' || fail "/healthz does not show the failed reload"
import json, sys
r = json.load(open(sys.argv[1]))["last_reload"]
assert r["ok"] is False and "serve.toml:" in r["error"], r
PY
curl -s "$base/healthz" | grep -q '"error"' && fail "the public /healthz shows the reload error"
[ "$(status extra.ics)" = 200 ] || fail "the running config was dropped by a broken one"
[ "$(status "team.ics?token=alice-reload-secret-1")" = 200 ] || fail "alice lost her feed to a broken config"

# 3. Remove the feed again: 404, its snapshot stays on disk; a changed listen needs a restart.
reload_config "" nobob 127.0.0.1:1
hup_and_wait 3
[ "$(status extra.ics)" = 404 ] || fail "a removed feed is still served"
[ -s "$work/state/extra.snapshot" ] || fail "the removed feed's snapshot was deleted"
grep -q "reload: listen changed; it takes effect only after a restart" "$work/serve.log" ||
    fail "a changed listen is not reported as needing a restart"
curl -s -H "Authorization: Bearer $admin" "$base/healthz" >"$work/healthz.json"
/usr/bin/python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["last_reload"]; assert r["ok"] is True and r["at"], r' \
    "$work/healthz.json" || fail "/healthz does not show the good reload"

kill -INT "$wrk_pid"
wait "$wrk_pid"
grep -q "requests in" "$work/wrk.out" || { cat "$work/wrk.out" >&2; fail "wrk did not run"; }
if grep -q "Socket errors\|Non-2xx" "$work/wrk.out"; then
    cat "$work/wrk.out" >&2
    fail "requests failed during the reloads"
fi
kill -0 "$serve_pid" 2>/dev/null || fail "serve died"
echo "$(grep 'requests in' "$work/wrk.out" | sed 's/^ *//') across 3 reloads, 0 errors"

# 4. A restart keeps bob revoked (410), from a digest under storage.dir that never holds the token.
kill -TERM "$serve_pid"
wait "$serve_pid"
reload_config "" nobob
start_icsbridge "$bin" "$work/serve.toml" "$work/serve2.log"
wait_for_feeds "team.ics?token=alice-reload-secret-1"
[ "$(status "team.ics?token=bob-reload-secret-2")" = 410 ] || fail "bob is not 410 Gone after a restart"
[ "$(status "team.ics?token=never-given-secret-3")" = 404 ] || fail "an unknown token is not 404 after a restart"
[ -s "$work/state/revoked-tokens" ] || fail "no revoked-tokens file under storage.dir"
grep -rq "bob-reload-secret-2" "$work/state" "$work/serve.log" "$work/serve2.log" &&
    fail "the revoked token itself was written somewhere"
[ "$(stat -c %a "$work/state/revoked-tokens")" = 600 ] || fail "revoked-tokens is not owner-only"
echo "PASS [reload_e2e]"
