#!/usr/bin/env bash
# File: example_keys_test.sh
# config/example.toml lists every key of the README's configuration table (docs/man/config-keys.tsv, its
# source), each under its table (tests/python/example_keys.py); a key another change adds to the table
# fails here by name until the example shows it. A copy without one key must be caught, so the check
# cannot pass by reading nothing.
#   example_keys_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
fail_logs=""
check="$src/tests/python/example_keys.py"

/usr/bin/python3 "$check" "$src" || fail "config/example.toml lacks keys of the README's table (above)"

copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
grep -v 'webhook_secret' "$src/config/example.toml" >"$copy/example.toml"
out=$(/usr/bin/python3 "$check" "$src" "$copy/example.toml") && fail "a copy without webhook_secret passed"
grep -qF "lacks \`webhook_secret_env\` of [sources.NAME] (docs/man/config-keys.tsv:" <<<"$out" ||
    fail "the missing key is not named with its table and tsv line: $out"
echo "example_keys: ok"
