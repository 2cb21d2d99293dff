#!/usr/bin/env bash
# File: first_hour_test.sh
# What a newcomer meets in the first hour (issue 40): a feed's `timezone` checked like `?tz=` (one zone
# lookup, merged feeds too) at its FILE:LINE:COL; `ICSBRIDGE_LOG=loud` named in one warning (the default
# stays); export's progress line on a terminal never counts more items than its total (the past list's own
# count used to replace the whole one: "page 18, 34 of 1 events").
#   first_hour_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=first_hour
fail_logs="out err"
init_work

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream" --page-size 2 --lifecycle
cfg="$work/c.toml"
zones_config() { # zones_config ZONE_OF_A ZONE_OF_MERGED
    write_config "$cfg" \
        "$(server_toml "$work/state" 127.0.0.1:0)" \
        "$(fake_sources_toml "$upstream")" \
        "$(organizer_feed_toml a "timezone = \"$1\"")" \
        "$(feed_toml jobs jobs recent)" \
        "$(printf '[feeds.m]\nmerge = ["a", "jobs"]\ntimezone = "%s"' "$2")"
}
run() { # run STATUS ARGS...: icsbridge ARGS, stdout and stderr kept
    local want=$1
    shift
    "$bin" "$@" >"$work/out" 2>"$work/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "icsbridge $* exited $got, expected $want"
}
line_of() { grep -n "$1" "$cfg" | head -1 | cut -d: -f1; }

# A feed's timezone: a zone the system knows passes; an unknown one fails at its value; a merged feed too.
zones_config America/Los_Angeles Europe/Berlin
run 0 check --config "$cfg"
zones_config Mars/Olympus Europe/Berlin
run 2 check --config "$cfg"
grep -qF "$cfg:$(line_of Mars/Olympus):12: timezone = \"Mars/Olympus\" of [feeds.a] is not a time zone this system knows" "$work/err" ||
    fail "an unknown zone is not named at its place: $(cat "$work/err")"
run 2 export --config "$cfg" --feed jobs # every command: it is a mistake in the file
zones_config UTC Europe/Nowhere
run 2 check --config "$cfg"
grep -qF "$cfg:$(line_of Europe/Nowhere):12: timezone = \"Europe/Nowhere\" of [feeds.m]" "$work/err" ||
    fail "a merged feed's zone is not checked: $(cat "$work/err")"
zones_config ../../etc/passwd UTC
run 2 check --config "$cfg"
grep -qF "$cfg:$(line_of passwd):12: timezone = \"../../etc/passwd\" is not a time zone name" "$work/err" ||
    fail "a path is taken for a zone: $(cat "$work/err")"

# ICSBRIDGE_LOG: a value that is no level is named once, and the command does what it would without it.
zones_config America/Los_Angeles UTC
ICSBRIDGE_LOG=loud run 0 check --config "$cfg"
[ "$(grep -c "ICSBRIDGE_LOG=loud is not a level (debug, info, warn, error); using the default" "$work/err")" = 1 ] ||
    fail "no single warning for ICSBRIDGE_LOG=loud: $(cat "$work/err")"
grep -q "OK (2 sources, 3 feeds)" "$work/out" || fail "check did not run as usual"
ICSBRIDGE_LOG=loud run 0 export --config "$cfg" --feed jobs --output "$work/jobs.ics"
[ "$(wc -l <"$work/err")" = 1 ] || fail "export with ICSBRIDGE_LOG=loud said more than the warning: $(cat "$work/err")"
ICSBRIDGE_LOG=warn run 0 check --config "$cfg"
grep -q ICSBRIDGE_LOG "$work/err" && fail "a valid ICSBRIDGE_LOG was warned about"

# The progress line, on a terminal: every "N of T" has N <= T, over both lists (2 events a page).
/usr/bin/python3 - "$bin" "$cfg" "$work/a.ics" >"$work/progress" <<'PY' || fail "progress: $(cat "$work/progress")"
import os, pty, re, subprocess, sys
bin, cfg, out = sys.argv[1:4]
master, slave = pty.openpty()
p = subprocess.Popen([bin, "export", "--config", cfg, "--feed", "a", "--output", out],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
data = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
rc = p.wait()
text = data.decode("utf-8", "replace")
lines = [m.groups() for m in re.finditer(r"page (\d+), (\d+)(?: of (\d+))? events", text)]
print(f"rc {rc}, {len(lines)} progress lines, last {lines[-1] if lines else None}")
if rc != 0 or len(lines) < 3:
    sys.exit(1)
bad = [l for l in lines if l[2] is not None and int(l[1]) > int(l[2])]
if bad:
    print("more items than the total:", bad[:3])
    sys.exit(1)
if not any(l[2] for l in lines):
    print("no line with a total")
    sys.exit(1)
PY
grep -q "^BEGIN:VCALENDAR" "$work/a.ics" || fail "the export with progress wrote no calendar"
echo "first_hour: ok ($(cat "$work/progress"))"
