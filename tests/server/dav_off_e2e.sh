#!/usr/bin/env bash
# File: dav_off_e2e.sh
# `[dav] enabled = false` with the real `icsbridge serve`: no CalDAV tree (/.well-known/caldav, /dav/ and a
# feed's collection answer as any unknown path) while the .ics is served as before; and a feed's `color`
# reaches its collection's calendar-color when the tree is on.
#   dav_off_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
init_work

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
config() { # config ENABLED
    cat <<TOML
$(server_toml "$work/state" "127.0.0.1:0")

[dav]
enabled = $1

$(events_source_toml "$upstream" 'timeout = "5s"')

$(organizer_feed_toml pub 'title = "Public meetups"' 'color = "#3a7bd5"')
TOML
}
status() { curl -s -o "$work/answer" -w '%{http_code}' "$@"; }
colour='<D:propfind xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/"><D:prop><A:calendar-color/></D:prop></D:propfind>'

config false >"$work/off.toml"
start_icsbridge "$bin" "$work/off.toml" "$work/serve.log"
wait_for_feeds pub.ics
[ "$(status "$base/feeds/pub.ics")" = 200 ] || fail "the .ics is not served with [dav] enabled = false"
[ "$(status "$base/.well-known/caldav")" = 404 ] || fail "/.well-known/caldav is not 404 with the tree off"
[ "$(status -X PROPFIND -H 'Depth: 0' "$base/dav/")" != 207 ] || fail "PROPFIND /dav/ answers with the tree off"
[ "$(status -X PROPFIND -H 'Depth: 0' "$base/dav/feeds/pub/")" != 207 ] || fail "the collection answers with the tree off"
stop_icsbridge

config true >"$work/on.toml"
start_icsbridge "$bin" "$work/on.toml" "$work/serve.log"
wait_for_feeds pub.ics
[ "$(status -X PROPFIND -H 'Depth: 0' --data-binary "$colour" "$base/dav/feeds/pub/")" = 207 ] ||
    fail "PROPFIND on the collection is not 207"
grep -q '<A:calendar-color>#3A7BD5</A:calendar-color>' "$work/answer" || fail "no calendar-color: $(cat "$work/answer")"
stop_icsbridge
echo ok
