#!/usr/bin/env bash
# File: include_layers_test.sh
# The layer order of the README's architecture section, enforced: no file of a lower layer includes a
# header of a higher one (tests/python/include_layers.py). A planted upward include must be caught, so the
# check cannot pass by reading nothing.
#   include_layers_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
fail_logs=""
check="$src/tests/python/include_layers.py"

/usr/bin/python3 "$check" "$src" || fail "an include goes up a layer (above)"

# A copy of the tree with one model file including the server's header must fail, naming that include.
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$src/src" "$src/include" "$copy/"
model="$copy/src/model/categories.cpp"
printf '#include <icsbridge/server.hpp>\n' >>"$model"
if out=$(/usr/bin/python3 "$check" "$copy"); then
    fail "a model file including icsbridge/server.hpp passed the check"
fi
grep -q "includes icsbridge/server.hpp (server)" <<<"$out" || fail "the planted include was not named: $out"
echo "PASS [deploy.include_layers]"
