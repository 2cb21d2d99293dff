#!/usr/bin/env bash
# Builds icsbridge and runs every test. On a fresh Debian 12 machine this is the only command needed:
# it installs the packages it uses first. Exit status is non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh

jobs="${ICSBRIDGE_JOBS:-2}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DICSBRIDGE_WERROR=ON
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure --timeout 600
