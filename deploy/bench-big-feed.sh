#!/usr/bin/env bash
# File: bench-big-feed.sh
# Benchmark (not a test): `icsbridge export` of one very large organizer feed from the fake upstream on
# loopback (default 100,000 events in pages of 50: 2,000 pages), whole process. Prints wall time, events/s,
# peak RSS, the output size and peak RSS / output size (target <= 3). Median of BENCH_RUNS (3) runs. The
# wall time includes the fake upstream's own work (it filters the whole list for every page); icsbridge's
# CPU time is printed beside it.
#   deploy/bench-big-feed.sh [BUILD_DIR] [EVENTS] [PAGE_SIZE]     (default build, 100000, 50)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
events=${2:-100000}
page_size=${3:-50}
runs=${BENCH_RUNS:-3}
. "$src/tests/support/sh/upstream_fixtures.sh"

cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream >/dev/null

work=$(mktemp -d)
cleanup() {
    stop_fake_upstream
    rm -rf "$work"
}
trap cleanup EXIT

launch_fake_upstream "$build/icsbridge-fake-upstream" "$work" --generate-events "$events" --page-size "$page_size" ||
    { echo "the fake upstream did not start" >&2; exit 1; }
cat >"$work/big.toml" <<TOML
[sources.eb]
type = "events"
base_url = "$upstream"
token = "demo-events-token"
timeout = "60s"

[feeds.big]
source = "eb"
select = "organizer"
max_items = 1000000
TOML

results=()
for i in $(seq "$runs"); do
    /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$build/icsbridge" export --config "$work/big.toml" --feed big \
        --output "$work/big.ics" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    read -r wall rss_kb user sys <"$work/time"
    size=$(stat -c %s "$work/big.ics")
    count=$(grep -c '^BEGIN:VEVENT' "$work/big.ics")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    results+=("$wall $rss_kb $size $count $cpu")
    echo "run $i: ${wall}s wall (icsbridge CPU ${cpu}s), peak RSS ${rss_kb} kB, output $size bytes, $count events" >&2
done
printf '%s\n' "${results[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p" | {
    read -r wall rss_kb size count cpu
    awk -v w="$wall" -v r="$rss_kb" -v s="$size" -v n="$count" -v p="$page_size" -v c="$cpu" 'BEGIN {
        printf "events %d (pages of %d), wall %.2f s (icsbridge CPU %.2f s), %.0f events/s, peak RSS %.1f MB, output %.1f MB, RSS/output %.2f\n",
            n, p, w, c, n / w, r / 1024, s / 1048576, (r * 1024) / s }'
}
