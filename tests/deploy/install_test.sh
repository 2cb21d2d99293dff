#!/usr/bin/env bash
# `cmake --install` lays out bin/icsbridge, the example config, the README and the systemd unit.
set -euo pipefail
build="$1"
prefix=$(mktemp -d); trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/icsbridge share/doc/icsbridge/README.md share/doc/icsbridge/examples/example.toml lib/systemd/system/icsbridge.service; do
    [ -e "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
"$prefix/bin/icsbridge" --version | grep -q "^icsbridge "
echo "install layout ok"
