#!/usr/bin/env bash
# File: bench-paging.sh
# Benchmark (not a test): one large organizer feed behind upstream latency, exported with 1, 4 and 8
# requests in flight (the source's max_concurrency). Default: 10,000 events in 200 pages of 50 at 50 ms per
# request. Prints the wall time of each (median of BENCH_RUNS=3) beside the bound
# latency x (1 + ceil((pages - 1) / in_flight)); target <= 1.2x the bound. Also checks that every run
# wrote the same bytes.
#   deploy/bench-paging.sh [BUILD_DIR] [EVENTS] [PAGE_SIZE] [LATENCY_MS]
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
events=${2:-10000}
page_size=${3:-50}
latency=${4:-50}
runs=${BENCH_RUNS:-3}
. "$src/tests/support/sh/upstream_fixtures.sh"

cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream >/dev/null
work=$(mktemp -d)
cleanup() {
    stop_fake_upstream
    rm -rf "$work"
}
trap cleanup EXIT

launch_fake_upstream "$build/icsbridge-fake-upstream" "$work" --generate-events "$events" --page-size "$page_size" \
    --latency-ms "$latency" --threads 4 || { echo "the fake upstream did not start" >&2; exit 1; }
pages=$(( (events + page_size - 1) / page_size ))

printf '%-10s %-10s %-10s %-8s\n' "in flight" "wall (s)" "bound (s)" "ratio"
for c in 1 4 8; do
    cat >"$work/c$c.toml" <<TOML
[sources.eb]
type = "events"
base_url = "$upstream"
token = "demo-events-token"
max_concurrency = $c

[feeds.big]
source = "eb"
select = "organizer"
keep_past = "0s"
TOML
    times=()
    for i in $(seq "$runs"); do
        start=$(date +%s.%N)
        "$build/icsbridge" export --config "$work/c$c.toml" --feed big --output "$work/c$c.ics"
        end=$(date +%s.%N)
        times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
    done
    wall=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
    bound=$(awk -v l="$latency" -v p="$pages" -v c="$c" 'BEGIN { n = int((p - 1 + c - 1) / c); printf "%.3f", l / 1000 * (1 + n) }')
    printf '%-10s %-10s %-10s %-8s\n' "$c" "$wall" "$bound" "$(awk -v w="$wall" -v b="$bound" 'BEGIN { printf "%.2f", w / b }')"
    [ "$c" = 1 ] || cmp -s "$work/c1.ics" "$work/c$c.ics" || { echo "in flight $c: bytes differ from one at a time" >&2; exit 1; }
done
