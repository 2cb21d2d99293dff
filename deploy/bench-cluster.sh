#!/usr/bin/env bash
# File: bench-cluster.sh
# Benchmark (not a test) of cluster mode (issue 13), with a real PostgreSQL 15 and the fake upstream:
#  1. upstream list requests of 10 feeds over 5 refresh periods, 3 replicas ÷ 1 replica (target <= 1.1);
#  2. time from a publish to the same ETag on all replicas (target <= 1 s);
#  3. failover: SIGKILL of the lease holder until a survivor publishes its feed (target <= lease + refresh);
#  4. serving req/s of one replica with and without [cluster] (wrk -t2 -c64, BENCH_DURATION each, twice).
#   deploy/bench-cluster.sh [BUILD_DIR]      (default build; needs icsbridge and icsbridge-fake-upstream)
# BENCH_REFRESH (6, seconds), BENCH_LEASE (3, seconds), BENCH_DURATION (10s).
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
refresh=${BENCH_REFRESH:-6}
lease=${BENCH_LEASE:-3}
duration=${BENCH_DURATION:-10s}
feeds=10
periods=5
command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 1; }
[ -x "$build/icsbridge" ] && [ -x "$build/icsbridge-fake-upstream" ] ||
    { echo "build icsbridge and icsbridge-fake-upstream in $build first" >&2; exit 1; }
. "$src/tests/support/sh/cluster_fixtures.sh"
cluster_init bench-cluster

start_postgres
cp -r "$src/tests/fixtures/upstream" "$work/data"
changed_fixtures "$src" "$work/changed"
start_fake_upstream "$build/icsbridge-fake-upstream" "$work" "$work/data"
export BENCH_DATABASE_URL="$pg_url"

# config NAME CLUSTER(0|1): ten feeds, each its own upstream question (a parameter tells them apart).
config() {
    server_toml "$work/state-$1" "127.0.0.1:0"
    [ "$2" = 1 ] && printf '\n[cluster]\ndatabase_url_env = "BENCH_DATABASE_URL"\nnode = "%s"\nlease = "%ss"\n' "$1" "$lease"
    echo
    events_source_toml "$upstream" 'timeout = "5s"' 'budget = "100000/h"'
    for i in $(seq 0 $((feeds - 1))); do
        printf '\n[feeds.f%s]\nsource = "eb"\nselect = "organizer"\nrefresh = "%ss"\nkeep_past = "3650d"\nparams = { bench = "f%s" }\n' \
            "$i" "$refresh" "$i"
    done
}
# start NAME CLUSTER: sets serve_pid and base.
start() {
    config "$1" "$2" >"$work/$1.toml"
    start_icsbridge "$build/icsbridge" "$work/$1.toml" "$work/$1.log"
    replicas="$replicas $serve_pid"
}
stop() { kill -TERM "$1"; wait "$1" 2>/dev/null; replicas=${replicas/ $1/}; }
clear_requests() { curl -s -X POST "$upstream/__control/clear_requests" >/dev/null; }
all_feeds() { local i; for i in $(seq 0 $((feeds - 1))); do echo "f$i.ics"; done; }
now() { date +%s.%N; }

# 1. One replica, then three: list requests over the same periods after every feed is served.
start one 0
one_pid=$serve_pid
wait_for_feeds $(all_feeds)
clear_requests
sleep $((refresh * periods))
single=$(list_requests)
stop "$one_pid"
bases=()
pids=()
for i in 1 2 3; do
    start "r$i" 1
    bases+=("$base")
    pids+=("$serve_pid")
done
for base in "${bases[@]}"; do wait_for_feeds $(all_feeds); done
clear_requests
sleep $((refresh * periods))
triple=$(list_requests)
ratio=$(echo "scale=2; $triple / $single" | bc)

# 2. Publish to the same ETag everywhere, three times (the upstream changes back and forth): poll the three
#    without pause; the lease holder serves its publish first, the others once they heard the NOTIFY.
spreads=
dirs=("$work/changed" "$work/data" "$work/changed")
for round in 0 1 2; do
    old=$(etag_of "${bases[0]}" f0)
    curl -s -X POST "$upstream/__control/reload?dir=${dirs[$round]}" >/dev/null
    first_at= all_at=
    deadline=$(($(date +%s) + 3 * refresh))
    while [ "$(date +%s)" -le "$deadline" ]; do
        e1=$(etag_of "${bases[0]}" f0) e2=$(etag_of "${bases[1]}" f0) e3=$(etag_of "${bases[2]}" f0)
        t=$(now)
        if [ -z "$first_at" ] && { [ "$e1" != "$old" ] || [ "$e2" != "$old" ] || [ "$e3" != "$old" ]; }; then first_at=$t; fi
        if [ "$e1" != "$old" ] && [ "$e1" = "$e2" ] && [ "$e2" = "$e3" ]; then all_at=$t; break; fi
    done
    spreads="$spreads $( [ -n "$all_at" ] && echo "scale=3; $all_at - $first_at" | bc || echo none)"
done

# 3. Failover: kill the holder of f0's lease; time until a survivor publishes f0 (its log says so).
holder=
for i in 1 2 3; do
    curl -s "${bases[$((i - 1))]}/metrics" | grep -q '^icsbridge_cluster_lease_held{feed="f0"} 1' && holder=$i
done
[ -n "$holder" ] || fail "no replica holds f0's lease"
f0_refreshes() { cat "$work"/r[123].log | grep -c 'feed f0: [0-9]* items'; }
killed=${pids[$((holder - 1))]}
before=$(f0_refreshes)
kill -KILL "$killed"
t_kill=$(now)
{ wait "$killed"; } 2>/dev/null
replicas=${replicas/ $killed/}
failover=none
deadline=$(($(date +%s) + 3 * (lease + refresh)))
while [ "$(date +%s)" -le "$deadline" ]; do
    [ "$(f0_refreshes)" -gt "$before" ] && { failover=$(echo "scale=2; $(now) - $t_kill" | bc); break; }
    sleep 0.05
done
for p in "${pids[@]}"; do [ "$p" = "$killed" ] || stop "$p"; done

# 4. Serving: one replica with and without [cluster], the same feed, wrk twice each (alternating).
rps() {
    wrk -t2 -c64 -d"$duration" "$1" 2>/dev/null | awk '/^Requests\/sec:/ {printf "%d", $2}'
}
declare -A serve_rps
for run in 1 2; do
    for mode in 0 1; do
        start "serve$mode" "$mode"
        wait_for_feeds f0.ics
        serve_rps[$mode]="${serve_rps[$mode]:-} $(rps "$base/feeds/f0.ics")"
        stop "$serve_pid"
    done
done

echo
echo "cluster benchmark: $feeds feeds, refresh ${refresh}s, lease ${lease}s, $periods periods"
printf '%-58s %s\n' "upstream list requests, 1 replica / 3 replicas:" "$single / $triple"
printf '%-58s %s (target <= 1.1)\n' "ratio 3 replicas / 1 replica:" "$ratio"
printf '%-58s %s s (target <= 1)\n' "publish -> same ETag on all 3 replicas (3 rounds):" "$spreads"
printf '%-58s %s s (target <= %s)\n' "failover after SIGKILL of the holder (r$holder):" "$failover" "$((lease + refresh))"
printf '%-58s %s\n' "serving req/s, one replica without [cluster] (2 runs):" "${serve_rps[0]}"
printf '%-58s %s\n' "serving req/s, one replica with [cluster] (2 runs):" "${serve_rps[1]}"
