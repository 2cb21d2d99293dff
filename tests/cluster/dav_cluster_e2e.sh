#!/usr/bin/env bash
# File: dav_cluster_e2e.sh
# CalDAV sync tokens in cluster mode (issue 36): three `icsbridge serve` replicas of one feed on a real
# PostgreSQL 15. The change history goes into the snapshot's row in the same statement, so every replica
# gives the same token for the same calendar, and a token from one replica, after an upstream change,
# syncs exactly the changed event on the others (python3-caldav); a replica restarted meanwhile answers it
# too. Removed from the config by a reload, the feed's history leaves its row; added back, its old token is
# 403 valid-sync-token on every replica; so it is when the feed was removed while every replica was stopped.
#   dav_cluster_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/cluster_fixtures.sh"
. "$src/tests/support/sh/dav_fixtures.sh"
cluster_init dav_cluster_e2e

refresh=3
start_pub_cluster "$bin" "$fake" "$src" $refresh
changed_fixtures "$src" "$work/changed"

# same_etag OLD SECONDS: the ETag all three replicas serve, other than OLD, within SECONDS; empty if none.
same_etag() {
    local e1 e2 e3
    for _ in $(seq 1 $(($2 * 5))); do
        e1=$(etag_of "${bases[0]}") e2=$(etag_of "${bases[1]}") e3=$(etag_of "${bases[2]}")
        if [ -n "$e1" ] && [ "$e1" != "$1" ] && [ "$e1" = "$e2" ] && [ "$e2" = "$e3" ]; then
            echo "$e1"
            return
        fi
        sleep 0.2
    done
}

# sync BASE TOKEN: caldav_sync on BASE's collection of pub.
sync() { caldav_sync "$1/dav/feeds/pub/" "$2"; }

etag=$(same_etag none 15)
[ -n "$etag" ] || fail "the replicas do not serve one calendar"
# The row's history reaches every replica with the row: one token for one calendar, everywhere.
for _ in $(seq 1 25); do
    for i in 1 2 3; do sync "${bases[$((i - 1))]}" "" >"$work/first$i.out" || fail "python3-caldav on r$i: $(tail -3 "$work/caldav.log")"; done
    t1=$(sed -n 1p "$work/first1.out") t2=$(sed -n 1p "$work/first2.out") t3=$(sed -n 1p "$work/first3.out")
    [ "$t1" = "$t2" ] && [ "$t2" = "$t3" ] && break
    sleep 0.2
done
[ "$t1" = "$t2" ] && [ "$t2" = "$t3" ] || fail "the replicas give different tokens for one calendar: $t1 / $t2 / $t3"
echo "one token on every replica: $t1 ($(sed -n 2p "$work/first1.out") items)"
token=$t1

# r3 restarts: its history comes back from its copy of the row (and the row), the same token still valid.
kill -TERM "${replica_pids[2]}"
wait "${replica_pids[2]}" 2>/dev/null
start_icsbridge "$bin" "$work/r3.toml" "$work/r3.log"
replicas="$replicas $serve_pid"
replica_pids[2]=$serve_pid
bases[2]=$base
serve_pid=
wait_for_url "${bases[2]}/feeds/pub.ics" || fail "r3 does not serve pub after its restart"
sync "${bases[2]}" "$token" >"$work/restarted.out" || fail "the token was refused by r3 after its restart: $(tail -3 "$work/caldav.log")"
[ "$(sed -n 2p "$work/restarted.out")" = 0 ] || fail "r3 after its restart lists $(sed -n 2p "$work/restarted.out") changes for an unchanged calendar"

# A change upstream: whoever holds the lease publishes it; r1's token lists exactly it on r2 and r3.
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
new=$(same_etag "$etag" $((refresh * 4 + 5)))
[ -n "$new" ] || fail "the replicas did not all serve the upstream's change"
for i in 2 3 1; do
    sync "${bases[$((i - 1))]}" "$token" >"$work/change$i.out" || fail "r1's token on r$i: $(tail -3 "$work/caldav.log")"
    n=$(sed -n 2p "$work/change$i.out")
    [ "$n" = 1 ] || fail "r1's token lists $n items on r$i, not the one change"
    grep -q MOVED "$work/change$i.out" || fail "the item r$i lists is not the changed event"
done
echo "r1's token syncs exactly the change on r2, r3 (restarted) and r1"

# The feed removed from every replica's config by a reload: its history leaves the row (and each replica's
# copy); added back by the next reload, the feed starts a new epoch, and the old token is 403 everywhere.
reload_all() { # reload_all N: SIGHUP to r1..r3 with rN.toml as it is now; waits for each one's N-th "reloaded"
    local i
    for i in 1 2 3; do kill -HUP "${replica_pids[$((i - 1))]}"; done
    for i in 1 2 3; do
        for _ in $(seq 1 100); do
            [ "$(grep -c 'reloaded:' "$work/r$i.log")" -ge "$1" ] && continue 2
            sleep 0.1
        done
        fail "r$i logged no reload after SIGHUP"
    done
}
row_history() { "$pg_bin/psql" "$pg_url" -Atc "SELECT length(dav_history) FROM icsbridge_snapshots WHERE feed = 'pub'"; }
[ "$(row_history)" -gt 0 ] || fail "the row carries no history before the feed is removed"
for i in 1 2 3; do
    cp "$work/r$i.toml" "$work/r$i.with_pub"
    sed 's/^\[feeds\.pub\]/[feeds.other]/' "$work/r$i.with_pub" >"$work/r$i.toml"
done
reload_all 1
for _ in $(seq 1 50); do [ "$(row_history)" = 0 ] && break; sleep 0.1; done
[ "$(row_history)" = 0 ] || fail "the removed feed's history is still in its row"
for i in 1 2 3; do
    [ -e "$work/state$i/pub.davhistory" ] && fail "r$i keeps the removed feed's history"
    cp "$work/r$i.with_pub" "$work/r$i.toml"
done
# old_token_refused WHEN: every replica serves pub again and answers $token with 403 valid-sync-token.
old_token_refused() {
    local i code body
    for i in 1 2 3; do
        wait_for_url "${bases[$((i - 1))]}/feeds/pub.ics" || fail "r$i does not serve pub $1"
        body="<sync-collection xmlns=\"DAV:\"><sync-token>$token</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>"
        code=$(curl -s -o "$work/answer" -w '%{http_code}' -X REPORT -H 'Depth: 1' --data-binary "$body" "${bases[$((i - 1))]}/dav/feeds/pub/")
        [ "$code" = 403 ] && grep -q valid-sync-token "$work/answer" || fail "r$i answers the old token with $code $1"
    done
}
reload_all 2
old_token_refused "once added back by a reload"
echo "removed and added back: the old token is 403 valid-sync-token on every replica"
grep -q "pw-do-not-print" "$work"/r*.log && fail "the database password is in a log"

# The feed removed while every replica is stopped: the first to start without it takes its history out of
# the row; added back, every replica starts a new epoch (their own copies of the history go with the row's).
sync "${bases[0]}" "" >"$work/second.out" || fail "python3-caldav on r1: $(tail -3 "$work/caldav.log")"
token=$(sed -n 1p "$work/second.out")
[ "$(row_history)" -gt 0 ] || fail "the row carries no history before every replica stops"
for i in 1 2 3; do
    kill -TERM "${replica_pids[$((i - 1))]}"
    wait "${replica_pids[$((i - 1))]}" 2>/dev/null
done
replicas=
sed 's/^\[feeds\.pub\]/[feeds.other]/' "$work/r1.with_pub" >"$work/r1.toml"
start_icsbridge "$bin" "$work/r1.toml" "$work/r1.log"
replicas=$serve_pid
for _ in $(seq 1 50); do [ "$(row_history)" = 0 ] && break; sleep 0.1; done
[ "$(row_history)" = 0 ] || fail "a start without the feed left its history in the row"
stop_icsbridge
replicas=
for i in 1 2 3; do
    cp "$work/r$i.with_pub" "$work/r$i.toml"
    start_icsbridge "$bin" "$work/r$i.toml" "$work/r$i.log"
    replicas="$replicas $serve_pid"
    replica_pids[$((i - 1))]=$serve_pid
    bases[$((i - 1))]=$base
    serve_pid=
done
old_token_refused "once added back while every replica was stopped"
echo "removed while every replica was stopped, added back: the old token is 403 valid-sync-token everywhere"
grep -q "pw-do-not-print" "$work"/r*.log && fail "the database password is in a log"
echo ok
