#!/bin/sh
# File: gen-man.sh
# Builds the man pages and the README's key table from their sources, so the three cannot drift:
#   gen-man.sh page IN VERSION DATE [KEYS.tsv] > OUT   roff page from IN: @VERSION@ and @DATE@ filled in, and a
#                                                      line "@KEYS@" replaced by one .SS per table of KEYS.tsv
#   gen-man.sh readme-table KEYS.tsv > OUT             the Markdown table README.md shows under "Keys:"
# KEYS.tsv (docs/man/config-keys.tsv): table, key, default, meaning, tab-separated; `literal` markup.
# POSIX sh and awk only (both essential in Debian): the package build needs nothing more.
set -eu

mode=$1
shift

case "$mode" in
readme-table)
    awk -F '\t' '
        /^#/ || NF == 0 { next }
        BEGIN { print "| table | key | default | meaning |"; print "|---|---|---|---|" }
        { printf "|%s| %s | %s | %s |\n", ($1 == last ? " " : " " $1 " "), $2, $3, $4; last = $1 }
    ' "$1"
    ;;
page)
    in=$1 version=$2 date=$3 keys=${4:-/dev/null}
    awk -F '\t' -v version="$version" -v date="$date" '
        # Roff from one Markdown-ish cell: `code` in bold (its hyphens as \-, so they stay ASCII
        # hyphen-minus when copied), backslashes escaped, an em dash as \(em.
        function roff(s,    out, parts, n, i, p) {
            gsub(/\\/, "\\e", s)
            n = split(s, parts, "`")
            out = ""
            for (i = 1; i <= n; i++) {
                p = parts[i]
                if (i % 2 == 0) {
                    gsub(/-/, "\\-", p)
                    p = "\\fB" p "\\fR"
                }
                out = out p
            }
            gsub(/—/, "\\(em", out)
            # A line may not start with a control character.
            if (out ~ /^[.\047]/)
                out = "\\&" out
            return out
        }
        FNR == NR {
            if ($0 ~ /^#/ || NF == 0)
                next
            rows++
            table[rows] = $1; key[rows] = $2; dflt[rows] = $3; meaning[rows] = $4
            next
        }
        $0 == "@KEYS@" {
            for (r = 1; r <= rows; r++) {
                if (table[r] != table[r - 1]) {
                    t = table[r]
                    gsub(/`/, "", t)
                    print ".SS \"" t "\""
                }
                print ".TP"
                k = roff(key[r])
                sub(/ \/ /, ", ", k)
                print k (dflt[r] == "—" ? "" : " (default: " roff(dflt[r]) ")")
                print roff(meaning[r])
            }
            next
        }
        {
            gsub(/@VERSION@/, version)
            gsub(/@DATE@/, date)
            print
        }
    ' "$keys" "$in"
    ;;
*)
    echo "usage: gen-man.sh page IN VERSION DATE [KEYS.tsv] | readme-table KEYS.tsv" >&2
    exit 2
    ;;
esac
