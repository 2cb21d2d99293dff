#!/usr/bin/env bash
# File: tidy_test.sh
# deploy/tidy.py, which runs clang-tidy over src/ in batches (one generated file including a folder's
# sources): a finding in an included source fails the run and is named by its own file and line, and two
# sources that clash in one batch (the same file-local helper) are checked again one at a time instead of
# failing. On a tiny tree of its own, so it takes seconds.
#   tidy_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
fail_logs=""
command -v clang-tidy-14 >/dev/null || fail "clang-tidy-14 is not installed (deploy/install-deps.sh)"

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/src/clean" "$tree/src/finding" "$tree/build"
for n in 1 2; do
    printf 'namespace {\nint helper() { return %s; }\n} // namespace\nint clash_%s() { return helper(); }\n' \
        "$n" "$n" >"$tree/src/clean/clash$n.cpp"
done
printf 'int* probe() {\n    return 0;\n}\n' >"$tree/src/finding/probe.cpp"
# compile_database FILE...: build/compile_commands.json for these sources.
compile_database() {
    /usr/bin/python3 - "$tree" "$@" <<'PY'
import json, sys
tree = sys.argv[1]
entries = [{"directory": tree + "/build", "file": f"{tree}/src/{f}",
            "command": f"clang++-14 -std=c++20 -c {tree}/src/{f} -o {f}.o"} for f in sys.argv[2:]]
json.dump(entries, open(tree + "/build/compile_commands.json", "w"))
PY
}
tidy() { /usr/bin/python3 "$src/deploy/tidy.py" "$tree/build" 2 "$tree/src"; }

compile_database clean/clash1.cpp clean/clash2.cpp
out=$(tidy) || fail "two clashing but clean sources failed the run: $out"
grep -q "2 sources in 1 batches, 2 checked again one by one" <<<"$out" || fail "the clash was not checked file by file: $out"

compile_database clean/clash1.cpp clean/clash2.cpp finding/probe.cpp
if out=$(tidy); then fail "a literal 0 returned as a pointer passed: $out"; fi
grep -q "$tree/src/finding/probe.cpp:2:12: error: use nullptr \[modernize-use-nullptr" <<<"$out" ||
    fail "the finding was not named by its file and line: $out"
echo "PASS [deploy.tidy]"
