#!/usr/bin/env bash
# File: dav_vdirsyncer_e2e.sh
# Debian's vdirsyncer and khal on a CalDAV collection of the real `icsbridge serve` (issue 36): vdirsyncer
# syncs /dav/feeds/pub/ into a folder holding exactly the feed's events (one file per UID, each event equal
# to the feed's); after an upstream change and its webhook the next sync changes that one file and no other;
# khal reads the folder and finds the changed event under its new title.
#   dav_vdirsyncer_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/support/sh/dav_fixtures.sh"
init_work

command -v vdirsyncer >/dev/null && command -v khal >/dev/null || fail "vdirsyncer and khal are needed (deploy/install-deps.sh)"
dav_upstream
dav_config
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics

# Both tools keep their state under $HOME; the test's own.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_DATA_HOME=$work/home/.local/share
mkdir -p "$HOME" "$work/vdir/pub" "$work/status"
cat >"$work/vdirsyncer.conf" <<CONF
[general]
status_path = "$work/status/"

[pair pub]
a = "pub_remote"
b = "pub_local"
collections = null
conflict_resolution = "a wins"

[storage pub_remote]
type = "caldav"
url = "$base/dav/feeds/pub/"
read_only = true

[storage pub_local]
type = "filesystem"
path = "$work/vdir/pub/"
fileext = ".ics"
CONF
cat >"$work/khal.conf" <<CONF
[calendars]
[[pub]]
path = $work/vdir/pub/
type = calendar
readonly = True

[locale]
timeformat = %H:%M
dateformat = %Y-%m-%d
longdateformat = %Y-%m-%d
datetimeformat = %Y-%m-%d %H:%M
longdatetimeformat = %Y-%m-%d %H:%M
local_timezone = UTC
default_timezone = UTC

[sqlite]
path = $work/khal.db
CONF
vds() { vdirsyncer -c "$work/vdirsyncer.conf" "$@" >>"$work/vdirsyncer.log" 2>&1; }
vds discover pub || fail "vdirsyncer discover: $(tail -5 "$work/vdirsyncer.log")"
vds sync || fail "vdirsyncer sync: $(tail -5 "$work/vdirsyncer.log")"

# compare FEED DIR: every VEVENT of the feed in exactly one file of DIR, equal to the feed's, and nothing else.
compare() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import glob, sys, icalendar
feed = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
want = {}
for e in feed.walk("VEVENT"):
    want.setdefault(str(e["UID"]), []).append(e.to_ical())
got = {}
for path in glob.glob(sys.argv[2] + "/*.ics"):
    uids = set()
    for e in icalendar.Calendar.from_ical(open(path, "rb").read()).walk("VEVENT"):
        got.setdefault(str(e["UID"]), []).append(e.to_ical())
        uids.add(str(e["UID"]))
    assert len(uids) == 1, (path, uids)
assert set(got) == set(want), sorted(set(got) ^ set(want))
for uid in want:
    assert sorted(got[uid]) == sorted(want[uid]), uid
print(len(glob.glob(sys.argv[2] + "/*.ics")))
PY
}
curl -s "$base/feeds/pub.ics" >"$work/pub.ics"
n=$(compare "$work/pub.ics" "$work/vdir/pub") || fail "the synced folder differs from the feed"
echo "vdirsyncer: $n files, exactly the feed's events"
(cd "$work/vdir/pub" && sha256sum -- *.ics) >"$work/before.sums"

# khal reads the folder.
khal -c "$work/khal.conf" search "Rust & Systems Programming Night" >"$work/khal1.out" 2>"$work/khal.log" ||
    fail "khal search: $(tail -3 "$work/khal.log")"
grep -q "Rust & Systems Programming Night" "$work/khal1.out" || fail "khal does not find the event in the folder"

# A change upstream and its webhook; the next sync changes that event's file only.
publish_change
vds sync || fail "vdirsyncer sync after the change: $(tail -5 "$work/vdirsyncer.log")"
curl -s "$base/feeds/pub.ics" >"$work/pub2.ics"
compare "$work/pub2.ics" "$work/vdir/pub" >/dev/null || fail "after the change the folder differs from the feed"
(cd "$work/vdir/pub" && sha256sum -- *.ics) >"$work/after.sums"
changed=$(diff "$work/before.sums" "$work/after.sums" | grep -c '^>')
gone=$(diff "$work/before.sums" "$work/after.sums" | grep -c '^<')
[ "$changed" = 1 ] && [ "$gone" = 1 ] || fail "the sync after one change rewrote $changed file(s) (and $gone before): $(diff "$work/before.sums" "$work/after.sums")"
[ "$(wc -l <"$work/after.sums")" = "$n" ] || fail "the folder has $(wc -l <"$work/after.sums") files after the change, not $n"
grep -l MOVED "$work/vdir/pub"/*.ics >/dev/null || fail "the changed file does not hold the change"
echo "vdirsyncer after one upstream change: 1 file changed, $((n - 1)) untouched"

khal -c "$work/khal.conf" search MOVED >"$work/khal2.out" 2>>"$work/khal.log" || fail "khal search: $(tail -3 "$work/khal.log")"
grep -q "Rust & Systems Programming Night MOVED" "$work/khal2.out" || fail "khal does not see the change: $(cat "$work/khal2.out")"
echo "khal: reads the folder, the change included"
stop_icsbridge
grep -q "$secret" "$work/serve.log" && fail "a secret is in the log"
echo ok
