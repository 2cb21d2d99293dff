#!/usr/bin/env bash
# File: bench-export.sh
# Benchmark (not a test): the whole-process cost of a one-shot `icsbridge export` — start-up, fetch over
# loopback, render, write — next to build/icsbridge-bench-convert (bench/convert.cpp), a bare libical
# converter reading the same pages of the same fake upstream. 1,000 and 10,000 events (BENCH_SIZES), the
# median of BENCH_RUNS=5 runs each, wall time and CPU time (user+sys) of each process. Target: export's
# wall time <= 1.5x the converter's at 1,000 events.
#   deploy/bench-export.sh [BUILD_DIR]           (default build/, configured RelWithDebInfo if it is not yet)
# BENCH_PAGE_SIZE (100) events per upstream page; BENCH_BIN=PATH times another icsbridge binary (A/B against
# an older build); BENCH_PERF=FILE also records one 1,000-event export with `perf record -g` into FILE.
# The fake upstream runs on its own; it is warmed up (one untimed run of each program) before timing.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
runs=${BENCH_RUNS:-5}
sizes=${BENCH_SIZES:-"1000 10000"}
page_size=${BENCH_PAGE_SIZE:-100}

[ -f "$build/CMakeCache.txt" ] || cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream icsbridge-bench-convert >/dev/null
bin=${BENCH_BIN:-$build/icsbridge}

work=$(mktemp -d)
upstream_pid=""
cleanup() {
    if [ -n "$upstream_pid" ]; then kill -TERM "$upstream_pid" 2>/dev/null || true; wait "$upstream_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# start_upstream N: the fake upstream serving N generated events; sets $base_url and $upstream_pid.
start_upstream() {
    rm -f "$work/ready"
    mkfifo "$work/ready"
    "$build/icsbridge-fake-upstream" --port 0 --generate-events "$1" --page-size "$page_size" >"$work/ready" 2>/dev/null &
    upstream_pid=$!
    local line
    read -r line <"$work/ready"
    base_url=${line#listening on }
}

stop_upstream() {
    kill -TERM "$upstream_pid"
    wait "$upstream_pid" 2>/dev/null || true
    upstream_pid=""
}

# timed OUT_VAR CMD...: runs CMD once; OUT_VAR gets "wall cpu" in seconds (bash's own clock, ms resolution).
timed() {
    local var=$1 t
    shift
    t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1 )
    read -r wall user sys <<<"$t"
    printf -v "$var" '%s %s' "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

count_events() { grep -c '^BEGIN:VEVENT' "$1"; }

printf '%-7s %-22s %-22s %-8s %-8s\n' events "export wall/cpu (s)" "convert wall/cpu (s)" "wall x" "cpu x"
for n in $sizes; do
    start_upstream "$n"
    cat >"$work/bench.toml" <<TOML
[sources.eb]
type = "events"
base_url = "$base_url"
token = "demo-events-token"
timeout = "120s"

[feeds.bench]
source = "eb"
select = "organizer"
TOML
    export_cmd=("$bin" export --config "$work/bench.toml" --feed bench --output "$work/export.ics")
    convert_cmd=("$build/icsbridge-bench-convert" "$base_url" demo-events-token "$work/convert.ics")
    # Warm-up, and proof that both wrote every event (a fast failure is not a result).
    "${export_cmd[@]}"
    "${convert_cmd[@]}"
    for f in export convert; do
        got=$(count_events "$work/$f.ics")
        [ "$got" -eq "$n" ] || { echo "bench-export: $f wrote $got events, not $n" >&2; exit 1; }
    done
    : >"$work/export.times"
    : >"$work/convert.times"
    # Interleaved, so a burst of load from elsewhere hits both programs alike.
    for _ in $(seq "$runs"); do
        timed r "${export_cmd[@]}"; echo "$r" >>"$work/export.times"
        timed r "${convert_cmd[@]}"; echo "$r" >>"$work/convert.times"
    done
    ew=$(cut -d' ' -f1 "$work/export.times" | median); ec=$(cut -d' ' -f2 "$work/export.times" | median)
    cw=$(cut -d' ' -f1 "$work/convert.times" | median); cc=$(cut -d' ' -f2 "$work/convert.times" | median)
    printf '%-7s %-22s %-22s %-8s %-8s\n' "$n" "$ew / $ec" "$cw / $cc" \
        "$(awk -v a="$ew" -v b="$cw" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$ec" -v b="$cc" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
    if [ -n "${BENCH_PERF:-}" ] && [ "$n" = 1000 ]; then
        perf record -q -g -o "$BENCH_PERF" "${export_cmd[@]}" >/dev/null 2>&1
    fi
    stop_upstream
done
echo "(median of $runs; page size $page_size; wall x = export / convert; machine load: $(cut -d' ' -f1-3 /proc/loadavg))"
