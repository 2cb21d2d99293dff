#!/usr/bin/env bash
# File: include_layers_test.sh
# The layer order of the README's architecture section, enforced: no file of a lower layer includes a
# header of a higher one, no room includes a sibling of its row, no files include each other
# (tests/python/include_layers.py). Each planted violation must be caught, so the check cannot pass by
# reading nothing.
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

# fresh: a new copy of the tree. plant FILE LINE: FILE of the copy gets LINE appended.
fresh() {
    rm -rf "$copy/src" "$copy/include" "$copy/README.md"
    cp -r "$src/src" "$src/include" "$copy/"
}
plant() { printf '%s\n' "$2" >>"$copy/$1"; }
# caught WHAT EXPECTED: the check fails on the copy, naming EXPECTED.
caught() {
    if out=$(/usr/bin/python3 "$check" "$copy"); then
        fail "$1 passed the check"
    fi
    grep -qF "$2" <<<"$out" || fail "$1 was not named: $out"
}
# WHAT | FILE | LINE | EXPECTED, each in a fresh copy.
while IFS='|' read -r what file line expected; do
    fresh
    plant "$file" "$line"
    caught "$what" "$expected"
done <<'EOF'
push including connect (connect sits above push, which it uses)|src/push/plan.cpp|#include "connect/connections.hpp"|src/push/plan.cpp (push) includes connect/connections.hpp (connect)
oauth including webpush (siblings of one row)|src/oauth/pkce.cpp|#include <icsbridge/webpush.hpp>|includes icsbridge/webpush.hpp (webpush, a sibling)
a public header including libical|include/icsbridge/ical.hpp|#include <libical/ical.h>|include/icsbridge/ical.hpp (the face) includes libical/ical.h
EOF
# Two files of one folder that include each other.
fresh
plant src/net/retry.hpp '#include "net/target.hpp"'
plant src/net/target.hpp '#include "net/retry.hpp"'
caught "net/retry and net/target including each other" "these include each other: src/net/retry -> src/net/target"
# The README's picture must draw the order the check enforces.
fresh
sed 's/→ push → dav → server/→ dav → push → server/' "$src/README.md" >"$copy/README.md"
caught "a README drawing dav below push" "README.md: the picture draws"
echo "PASS [deploy.include_layers]"
