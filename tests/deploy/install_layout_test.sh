#!/usr/bin/env bash
# `cmake --install` lays out bin/icsbridge, the example configs, the README, the systemd unit, the man pages
# and the bash completion.
#   install_layout_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -euo pipefail
build="$4"
. "$(dirname "${BASH_SOURCE[0]}")/../support/sh/run_fixtures.sh"
init_work
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/icsbridge share/doc/icsbridge/README.md share/doc/icsbridge/examples/example.toml \
    share/doc/icsbridge/examples/nginx.conf lib/systemd/system/icsbridge.service share/man/man1/icsbridge.1.gz \
    share/man/man5/icsbridge.toml.5.gz share/bash-completion/completions/icsbridge; do
    [ -e "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
# The package's /etc and /lib files are its own (component deb): a prefix install never writes outside it.
[ ! -e "$prefix/etc" ] || { echo "cmake --install put the package's /etc files under the prefix"; exit 1; }
"$prefix/bin/icsbridge" --version | grep -q "^icsbridge "
echo "install layout ok"
