#!/usr/bin/env bash
# File: bench-paging.sh
# Benchmark (not a test): one large organizer feed behind upstream latency, exported with several requests
# in flight (the source's max_concurrency). The fake upstream pages like the real events API: every page
# carries `page_count` and a `continuation` token, and `page=N` is accepted. Default: 10,000 and 100,000
# events in pages of 50 at 50 ms per answer. Prints the wall time of each (median of BENCH_RUNS=3) beside
# the round-trip bound latency x (1 + ceil((pages - 1) / in_flight)); target <= 1.2x the bound. Every
# output must equal, byte for byte, a one-at-a-time read by continuation token (the fake told to refuse
# page numbers, max_concurrency = 1), which is timed once and shown as "by token".
#   deploy/bench-paging.sh [BUILD_DIR] [EVENTS...]
#   BENCH_PAGE_SIZE (50), BENCH_LATENCY_MS (50), BENCH_IN_FLIGHT ("1 4 8"; above 20,000 events "4 8",
#   since one at a time is the reference read), BENCH_RUNS (3)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
[ $# -gt 0 ] && shift
sizes=${*:-"10000 100000"}
page_size=${BENCH_PAGE_SIZE:-50}
latency=${BENCH_LATENCY_MS:-50}
runs=${BENCH_RUNS:-3}
. "$src/tests/support/sh/upstream_fixtures.sh"

cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream >/dev/null
work=$(mktemp -d)
cleanup() {
    stop_fake_upstream
    rm -rf "$work"
}
trap cleanup EXIT

# config C: a config with max_concurrency C for the fake at $upstream.
config() {
    cat >"$work/c$1.toml" <<TOML
[sources.eb]
type = "events"
base_url = "$upstream"
token = "demo-events-token"
max_concurrency = $1
timeout = "120s"
# The default 2000 calls an hour: 100,000 events in pages of 50 are 2,000 pages, plus one.
budget = "1000000/h"

[feeds.big]
source = "eb"
select = "organizer"
keep_past = "0s"
TOML
}

# run C OUT: one export with max_concurrency C into OUT; prints its wall time in seconds.
run() {
    local start end
    start=$(date +%s.%N)
    "$build/icsbridge" export --config "$work/c$1.toml" --feed big --output "$2"
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

# page_numbers MODE: what the fake does with page=N from now on.
page_numbers() {
    curl -fsS -X POST "$upstream/__control/paging?page_numbers=$1" >/dev/null
}

bound() { awk -v l="$latency" -v p="$1" -v c="$2" 'BEGIN { n = int((p - 1 + c - 1) / c); printf "%.3f", l / 1000 * (1 + n) }'; }
ratio() { awk -v w="$1" -v b="$2" 'BEGIN { printf "%.2f", w / b }'; }

printf '%-8s %-6s %-10s %-10s %-10s %-8s %s\n' events pages "in flight" "wall (s)" "bound (s)" ratio bytes
for events in $sizes; do
    launch_fake_upstream "$build/icsbridge-fake-upstream" "$work" --generate-events "$events" \
        --page-size "$page_size" --latency-ms "$latency" --threads 4 || { echo "the fake upstream did not start" >&2; exit 1; }
    pages=$(( (events + page_size - 1) / page_size ))
    in_flight=${BENCH_IN_FLIGHT:-$([ "$events" -gt 20000 ] && echo "4 8" || echo "1 4 8")}

    # The reference: one request at a time, by token.
    config 1
    page_numbers refuse
    wall=$(run 1 "$work/token.ics")
    printf '%-8s %-6s %-10s %-10s %-10s %-8s %s\n' "$events" "$pages" "by token" "$wall" "$(bound "$pages" 1)" \
        "$(ratio "$wall" "$(bound "$pages" 1)")" "$(wc -c <"$work/token.ics")"
    page_numbers accept

    for c in $in_flight; do
        config "$c"
        times=()
        for i in $(seq "$runs"); do
            times+=("$(run "$c" "$work/c$c.ics")")
            cmp -s "$work/token.ics" "$work/c$c.ics" || { echo "$events events, in flight $c: bytes differ from the read by token" >&2; exit 1; }
        done
        wall=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
        b=$(bound "$pages" "$c")
        printf '%-8s %-6s %-10s %-10s %-10s %-8s %s\n' "$events" "$pages" "$c" "$wall" "$b" "$(ratio "$wall" "$b")" "same"
    done
    stop_fake_upstream
done
echo "(median of $runs; pages of $page_size at $latency ms; machine load: $(cut -d' ' -f1-3 /proc/loadavg))"
