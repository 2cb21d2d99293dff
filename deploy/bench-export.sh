#!/usr/bin/env bash
# File: bench-export.sh
# Benchmark (not a test): the whole-process cost of a one-shot `icsbridge export` — start-up, fetch over
# loopback from the fake upstream, parse, render, write — next to build/icsbridge-bench-convert
# (bench/convert.cpp), a bare libical converter reading the same JSON pages FROM FILES (saved beforehand
# with curl) and printing the calendar. 1,000 and 10,000 events (BENCH_SIZES) with ~1 KB HTML descriptions
# (BENCH_DESCRIPTION_BYTES), 1,000 events a page (BENCH_PAGE_SIZE): one 5 MB page, or ten. The median of
# BENCH_RUNS=7 runs each, the programs run in alternation; wall time and CPU time (user+sys).
# export runs two ways: writing to stdout like the converter (both redirected to a file: the same work
# after the calendar is made), and with --output, which also replaces the file durably (temp file, fsync,
# rename, fsync of the directory: ~10 ms for 10 MB here). Target: export's wall time <= 1.5x the converter's.
#   deploy/bench-export.sh [BUILD_DIR]           (default build/, configured RelWithDebInfo if it is not yet)
# BENCH_BIN=PATH times another icsbridge binary (A/B against an older build); BENCH_PERF=FILE also records
# one export of the first size with `perf record -g` into FILE.
# The fake upstream runs on its own and keeps the gzip of each large page (it compresses once, as a CDN
# would cache it); it is warmed up (one untimed run of each program) before timing.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
runs=${BENCH_RUNS:-7}
sizes=${BENCH_SIZES:-"1000 10000"}
page_size=${BENCH_PAGE_SIZE:-1000}
description=${BENCH_DESCRIPTION_BYTES:-1000}
. "$src/tests/support/sh/upstream_fixtures.sh"

[ -f "$build/CMakeCache.txt" ] || cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream icsbridge-bench-convert >/dev/null
bin=${BENCH_BIN:-$build/icsbridge}

work=$(mktemp -d)
cleanup() {
    stop_fake_upstream
    rm -rf "$work"
}
trap cleanup EXIT

# timed OUT_VAR CMD...: runs CMD once (stdout to $work/out); OUT_VAR gets "wall cpu" in seconds.
timed() {
    local var=$1 t
    shift
    t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >"$work/out" 2>/dev/null; } 2>&1 )
    read -r wall user sys <<<"$t"
    printf -v "$var" '%s %s' "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

count_events() { grep -c '^BEGIN:VEVENT' "$1"; }

# save_pages N: the pages icsbridge reads, as the converter's input files $work/page-K.json.
save_pages() {
    local pages=$(( ($1 + page_size - 1) / page_size )) k
    local query="status=live,started,ended,completed,canceled&time_filter=current_future&order_by=start_asc&expand=venue,ticket_availability,organizer"
    pages_files=()
    for k in $(seq "$pages"); do
        curl -fsS -H "Authorization: Bearer demo-events-token" -o "$work/page-$k.json" \
            "$upstream/v3/users/me/events/?$query&page=$k"
        pages_files+=("$work/page-$k.json")
    done
}

printf '%-7s %-8s %-18s %-18s %-18s %-8s %-8s %-10s\n' events "MB JSON" "export stdout (s)" "export --output" \
    "convert (s)" "wall x" "cpu x" "--output x"
for n in $sizes; do
    launch_fake_upstream "$build/icsbridge-fake-upstream" "$work" --generate-events "$n" --page-size "$page_size" \
        --description-bytes "$description" --threads 2 || { echo "the fake upstream did not start" >&2; exit 1; }
    cat >"$work/bench.toml" <<TOML
[sources.eb]
type = "events"
base_url = "$upstream"
token = "demo-events-token"
timeout = "120s"
max_response_mb = 64

[feeds.bench]
source = "eb"
select = "organizer"
keep_past = "0s"
TOML
    save_pages "$n"
    mb=$(cat "${pages_files[@]}" | wc -c | awk '{ printf "%.1f", $1 / 1e6 }')
    export_cmd=("$bin" export --config "$work/bench.toml" --feed bench)
    output_cmd=("${export_cmd[@]}" --output "$work/export.ics")
    convert_cmd=("$build/icsbridge-bench-convert" "${pages_files[@]}")
    # Warm-up, and proof that both wrote every event (a fast failure is not a result).
    "${output_cmd[@]}"
    "${convert_cmd[@]}" >"$work/convert.ics"
    "${export_cmd[@]}" >"$work/stdout.ics"
    for f in export stdout convert; do
        got=$(count_events "$work/$f.ics")
        [ "$got" -eq "$n" ] || { echo "bench-export: $f wrote $got events, not $n" >&2; exit 1; }
    done
    : >"$work/export.times"
    : >"$work/output.times"
    : >"$work/convert.times"
    # In alternation, so a burst of load from elsewhere hits both programs alike.
    for _ in $(seq "$runs"); do
        timed r "${export_cmd[@]}"; echo "$r" >>"$work/export.times"
        timed r "${convert_cmd[@]}"; echo "$r" >>"$work/convert.times"
        timed r "${output_cmd[@]}"; echo "$r" >>"$work/output.times"
    done
    ew=$(cut -d' ' -f1 "$work/export.times" | median); ec=$(cut -d' ' -f2 "$work/export.times" | median)
    ow=$(cut -d' ' -f1 "$work/output.times" | median); oc=$(cut -d' ' -f2 "$work/output.times" | median)
    cw=$(cut -d' ' -f1 "$work/convert.times" | median); cc=$(cut -d' ' -f2 "$work/convert.times" | median)
    printf '%-7s %-8s %-18s %-18s %-18s %-8s %-8s %-10s\n' "$n" "$mb" "$ew / $ec" "$ow / $oc" "$cw / $cc" \
        "$(awk -v a="$ew" -v b="$cw" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$ec" -v b="$cc" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
        "$(awk -v a="$ow" -v b="$cw" 'BEGIN { printf "%.2f", a / b }')"
    if [ -n "${BENCH_PERF:-}" ] && [ -z "${perf_done:-}" ]; then
        perf record -q -g -o "$BENCH_PERF" "${export_cmd[@]}" >"$work/out" 2>/dev/null
        perf_done=1
    fi
    stop_fake_upstream
done
echo "(median of $runs in alternation; $page_size events a page, ~$description B descriptions; wall x, cpu x = export to stdout / convert; --output x = export --output / convert, wall; machine load: $(cut -d' ' -f1-3 /proc/loadavg))"
