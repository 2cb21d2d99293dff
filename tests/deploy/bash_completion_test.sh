#!/usr/bin/env bash
# File: bash_completion_test.sh
# deploy/icsbridge.bash-completion in bash, the way bash calls it: COMP_WORDS/COMP_CWORD set, the function
# called, COMPREPLY read. What it should offer comes from the binary itself (--help texts, `check` of a
# config), so the script cannot drift from the command line unnoticed.
#   bash_completion_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -euo pipefail
bin=$1 src=$3
. "$src/tests/support/sh/run_fixtures.sh"
fail_logs=""
script="$src/deploy/icsbridge.bash-completion"

# complete WORD...: what the function offers for the last WORD (sorted, one per line).
complete_words() {
    bash -c '
        source "$1" || exit 1
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE="${COMP_WORDS[*]}"
        _icsbridge
        printf "%s\n" "${COMPREPLY[@]}"
    ' _ "$script" icsbridge "$@" | sed '/^$/d' | sort
}

expect() { # expect "WANT (newline-separated)" WORD...
    local want=$1 got
    shift
    got=$(complete_words "$@")
    [ "$got" = "$(sort <<<"$want" | sed '/^$/d')" ] || fail "completing 'icsbridge $*': got [$(tr '\n' ' ' <<<"$got")], want [$(tr '\n' ' ' <<<"$want")]"
}

bash -c 'source "$1" && complete -p icsbridge' _ "$script" | grep -q -- '-F _icsbridge icsbridge' || fail "not registered for icsbridge"

# Commands: the ones --help's usage lines name, plus the program options.
commands=$("$bin" --help | sed -n 's/^  icsbridge \([a-z][a-z]*\) .*/\1/p')
[ "$(wc -l <<<"$commands")" -ge 5 ] || fail "could not read the commands from --help"
expect "$commands"$'\n--help\n--version' ""
expect "export" ex

# Each command's options: the long options its --help lists under "Options:".
for cmd in $commands; do
    opts=$("$bin" "$cmd" --help | sed -n '/^Options:/,/^$/p' | grep -o -- '--[a-z][a-z-]*' | sort -u)
    [ -n "$opts" ] || fail "no options in '$cmd --help'"
    expect "$opts" "$cmd" -
done
# An option already given is not offered again.
expect $'--feed\n--output\n--help' export --config x.toml -

# Feed and source names of the file after --config: the ones `icsbridge check` reads from it.
cfg="$src/config/example.toml"
checked=$(EVENTS_TOKEN=x JOBS_API_KEY=y "$bin" check --config "$cfg")
feeds=$(sed -n 's/^feed //p' <<<"$checked")
sources=$(sed -n 's/^  source: *\([^ ]*\) .*/\1/p' <<<"$checked" | sort -u)
jobs_sources=$(sed -n 's/^  source: *\([^ ]*\) (jobs,.*/\1/p' <<<"$checked" | sort -u)
[ "$(wc -l <<<"$feeds")" -ge 3 ] && [ -n "$jobs_sources" ] || fail "could not read feeds/sources of $cfg"
expect "$feeds" export --config "$cfg" --feed ""
expect "$feeds" export "--config=$cfg" --feed ""
expect "$feeds" export --config "$cfg" --feed = ""
expect "$(grep '^my' <<<"$feeds")" export --config "$cfg" --feed my
expect "$sources" categories --config "$cfg" --source ""
expect "$jobs_sources" tags --config "$cfg" --source ""

init_work
# Quoted names, a sub-table, and a name with a dot, as TOML allows them.
cat >"$work/names.toml" <<'TOML'
[sources.eb]
type = "events"
[ sources."job board" ]
  type = "jobs"
[feeds.a]
[feeds.a.params]
q = "x"
[feeds."b.c"]
TOML
expect $'a\nb.c' export --config "$work/names.toml" --feed ""
expect "job board" tags --config "$work/names.toml" --source ""
# connect's TARGET: the google and microsoft targets, until one is given; --timeout takes a number.
cat >"$work/targets.toml" <<'TOML'
[targets.family]
type = "caldav"
[targets.work]
type = "google"
[targets.office]
  type = "microsoft"
TOML
expect $'work\noffice' connect --config "$work/targets.toml" ""
expect "work" connect "--config=$work/targets.toml" w
expect $'work\noffice' connect --timeout 60 --config "$work/targets.toml" ""
expect $'--timeout\n--help' connect --config "$work/targets.toml" work ""
expect "" connect --config "$work/targets.toml" --timeout ""
expect $'--timeout\n--help' connect --config "$work/targets.toml" work -
# A config it cannot read (the service's 0600 file, as a user) offers nothing and prints nothing.
out=$(complete_words export --config "$work/missing.toml" --feed "" 2>&1)
[ -z "$out" ] || fail "missing config: $out"

# File names after --config and --output.
touch "$work/site.toml"
expect "$work/site.toml" check --config "$work/si"
expect "$work/site.toml" export --config x --feed y --output "$work/si"
echo "bash completion ok"
