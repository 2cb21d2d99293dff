#!/usr/bin/env bash
# Checks deploy/icsbridge.service, and the Debian package's copy of it (BUILD/deb/icsbridge.service), with
# systemd-analyze verify, pointing each at the freshly built binary and at the built man pages (the units'
# Documentation= names man:icsbridge(1), which verify looks up).
#   systemd_unit_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -euo pipefail
bin="$1"; src="$3"; build="$4"
command -v systemd-analyze >/dev/null || { echo "systemd-analyze not installed: skipped"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/../support/sh/run_fixtures.sh"
init_work
dir="$work"
export MANPATH="$build/man"
for unit in "$src/deploy/icsbridge.service" "$build/deb/icsbridge.service"; do
    sed -E "s#/usr(/local)?/bin/icsbridge#$bin#g" "$unit" >"$dir/icsbridge.service"
    grep -q "^ExecStart=$bin " "$dir/icsbridge.service" || { echo "$unit: no ExecStart of the binary"; exit 1; }
    out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify "$dir/icsbridge.service" 2>&1) || { echo "$unit: $out"; exit 1; }
    # verify prints warnings without failing: treat any output about our unit as a failure.
    if grep -q "icsbridge.service" <<<"$out"; then echo "$unit: $out"; exit 1; fi
    echo "$unit verified"
done
