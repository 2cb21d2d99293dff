#!/usr/bin/env bash
# Builds icsbridge and runs every test. On a fresh Debian 12 machine this is the only command needed:
# it installs the packages it uses first. Exit status is non-zero on any failure.
#
# 1. build/      RelWithDebInfo, warnings as errors: the whole CTest suite.
# 2. build-san/  clang with AddressSanitizer + UndefinedBehaviorSanitizer: the whole suite again, then
#                every libFuzzer target for a bounded time (deploy/fuzz.sh, about a minute in all).
# 3. clang-tidy (.clang-tidy) over src/ against build/compile_commands.json, in batches (deploy/tidy.py).
# The suites mostly wait on sockets and processes, so the CPU-bound work runs beside them at the lowest
# CPU priority: the sanitizer build beside the release suite, clang-tidy beside the sanitizer suite. The
# tests keep the CPU they ask for (a niced process gets ~1.5% of a core that a normal one wants).
# ICSBRIDGE_SKIP_SANITIZERS=1 skips step 2 (for a quick local run; CI always runs it).
# Each step's time is printed as it ends and again, all together, at the end (also on failure), so a
# slow run shows where its minutes went; a step that ran beside another is marked so.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
timings=""
# step NAME COMMAND...: runs the command, then records and prints how long it took; returns its status.
step() {
    local name="$1" t0 rc=0
    shift
    t0=$(date +%s)
    "$@" || rc=$?
    local took=$(( $(date +%s) - t0 ))
    timings+="$(printf '  %-22s %5ss' "$name" "$took")"$'\n'
    echo "test.sh: $name took ${took}s$([ "$rc" = 0 ] || echo " and failed ($rc)")"
    return "$rc"
}
print_timings() {
    printf 'test.sh: step times\n%s  %-22s %5ss\n' "$timings" total "$(( $(date +%s) - started ))"
}
trap print_timings EXIT

clang_tidy() {
    local rc=0
    /usr/bin/python3 deploy/tidy.py build "$jobs" >build/clang-tidy.log 2>&1 || rc=$?
    case "$rc" in
    0) ;;
    1) grep -E 'warning:|error:' build/clang-tidy.log | sort -u; echo "clang-tidy found the above" >&2 ;;
    *) cat build/clang-tidy.log >&2 ;; # could not run: its own words say why
    esac
    return "$rc"
}
sanitizers() { [ "${ICSBRIDGE_SKIP_SANITIZERS:-0}" != 1 ]; }
build_san() {
    CC=clang-14 CXX=clang++-14 step "sanitizer configure" cmake -S . -B build-san -G Ninja \
        -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -gline-tables-only" -DICSBRIDGE_SANITIZE=address,undefined \
        -DICSBRIDGE_FUZZ=ON -DICSBRIDGE_BENCH=OFF &&
        step "sanitizer build" cmake --build build-san -j"$jobs"
}

# beside NAME LOG COMMAND...: starts COMMAND (a function of this file, using step) in the background at the
# lowest CPU priority, its output to LOG; `joined NAME` waits for it and adds its step times.
beside() {
    local name="$1" log="$2"
    shift 2
    (
        renice -n 19 -p "$BASHPID" >/dev/null
        timings=""
        rc=0
        "$@" || rc=$?
        printf '%s' "$timings" | sed 's/$/   (beside the tests)/' >"$log.timings"
        exit "$rc"
    ) >"$log" 2>&1 &
    beside_pid=$!
    beside_log=$log
    echo "test.sh: $name runs beside the tests (log: $log)"
}
joined() {
    local rc=0
    wait "$beside_pid" || rc=$?
    [ -f "$beside_log.timings" ] && timings+="$(cat "$beside_log.timings")"$'\n'
    if [ "$rc" != 0 ]; then
        tail -n 60 "$beside_log"
        echo "test.sh: $1 failed ($rc); its whole log is $beside_log" >&2
    fi
    return "$rc"
}

step install deploy/install-deps.sh
# Every test runs here: one that would skip for want of a tool (chromium, python3-websocket, ical.js) fails.
export ICSBRIDGE_REQUIRE_ALL=1
# icaljs DIR: ical.js, the parser of web calendar apps, from npm into DIR/node_modules (js.check_view_google).
icaljs() {
    [ -f "$1/node_modules/ical.js/package.json" ] ||
        npm install --prefix "$1" --no-audit --no-fund --no-save --loglevel=error ical.js@2 >/dev/null
}

jobs="${ICSBRIDGE_JOBS:-2}"
ASAN="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
UBSAN="print_stacktrace=1:halt_on_error=1"

step configure cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DICSBRIDGE_WERROR=ON \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
step build cmake --build build -j"$jobs"
step ical.js icaljs build

status=0
if sanitizers; then
    beside "the sanitizer build" build/beside-san-build.log build_san
else
    beside "clang-tidy" build/beside-clang-tidy.log step clang-tidy clang_tidy
fi
step ctest ctest --test-dir build --output-on-failure --timeout 600 -j"$jobs" || status=1
if sanitizers; then
    joined "the sanitizer build" || exit 1
    # Our own sources only (the tests and the fuzz/bench drivers are not checked); any finding fails the run.
    beside "clang-tidy" build/beside-clang-tidy.log step clang-tidy clang_tidy
    # The browser check exercises Chromium, not our code, and the package checks exercise packaging (a
    # sanitizer build is no package): once (above) is enough for both.
    step "ical.js (sanitizer)" icaljs build-san || status=1
    ASAN_OPTIONS=$ASAN UBSAN_OPTIONS=$UBSAN step "sanitizer ctest" ctest --test-dir build-san --output-on-failure \
        --timeout 900 -j"$jobs" -LE 'browser|package' || status=1
    joined "clang-tidy" || status=1
    ASAN_OPTIONS=$ASAN UBSAN_OPTIONS=$UBSAN step fuzz deploy/fuzz.sh build-san || status=1
else
    joined "clang-tidy" || status=1
fi
[ "$status" = 0 ] || { echo "test.sh: failed (see above)" >&2; exit 1; }
echo "test.sh: all green in $(( $(date +%s) - started ))s"
