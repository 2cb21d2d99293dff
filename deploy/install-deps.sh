#!/usr/bin/env bash
# Installs the Debian 12 packages icsbridge builds, tests and benchmarks with.
# Idempotent and non-interactive: installs only what is missing, runs `apt-get update` at most once.
set -euo pipefail

# --build-only: what a release build (-DBUILD_TESTING=OFF) needs, plus curl, which the README's
# deploy steps check the service with, and dpkg-dev and file, which `cpack -G DEB` runs (dpkg-shlibdeps).
build_pkgs=(
    g++ cmake ninja-build pkg-config
    libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
    libical-dev libssl-dev zlib1g-dev libtomlplusplus-dev libqrencode-dev libpq-dev libxml2-dev libpsl-dev tzdata ca-certificates curl dpkg-dev file
)
# --demo: also what the test tree (the fake upstream is built there) needs to configure.
test_build_pkgs=(libboost-test1.81-dev)
# Real clients the tests check our output with, and the tools the fuzz/sanitizer and clang-tidy steps use.
# lintian, man-db (man -l) and fakeroot (dpkg into a throwaway root as non-root) check the package; wrk loads
# the server while the reload test sends SIGHUP; postgresql-15 is the real database the cluster tests start;
# python3-yaml reads deploy/compose.yaml in its test; radicale is the CalDAV server the push tests write into
# and python3-caldav (with python3-passlib for its htpasswd) the client they read it back with; python3-websocket
# is how tests/support/cdp.py drives chromium over the DevTools protocol (clicks, forms, screenshots);
# python3-cryptography opens a connection's sealed refresh token from outside (AES-256-GCM) in its test;
# nodejs runs ical.js (js.check_view_google), which deploy/test.sh installs from npm into the build folder;
# vdirsyncer syncs a feed's CalDAV collection into a folder and khal reads that folder (issue 36).
test_pkgs=(
    python3 python3-icalendar python3-vobject python3-yaml openssl clang-14 clang-tidy-14 libclang-rt-14-dev chromium zbar-tools nginx-light
    lintian man-db fakeroot wrk libpq-dev postgresql-15 radicale python3-caldav python3-passlib python3-websocket
    python3-cryptography nodejs vdirsyncer khal
)
# Only for the benchmark and soak scripts (linux-perf: BENCH_PERF= profiles).
bench_pkgs=(wrk nginx-light procps linux-perf)

want=("${build_pkgs[@]}")
case "${1:-}" in
    --build-only) ;;
    --demo) want+=("${test_build_pkgs[@]}") ;;
    --bench) want+=("${test_build_pkgs[@]}" "${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
    *) want+=("${test_build_pkgs[@]}" "${test_pkgs[@]}") ;;
esac

missing=()
for p in "${want[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
# npm installs ical.js (deploy/test.sh) for js.check_view_google: Debian's npm package, unless a Node.js that
# brings its own npm (NodeSource's nodejs, which conflicts with Debian's npm) is installed already.
case "${1:-}" in --build-only | --demo) ;; *) command -v npm >/dev/null || missing+=(npm) ;; esac
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
