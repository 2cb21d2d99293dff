#!/usr/bin/env bash
# Builds icsbridge and runs every test. On a fresh Debian 12 machine this is the only command needed:
# it installs the packages it uses first. Exit status is non-zero on any failure.
#
# 1. build/      RelWithDebInfo, warnings as errors: the whole CTest suite, then clang-tidy (.clang-tidy)
#                over src/ against build/compile_commands.json.
# 2. build-san/  clang with AddressSanitizer + UndefinedBehaviorSanitizer: the whole suite again, then
#                every libFuzzer target for a bounded time (deploy/fuzz.sh, about a minute in all).
# ICSBRIDGE_SKIP_SANITIZERS=1 skips step 2 (for a quick local run; CI always runs it).
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh

jobs="${ICSBRIDGE_JOBS:-2}"
started=$(date +%s)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DICSBRIDGE_WERROR=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure --timeout 600
# Our own sources only (the tests and the fuzz/bench drivers are not checked); any finding fails the run.
tidy_started=$(date +%s)
run-clang-tidy-14 -p build -j"$jobs" -quiet "$PWD/src/" >build/clang-tidy.log 2>&1 ||
    { grep -E 'warning:|error:' build/clang-tidy.log | sort -u; echo "clang-tidy found the above" >&2; exit 1; }
echo "clang-tidy: clean in $(( $(date +%s) - tidy_started ))s"

if [ "${ICSBRIDGE_SKIP_SANITIZERS:-0}" != 1 ]; then
    CC=clang-14 CXX=clang++-14 cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DICSBRIDGE_SANITIZE=address,undefined -DICSBRIDGE_FUZZ=ON
    cmake --build build-san -j"$jobs"
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    # The browser check exercises Chromium, not our code, and the package checks exercise packaging (a
    # sanitizer build is no package): once (above) is enough for both.
    ctest --test-dir build-san --output-on-failure --timeout 900 -LE 'browser|package'
    deploy/fuzz.sh build-san
fi
echo "test.sh: all green in $(( $(date +%s) - started ))s"
