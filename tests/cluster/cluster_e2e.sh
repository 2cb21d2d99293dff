#!/usr/bin/env bash
# File: cluster_e2e.sh
# Cluster mode end to end (issue 13): three `icsbridge serve` replicas on one real PostgreSQL 15 and the
# fake upstream. Over several refresh periods the upstream sees one refresh per period (not three); every
# replica serves the same ETag, and a change published by one is served by all within a second; a holder
# paused past its lease (SIGSTOP) is replaced and, resumed, serves the newer calendar; the lease holder
# killed with SIGKILL is replaced within the lease plus one refresh; with the database gone the
# others keep serving and /healthz says "degraded", refresh on their own, then say "ok" once it is back and
# converge on the newest snapshot (theirs, written into the database), also when one restarts after the
# outage with only its disk copy newer than the database's row; a replica started with the database away
# serves its disk copy and joins when it comes; the database password shows in no log.
#   cluster_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/cluster_fixtures.sh"
cluster_init cluster_e2e

refresh=3
start_pub_cluster "$bin" "$fake" "$src" $refresh

# current_holder: the replica that refreshed last (the latest "feed pub: N items" line of the three logs).
current_holder() {
    local i at best= last=
    for i in 1 2 3; do
        at=$(grep 'feed pub: .* items' "$work/r$i.log" | tail -1 | cut -d' ' -f1)
        [[ -n "$at" && "$at" > "$last" ]] && { last=$at; best=$i; }
    done
    echo "$best"
}

# One list request per refresh period across the three replicas (a first refresh at start aside).
curl -s -X POST "$upstream/__control/clear_requests" >/dev/null
periods=4 # replicas refreshing on their own would make 12 or more
sleep $((refresh * periods))
n=$(list_requests)
echo "refreshes upstream in $periods periods of ${refresh}s with 3 replicas: $n"
[ "$n" -ge 2 ] || fail "only $n list requests in $periods refresh periods: is anyone refreshing?"
[ "$n" -le $((periods + 1)) ] || fail "$n list requests in $periods refresh periods: replicas refresh on their own"

# The same bytes everywhere: the same ETag on every replica.
e1=$(etag_of "${bases[0]}") e2=$(etag_of "${bases[1]}") e3=$(etag_of "${bases[2]}")
[ -n "$e1" ] && [ "$e1" = "$e2" ] && [ "$e2" = "$e3" ] || fail "ETags differ: $e1 / $e2 / $e3"

# A change upstream: the holder publishes it, every replica serves the new ETag within a second of it.
changed_fixtures "$src" "$work/changed"
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
# new_etag OLD SECONDS [SKIP]: the first ETag other than OLD that a replica (but replica SKIP) serves
# within SECONDS; empty if none.
new_etag() {
    local i e
    for _ in $(seq 1 $(($2 * 10))); do
        for i in 1 2 3; do
            [ "$i" = "${3:-}" ] && continue
            e=$(etag_of "${bases[$((i - 1))]}")
            [ -n "$e" ] && [ "$e" != "$1" ] && { echo "$e"; return; }
        done
        sleep 0.1
    done
}
first=$(new_etag "$e1" $((2 * refresh)))
[ -n "$first" ] || fail "no replica published the upstream change within two refresh periods"
converged=
for _ in $(seq 1 10); do
    e1=$(etag_of "${bases[0]}") e2=$(etag_of "${bases[1]}") e3=$(etag_of "${bases[2]}")
    [ "$e1" = "$first" ] && [ "$e2" = "$first" ] && [ "$e3" = "$first" ] && { converged=1; break; }
    sleep 0.1
done
[ -n "$converged" ] || fail "1 s after a publish the replicas serve $e1 / $e2 / $e3, not $first"
for b in "${bases[@]}"; do
    curl -s "$b/healthz" | grep -q '"cluster":"ok"' || fail "$b/healthz does not say cluster ok"
done

# The holder paused past its lease (SIGSTOP): another replica takes over and publishes the next change;
# resumed, the paused one serves that newer calendar and never puts its older one back.
paused=$(current_holder)
[ -n "$paused" ] || fail "no replica refreshed"
kill -STOP "${replica_pids[$((paused - 1))]}"
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
newer=$(new_etag "$first" $((3 + 2 * refresh)) "$paused")
[ -n "$newer" ] || fail "no replica took over from r$paused, paused past its lease"
kill -CONT "${replica_pids[$((paused - 1))]}"
sleep 2
for b in "${bases[@]}"; do
    e=$(etag_of "$b")
    [ "$e" = "$newer" ] || fail "after r$paused resumed, $b serves $e, not the newer $newer"
done

# Failover: kill the replica that refreshes; another takes over within the lease plus one refresh.
holder=$(current_holder)
[ -n "$holder" ] || fail "no replica refreshed"
killed=${replica_pids[$((holder - 1))]}
kill -KILL "$killed"
{ wait "$killed"; } 2>/dev/null # bash reports the SIGKILL on its own stderr otherwise
replicas=${replicas/ $killed/}
curl -s -X POST "$upstream/__control/clear_requests" >/dev/null
# Polled: the check ends as soon as a survivor refreshed, not after the longest it may take.
t0=$SECONDS
for _ in $(seq 1 $(((3 + refresh + 2) * 5))); do
    n=$(list_requests)
    [ "$n" -ge 1 ] && break
    sleep 0.2
done
[ "$n" -ge 1 ] || fail "no replica took over within the lease plus one refresh after the holder was killed"
echo "after SIGKILL of r$holder: $n list request(s) after $((SECONDS - t0))s (at most $((3 + refresh + 2))s)"

# survivors_say STATE SECONDS: every replica still running says "cluster": STATE in /healthz within SECONDS.
survivors_say() {
    local b
    for b in "${bases[@]}"; do
        [ "$b" = "${bases[$((holder - 1))]}" ] && continue
        for _ in $(seq 1 $(($2 * 10))); do
            curl -s "$b/healthz" | grep -q "\"cluster\":\"$1\"" && continue 2
            sleep 0.1
        done
        fail "$b/healthz does not say cluster $1 within $2 s"
    done
}

# The database goes away: the survivors say they are on their own, and keep serving the feed.
pause_postgres
survivors_say degraded 5
for b in "${bases[@]}"; do
    [ "$b" = "${bases[$((holder - 1))]}" ] && continue
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$b/feeds/pub.ics")" = 200 ] ||
        fail "$b stopped serving the feed without its database"
done

# Meanwhile the upstream changes: each survivor refreshes on its own and serves the change. Fetch times are
# whole seconds and a tie goes to the row: the change waits for the second after the holder's last write,
# or a survivor refreshing at once on going degraded could fetch it within that second, and lose to the row.
sleep 1.1
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
for b in "${bases[@]}"; do
    [ "$b" = "${bases[$((holder - 1))]}" ] && continue
    for _ in $(seq 1 $(((2 * refresh + 3) * 10))); do [ "$(etag_of "$b")" = "$first" ] && continue 2; sleep 0.1; done
    fail "$b, on its own without the database, did not refresh to the upstream's change"
done

# The database comes back: the survivors reconnect within seconds, and converge on the newest snapshot,
# the one they fetched alone, not the older row: it goes into the database, and no one serves the row.
run_postgres
survivors_say ok 15
row_etag() { "$pg_bin/psql" "$pg_url" -Atc "SELECT etag FROM icsbridge_snapshots WHERE feed = 'pub'"; }
for _ in $(seq 1 50); do [ "$(row_etag)" = "$first" ] && break; sleep 0.1; done
[ "$(row_etag)" = "$first" ] || fail "after the outage the database holds $(row_etag), not the newer $first"
for _ in $(seq 1 15); do
    for b in "${bases[@]}"; do
        [ "$b" = "${bases[$((holder - 1))]}" ] && continue
        e=$(etag_of "$b")
        [ "$e" = "$first" ] || fail "after the outage $b went back to $e, not the newest $first"
    done
    sleep 0.2
done

# A restart after an outage: with the database away again and the upstream back at the older calendar,
# the survivors refresh to it and are stopped; the database still holds the newer-looking row of before.
# One comes back with the database and a failing upstream: it serves its own newer disk copy, and writes it
# into the database, instead of the older row.
pause_postgres
sleep 1.1 # past the second of the holder's last write, as above
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
survivor=
for i in 1 2 3; do
    [ "$i" = "$holder" ] && continue
    for _ in $(seq 1 $(((2 * refresh + 3) * 10))); do [ "$(etag_of "${bases[$((i - 1))]}")" = "$newer" ] && break; sleep 0.1; done
    [ "$(etag_of "${bases[$((i - 1))]}")" = "$newer" ] || fail "r$i did not refresh on its own during the second outage"
    kill -TERM "${replica_pids[$((i - 1))]}"
    wait "${replica_pids[$((i - 1))]}" 2>/dev/null
    replicas=${replicas/ ${replica_pids[$((i - 1))]}/}
    survivor=$i
done
run_postgres
curl -s -X POST "$upstream/__control/fault?kind=status500" >/dev/null || fail "cannot set the fault"
mv "$work/r$survivor.log" "$work/r$survivor.first.log"
start_icsbridge "$bin" "$work/r$survivor.toml" "$work/r$survivor.log"
replicas="$replicas $serve_pid"
for _ in $(seq 1 50); do [ "$(row_etag)" = "$newer" ] && break; sleep 0.1; done
[ "$(row_etag)" = "$newer" ] || fail "restarted, r$survivor left the database at $(row_etag), not its newer $newer"
[ "$(etag_of "$base")" = "$newer" ] || fail "restarted, r$survivor serves $(etag_of "$base"), not its newer $newer"
curl -s -X POST "$upstream/__control/fault?kind=none" >/dev/null

# A replica started while the database is unreachable: it serves its disk copy at once, says "degraded",
# and joins the cluster ("ok") once the database is there.
pause_postgres
kill -TERM "$serve_pid"
wait "$serve_pid" 2>/dev/null
replicas=${replicas/ $serve_pid/}
mv "$work/r$survivor.log" "$work/r$survivor.second.log"
start_icsbridge "$bin" "$work/r$survivor.toml" "$work/r$survivor.log"
replicas="$replicas $serve_pid"
[ "$(etag_of "$base")" = "$newer" ] || fail "started without its database, r$survivor serves $(etag_of "$base"), not its disk copy $newer"
for _ in $(seq 1 50); do curl -s "$base/healthz" | grep -q '"cluster":"degraded"' && break; sleep 0.1; done
curl -s "$base/healthz" | grep -q '"cluster":"degraded"' || fail "started without its database, r$survivor does not say degraded"
run_postgres
for _ in $(seq 1 150); do curl -s "$base/healthz" | grep -q '"cluster":"ok"' && break; sleep 0.1; done
curl -s "$base/healthz" | grep -q '"cluster":"ok"' || fail "r$survivor, started without its database, did not join once it came"
[ "$(etag_of "$base")" = "$newer" ] || fail "joining, r$survivor went from $newer to $(etag_of "$base")"

# Nothing printed the database password.
if grep -l 'pw-do-not-print' "$work"/r*.log; then fail "the database password is in a log"; fi
# Every line a log line: no libpq notice on stderr, no message broken over lines.
stray=$(grep -hvE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z (debug|info|warn|error) ' "$work"/r*.log | head -3)
[ -z "$stray" ] || fail "lines in the logs that are not log lines: $stray"
echo "cluster e2e OK"
