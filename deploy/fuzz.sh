#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time, seeded from the test fixtures.
#   deploy/fuzz.sh [BUILD_DIR]   (default build-san; needs a clang build with -DICSBRIDGE_FUZZ=ON)
# ICSBRIDGE_FUZZ_SECONDS sets the time per target (default 12, so about a minute in all).
# A crash leaves its input in BUILD_DIR/fuzz-artifacts/: fix the bug and copy the input into
# fuzz/regressions/TARGET/, where CTest replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-san}"
secs="${ICSBRIDGE_FUZZ_SECONDS:-12}"
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"

seeds_for() {
    case "$1" in
        events) echo tests/fixtures/events tests/fixtures/upstream/events ;;
        jobs) echo tests/fixtures/jobs tests/fixtures/upstream/jobs ;;
        config) echo tests/fixtures/configs config ;;
        request | html) echo ;;
    esac
}

status=0
for target in events jobs request config html; do
    bin="$build/fuzz_$target"
    [ -x "$bin" ] || { echo "fuzz: $bin not built" >&2; exit 1; }
    corpus=$(mktemp -d)
    # Copy the seeds: libFuzzer writes new inputs into the first corpus directory, never into the repo.
    for dir in fuzz/regressions/$target $(seeds_for "$target"); do
        find "$dir" -maxdepth 1 -type f \( -name '*.json' -o -name '*.toml' -o ! -name '*.*' \) \
            -exec cp {} "$corpus/" \; 2>/dev/null || true
    done
    if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
        -artifact_prefix="$artifacts/$target-" -print_final_stats=1 "$corpus" >"$artifacts/$target.log" 2>&1; then
        echo "fuzz: $target FOUND A CRASH — see $artifacts/$target.log" >&2
        tail -40 "$artifacts/$target.log" >&2
        status=1
    else
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$artifacts/$target.log")
        echo "fuzz: $target ok (${runs:-?} runs in ${secs}s, corpus $(ls "$corpus" | wc -l) inputs)"
    fi
    rm -rf "$corpus"
done
exit $status
