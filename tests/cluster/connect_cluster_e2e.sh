#!/usr/bin/env bash
# File: connect_cluster_e2e.sh
# Self-serve connections in cluster mode (issue 27): two `icsbridge serve` replicas on one real PostgreSQL,
# one key file, the fake Google. Six people connect the feed, alternately through each replica, one of them
# starting at r1 and coming back to r2 (a load balancer may do that). Then:
#   - every calendar holds the feed's events once, and each connection was pushed by exactly one replica
#     (its "push connection-ID" lines are in one log only; the fake saw one insert per event per calendar);
#   - a callback replayed at the other replica is refused (the claim is the database's);
#   - every person's page answers "In sync" at either replica (the status lives with the record);
#   - a change upstream (webhook to r1) reaches every calendar as one update each, from whichever replica
#     pushes that connection;
#   - the operator's own Google target: `icsbridge connect` with r1's config stores the sign-in in the
#     database (icsbridge_oauth_tokens), and a push with r2's config, no token file in its storage.dir,
#     signs in with that row.
#   connect_cluster_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
python=/usr/bin/python3
. "$src/tests/support/sh/cluster_fixtures.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
cluster_init connect_cluster_e2e
fail_logs="r1.log r2.log fake-google.err connect.err own-push.err"
people=6

start_postgres
cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
ports=("" "$(free_port)" "$(free_port)")
secret=fake-client-secret-$RANDOM$RANDOM
# Behind a load balancer every replica has the one public_url: here r1's address, where the provider sends
# people back (the test sends one of them to r2 instead, as a balancer may).
public=http://127.0.0.1:${ports[1]}
start_fake_calendar_api google --client-secret "$secret" --redirect-uri "$public/connect/callback"
export TEST_CLIENT_SECRET=$secret TEST_DATABASE_URL=$pg_url
export TEST_HOOK_SECRET=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
openssl rand -hex 32 >"$work/connect.key"
chmod 600 "$work/connect.key"
for i in 1 2; do
    {
        server_toml "$work/state$i" "127.0.0.1:${ports[$i]}" "public_url = \"$public\""
        printf '\n[cluster]\ndatabase_url_env = "TEST_DATABASE_URL"\nnode = "r%s"\nlease = "3s"\n\n' "$i"
        events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"'
        echo
        organizer_feed_toml pub 'title = "Club nights"'
        printf '\n[connect]\nkey_file = "%s"\n' "$work/connect.key"
        printf 'google = { client_id = "test-client", client_secret_env = "TEST_CLIENT_SECRET", api_base = "%s", auth_url = "%s", token_url = "%s" }\n' \
            "$api_base" "$auth_url" "$token_url"
    } >"$work/r$i.toml"
done
bases=()
for i in 1 2; do
    start_icsbridge "$bin" "$work/r$i.toml" "$work/r$i.log"
    replicas="$replicas $serve_pid"
    serve_pid=
    bases[$i]=$base
done
wait_for_url "${bases[1]}/feeds/pub.ics" 20 && wait_for_url "${bases[2]}/feeds/pub.ics" 20 || fail "the replicas serve no feed"

# connect_at START BACK ACCOUNT: the flow started at replica START, the provider sending the person back
# to replica BACK; sets page (the person's page, at BACK) and callback.
connect_at() {
    local loc
    loc=$(curl -s -o /dev/null -w '%{redirect_url}' "${bases[$1]}/connect/google?feed=pub")
    case "$loc" in "$auth_url?"*) ;; *) fail "r$1's button address answered $loc" ;; esac
    callback=$(curl -s -o /dev/null -w '%{redirect_url}' "$loc&login_hint=$3")
    callback=${callback/$public/${bases[$2]}}
    loc=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$callback")
    case "$loc" in "303 $public/connections/"*) page=${loc#303 } ;; *) fail "r$2's callback answered $loc" ;; esac
}

pages=()
for n in $(seq 1 $people); do
    at=$((n % 2 + 1))
    back=$at
    if [ "$n" = 1 ]; then at=1 back=2; fi # the one who starts at r1 and comes back to r2
    connect_at "$at" "$back" "person$n@example.org"
    pages[$n]=$page
    [ "$n" = 1 ] && first_callback=$callback
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "${first_callback/${bases[2]}/${bases[1]}}")" = 400 ] ||
    fail "a callback replayed at the other replica was not refused"

# Every page, at either replica, says "In sync" within 60 s.
for n in $(seq 1 $people); do
    for i in 1 2; do
        url=${pages[$n]/$public/${bases[$i]}}
        ok=
        for _ in $(seq 1 300); do
            curl -s "$url" | grep -q 'id="status"[^>]*>In sync<' && { ok=1; break; }
            sleep 0.2
        done
        [ -n "$ok" ] || fail "person$n's page at r$i does not say In sync: $(curl -s "$url" | grep -o 'id="status"[^<]*<')"
    done
done

want=$(curl -s "${bases[1]}/feeds/pub.ics" | grep -c '^BEGIN:VEVENT')
for n in $(seq 1 $people); do
    got=$(fake_state 'len(ours(cal("Club nights")))' "account=person$n@example.org")
    [ "$got" = "$want" ] || fail "person$n's calendar holds $got of our events, not $want"
done
inserts=$(fake_requests by_kind insert)
[ "$inserts" = $((want * people)) ] || fail "$inserts inserts for $people calendars of $want events: some pushed twice"
for n in $(seq 1 $people); do
    id=${pages[$n]#*/connections/}
    id=${id%%\?*}
    in1=$(grep -c "push connection-$id: created" "$work/r1.log")
    in2=$(grep -c "push connection-$id: created" "$work/r2.log")
    [ $((in1 > 0 ? 1 : 0)) -ne $((in2 > 0 ? 1 : 0)) ] || fail "person$n's connection was pushed by r1 $in1 and r2 $in2 times"
    echo "person$n: pushed by $([ "$in1" -gt 0 ] && echo r1 || echo r2)"
done

# A change: one update per calendar, whoever pushes it.
changed_fixtures "$src" "$work/data"
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=788216780592&to=${bases[1]}/hooks/eb/$TEST_HOOK_SECRET" >/dev/null
for n in $(seq 1 $people); do
    got=0
    for _ in $(seq 1 150); do
        got=$(fake_state 'sum(1 for e in ours(cal("Club nights")) if "MOVED" in e.get("summary", ""))' "account=person$n@example.org")
        [ "$got" = 1 ] && break
        sleep 0.2
    done
    [ "$got" = 1 ] || fail "the change did not reach person$n's calendar within 30 s"
done
sleep 2
writes=$(fake_requests writes)
# Each person: the calendar made, its events inserted, then the one update.
[ "$writes" = $((people + want * people + people)) ] ||
    fail "$writes writes in all, not $((people + want * people + people)): something was written twice"
echo "after the change: $writes writes in all, one update per calendar"

# The operator's own Google target in cluster mode: `icsbridge connect` with replica r1's config stores the
# sign-in in the database (a row of icsbridge_oauth_tokens, saved by r1); a push with r2's config, whose
# storage.dir holds no token file, signs in with that row.
for i in 1 2; do
    {
        server_toml "$work/own$i" "127.0.0.1:0"
        printf '\n[cluster]\ndatabase_url_env = "TEST_DATABASE_URL"\nnode = "r%s"\nlease = "3s"\n\n' "$i"
        events_source_toml "$upstream" 'timeout = "5s"'
        echo
        organizer_feed_toml own 'push = ["mine"]'
        printf '\n[targets.mine]\ntype = "google"\nclient_id = "test-client"\nclient_secret_env = "TEST_CLIENT_SECRET"\n'
        printf 'calendar = "Mine"\napi_base = "%s"\nauth_url = "%s"\ntoken_url = "%s"\n' "$api_base" "$auth_url" "$token_url"
    } >"$work/own$i.toml"
done
connect_with "$bin" "$work/own1.toml" mine
row=$("$pg_bin/psql" "$pg_url" -Atc "SELECT saved_by, token::json->>'client_id', token::json->>'refresh_token' <> ''
                                      FROM icsbridge_oauth_tokens WHERE target = 'mine'")
[ "$row" = "r1|test-client|t" ] || fail "connect in cluster mode left the token row '$row' (want saved by r1, a refresh token)"
[ -e "$work/own2/oauth/mine.json" ] && fail "r2's storage has a token file before its push: the case tests nothing"
"$bin" push --config "$work/own2.toml" >"$work/own-push.out" 2>"$work/own-push.err" ||
    fail "a push on r2, with the sign-in in the database only, failed: $(cat "$work/own-push.err")"
got=$(fake_state 'len(ours(cal("Mine")))')
[ "$got" = "$want" ] && grep -q "^mine: created $want," "$work/own-push.out" ||
    fail "the push on r2 left $got of $want events in Mine: $(cat "$work/own-push.out")"
echo "cluster sign-in: connect on r1 stored the row, r2 pushed $got events with it (no token file)"
echo "connect_cluster_e2e: ok"
