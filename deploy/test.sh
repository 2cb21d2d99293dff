#!/usr/bin/env bash
# Builds icsbridge and runs every test. On a fresh Debian 12 machine this is the only command needed:
# it installs the packages it uses first. Exit status is non-zero on any failure.
#
# 1. build/      RelWithDebInfo, warnings as errors: the whole CTest suite, then clang-tidy (.clang-tidy)
#                over src/ against build/compile_commands.json.
# 2. build-san/  clang with AddressSanitizer + UndefinedBehaviorSanitizer: the whole suite again, then
#                every libFuzzer target for a bounded time (deploy/fuzz.sh, about a minute in all).
# ICSBRIDGE_SKIP_SANITIZERS=1 skips step 2 (for a quick local run; CI always runs it).
# Each step's time is printed as it ends and again, all together, at the end (also on failure), so a
# slow run shows where its minutes went.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
timings=""
# step NAME COMMAND...: runs the command, then records and prints how long it took.
step() {
    local name="$1" t0
    shift
    t0=$(date +%s)
    "$@"
    local took=$(( $(date +%s) - t0 ))
    timings+="$(printf '  %-18s %5ss' "$name" "$took")"$'\n'
    echo "test.sh: $name took ${took}s"
}
print_timings() {
    printf 'test.sh: step times\n%s  %-18s %5ss\n' "$timings" total "$(( $(date +%s) - started ))"
}
trap print_timings EXIT

clang_tidy() {
    run-clang-tidy-14 -p build -j"$jobs" -quiet "$PWD/src/" >build/clang-tidy.log 2>&1 ||
        { grep -E 'warning:|error:' build/clang-tidy.log | sort -u; echo "clang-tidy found the above" >&2; return 1; }
}

step install deploy/install-deps.sh

jobs="${ICSBRIDGE_JOBS:-2}"

step configure cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DICSBRIDGE_WERROR=ON \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
step build cmake --build build -j"$jobs"
step ctest ctest --test-dir build --output-on-failure --timeout 600
# Our own sources only (the tests and the fuzz/bench drivers are not checked); any finding fails the run.
step clang-tidy clang_tidy

if [ "${ICSBRIDGE_SKIP_SANITIZERS:-0}" != 1 ]; then
    CC=clang-14 CXX=clang++-14 step "sanitizer configure" cmake -S . -B build-san -G Ninja \
        -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DICSBRIDGE_SANITIZE=address,undefined \
        -DICSBRIDGE_FUZZ=ON
    step "sanitizer build" cmake --build build-san -j"$jobs"
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    # The browser check exercises Chromium, not our code, and the package checks exercise packaging (a
    # sanitizer build is no package): once (above) is enough for both.
    step "sanitizer ctest" ctest --test-dir build-san --output-on-failure --timeout 900 -LE 'browser|package'
    step fuzz deploy/fuzz.sh build-san
fi
echo "test.sh: all green in $(( $(date +%s) - started ))s"
