#!/usr/bin/env bash
# File: man_test.sh
# The man pages built into BUILD/man/ (docs/man/) against what they describe (issue 15), one CASE each:
#   man_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR CASE
#   render    both pages render at 80 columns without a warning (man -l, and the stricter run lintian makes)
#   keys      every key the config reader accepts (the check_keys() lists and *_keys arrays of src/config/) is in
#             icsbridge.toml(5), and every key the page lists is accepted: neither can drift from the code
#   synopsis  every usage line `icsbridge --help` prints is in icsbridge(1)'s SYNOPSIS
#   readme    README.md's key table is what docs/man/config-keys.tsv generates
#   date      both pages are dated as the newest changelog entry (a month of 00 once slipped through)
set -euo pipefail
bin=$1 src=$3 build=$4 mode=$5
pages=("$build/man/man1/icsbridge.1" "$build/man/man5/icsbridge.toml.5")
. "$src/tests/support/sh/run_fixtures.sh"
fail_logs=""

# render_text PAGE: the page as a reader sees it at 80 columns, in plain ASCII-comparable text.
render_text() {
    MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$1" 2>/dev/null | col -bx | sed 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g'
}

case $mode in
render)
    for p in "${pages[@]}"; do
        [ -s "$p" ] || fail "$p was not built"
        out=$(MANWIDTH=80 man -l "$p" 2>&1 >/dev/null)
        [ -z "$out" ] || fail "$p: man -l warns: $out"
        # What lintian's manpage check runs: all groff warnings on.
        out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$p" 2>&1 >/dev/null)
        [ -z "$out" ] || fail "$p: groff warns: $out"
        lines=$(render_text "$p" | wc -l)
        [ "$lines" -gt 40 ] || fail "$p renders to only $lines lines"
        if render_text "$p" | grep -q '@[A-Z]*@'; then fail "$p has an unfilled @PLACEHOLDER@"; fi
    done
    echo "man pages render cleanly"
    ;;

keys)
    page=$build/man/man5/icsbridge.toml.5
    # Keys from the code: the string literals in the brace lists of each check_keys(...) call. The top-level
    # call lists tables; the others list keys ("elsewhere" lists name keys valid in the other kind of
    # source or feed, so they are keys of the reader too).
    read -r -d '' extract <<'PY' || true
import re, sys
code = "".join(open(f).read() for f in sys.argv[1:])
tables, keys = set(), set()
for call in re.finditer(r"check_keys\(\s*(\w+)\s*,\s*([^,]+?)\s*,\s*((?:\{[^{}]*\}\s*,?\s*)+)\)", code):
    words = set(re.findall(r'"([A-Za-z0-9_.-]+)"', call.group(3)))
    (tables if "top level" in call.group(2) else keys).update(words)
# Key lists shared by several checks: the constexpr *_keys arrays and key_list({...}, ...)'s extra keys.
for lst in re.finditer(r"constexpr std::array<std::string_view, \d+> \w+_keys\{([^{}]*)\}", code):
    keys.update(re.findall(r'"([A-Za-z0-9_.-]+)"', lst.group(1)))
for lst in re.finditer(r"key_list\(\s*\{([^{}]*)\}", code):
    keys.update(re.findall(r'"([A-Za-z0-9_.-]+)"', lst.group(1)))
for t in sorted(tables):
    print("table", t)
for k in sorted(keys):
    print("key", k)
PY
    found=$(python3 -c "$extract" "$src"/src/config/*.cpp "$src"/src/config/*.hpp)
    n_keys=$(grep -c '^key ' <<<"$found" || true)
    # A broken extraction must not pass as "nothing to check".
    [ "$n_keys" -ge 25 ] && grep -q '^key listen$' <<<"$found" && grep -q '^table feeds$' <<<"$found" ||
        fail "could not extract the accepted keys from src/config/*.cpp (got: $found)"
    # The page's keys: the bold words of each .TP tag line (the line after .TP), e.g. "\fBtoken\fR, \fBtoken_env\fR (default: ...)".
    page_keys=$(awk 'prev == ".TP" { line = $0; sub(/ \(default:.*/, "", line); print line } { prev = $0 }' "$page" |
        grep -o '\\fB[^\\]*\\fR' | sed 's/^\\fB//; s/\\fR$//; s/\\-/-/g' | sort -u)
    page_tables=$(grep '^\.SS ' "$page" | sed -E 's/^\.SS "?\[([a-z]+).*$/\1/' | sort -u)
    missing=""
    while read -r kind name; do
        if [ "$kind" = table ]; then
            grep -qx "$name" <<<"$page_tables" || missing+=" [$name]"
        else
            grep -qx "$name" <<<"$page_keys" || missing+=" $name"
        fi
    done <<<"$found"
    [ -z "$missing" ] || fail "accepted by the config reader but not in icsbridge.toml(5) (add them to docs/man/config-keys.tsv):$missing"
    extra=""
    while read -r k; do
        grep -qx "key $k" <<<"$found" || extra+=" $k"
    done <<<"$page_keys"
    [ -z "$extra" ] || fail "in icsbridge.toml(5) but not accepted by the config reader:$extra"
    echo "icsbridge.toml(5) lists all $n_keys keys the config reader accepts"
    ;;

synopsis)
    synopsis=$(render_text "$build/man/man1/icsbridge.1" | sed -n '/^SYNOPSIS/,/^[A-Z]/p' | tr -s ' ')
    usage=$("$bin" --help | sed -n '/^Usage:/,/^$/p' | grep '^  icsbridge' | sed 's/^ *//' | tr -s ' ')
    [ "$(wc -l <<<"$usage")" -ge 5 ] || fail "no usage lines from $bin --help"
    while IFS= read -r line; do
        grep -qxF "  $line" <<<"$(sed 's/^ */  /' <<<"$synopsis")" || fail "icsbridge(1) SYNOPSIS lacks: $line"
    done <<<"$usage"
    echo "icsbridge(1) SYNOPSIS has every usage line of --help"
    ;;

readme)
    want=$(sh "$src/docs/man/gen-man.sh" readme-table "$src/docs/man/config-keys.tsv")
    got=$(awk '/^Keys:$/ { on = 1; next } on && /^\|/ { print; seen = 1; next } seen { exit }' "$src/README.md")
    [ -n "$got" ] || fail "README.md has no table after a 'Keys:' line"
    diff <(echo "$want") <(echo "$got") || fail "README.md's key table differs from docs/man/config-keys.tsv (regenerate: sh docs/man/gen-man.sh readme-table docs/man/config-keys.tsv)"
    echo "README key table matches docs/man/config-keys.tsv"
    ;;

date)
    # Both pages carry the date of the changelog's newest entry, read here by date(1), not by CMake.
    stamp=$(grep -m1 '^ -- ' "$src/deploy/debian/changelog" | sed 's/^ -- .*>  //')
    want=$(LC_ALL=C date -u -d "$stamp" +%Y-%m-%d) || fail "cannot read the changelog date '$stamp'"
    for p in "${pages[@]}"; do
        got=$(awk '/^\.TH/ { gsub(/"/, ""); print $4; exit }' "$p")
        [ "$got" = "$want" ] || fail "$p is dated '$got', not the changelog's $want"
    done
    echo "man pages dated $want"
    ;;

*)
    fail "unknown mode $mode"
    ;;
esac
