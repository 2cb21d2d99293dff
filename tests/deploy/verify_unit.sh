#!/usr/bin/env bash
# Checks deploy/icsbridge.service with systemd-analyze verify, pointing it at the freshly built binary.
set -euo pipefail
src="$1"; bin="$2"
command -v systemd-analyze >/dev/null || { echo "systemd-analyze not installed: skipped"; exit 77; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
sed "s#/usr/local/bin/icsbridge#$bin#g" "$src/deploy/icsbridge.service" >"$dir/icsbridge.service"
out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify "$dir/icsbridge.service" 2>&1) || { echo "$out"; exit 1; }
# verify prints warnings without failing: treat any output about our unit as a failure.
if grep -q "icsbridge.service" <<<"$out"; then echo "$out"; exit 1; fi
echo "icsbridge.service verified"
