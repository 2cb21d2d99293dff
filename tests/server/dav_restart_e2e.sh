#!/usr/bin/env bash
# File: dav_restart_e2e.sh
# A CalDAV sync token outlives a restart (issue 36): python3-caldav syncs a collection of the real `icsbridge
# serve`; serve stops, its history is on disk beside the snapshot (NAME.davhistory), and the next run answers
# the old token with no change, then, after an upstream change and its webhook, with exactly the changed
# event. A history file that does not reach the snapshot (deleted here) makes the old token 403
# valid-sync-token after the next restart, so the client lists everything again rather than missing a change.
# A feed removed (by a reload, or while serve was stopped) and added back starts a new history: its old
# token is 403 too.
#   dav_restart_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/support/sh/dav_fixtures.sh"
init_work

dav_upstream
dav_config

start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics
caldav_sync "$base/dav/feeds/pub/" "" >"$work/first.out" || fail "python3-caldav (first listing): $(tail -5 "$work/caldav.log")"
token=$(sed -n 1p "$work/first.out")
count=$(sed -n 2p "$work/first.out")
[ "$count" -gt 0 ] || fail "the first listing has no items"
stop_icsbridge
[ -s "$work/state/pub.davhistory" ] || fail "no history beside the snapshot after a clean stop"
[ "$(stat -c %a "$work/state/pub.davhistory")" = 600 ] || fail "the history file is not owner-only"
echo "before the restart: $count items, token $token"

# 1. The next run, the upstream unchanged: the old token is valid and lists nothing.
start_icsbridge "$bin" "$work/serve.toml" "$work/serve2.log"
wait_for_feeds pub.ics
caldav_sync "$base/dav/feeds/pub/" "$token" >"$work/same.out" || fail "the token from before the restart was refused: $(tail -3 "$work/caldav.log")"
[ "$(sed -n 2p "$work/same.out")" = 0 ] || fail "after the restart, the old token lists $(sed -n 2p "$work/same.out") items"

# 2. A change upstream and its webhook: the old token lists exactly the changed event.
publish_change
caldav_sync "$base/dav/feeds/pub/" "$token" >"$work/change.out" || fail "the old token after the change: $(tail -3 "$work/caldav.log")"
[ "$(sed -n 2p "$work/change.out")" = 1 ] || fail "the old token lists $(sed -n 2p "$work/change.out") items, not the one change"
grep -q "MOVED" "$work/change.out" || fail "the item listed is not the changed event"
newer=$(sed -n 1p "$work/change.out")
echo "after the restart: the old token lists exactly the changed event"
stop_icsbridge

# 3. The history gone (a wiped storage.dir keeping only the snapshot): the old tokens are 403 valid-sync-token.
rm "$work/state/pub.davhistory"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve3.log"
wait_for_feeds pub.ics
body="<sync-collection xmlns=\"DAV:\"><sync-token>$newer</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>"
code=$(curl -s -o "$work/answer" -w '%{http_code}' -X REPORT -H 'Depth: 1' --data-binary "$body" "$base/dav/feeds/pub/")
[ "$code" = 403 ] || fail "a token from a wiped history answers $code, not 403"
grep -q valid-sync-token "$work/answer" || fail "the 403 does not say valid-sync-token"
stop_icsbridge

# 4. A feed removed by a reload takes its history along (NAME.davhistory); added back by the next reload, it
# starts a new epoch: the token from before is 403 valid-sync-token.
cp "$work/serve.toml" "$work/with_pub.toml"
sed 's/^\[feeds\.pub\]/[feeds.other]/' "$work/with_pub.toml" >"$work/without_pub.toml"
refused() { # refused TOKEN: the token's sync is 403 valid-sync-token
    local body="<sync-collection xmlns=\"DAV:\"><sync-token>$1</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>"
    [ "$(curl -s -o "$work/answer" -w '%{http_code}' -X REPORT -H 'Depth: 1' --data-binary "$body" "$base/dav/feeds/pub/")" = 403 ] &&
        grep -q valid-sync-token "$work/answer"
}
reload_with() { # reload_with CONFIG N: SIGHUP with CONFIG in place, then waits for the N-th reload
    cp "$1" "$work/serve.toml"
    hup_and_wait "$2" "$work/serve4.log"
}
start_icsbridge "$bin" "$work/serve.toml" "$work/serve4.log"
wait_for_feeds pub.ics
caldav_sync "$base/dav/feeds/pub/" "" >"$work/fourth.out" || fail "python3-caldav (fourth run): $(tail -3 "$work/caldav.log")"
token=$(sed -n 1p "$work/fourth.out")
reload_with "$work/without_pub.toml" 1
[ -e "$work/state/pub.davhistory" ] && fail "the removed feed's history is still beside its snapshot"
reload_with "$work/with_pub.toml" 2
wait_for_feeds pub.ics
refused "$token" || fail "a feed added back accepts its old token (answer $(head -c 200 "$work/answer"))"
echo "removed and added back by reloads: the old token is refused"
caldav_sync "$base/dav/feeds/pub/" "" >"$work/fifth.out" || fail "python3-caldav (fifth run): $(tail -3 "$work/caldav.log")"
token=$(sed -n 1p "$work/fifth.out")
stop_icsbridge

# 5. Removed while serve was stopped: the next start (without it) drops its history; added back, its old
# token is refused too.
[ -s "$work/state/pub.davhistory" ] || fail "no history beside the snapshot after the fifth run"
cp "$work/without_pub.toml" "$work/serve.toml"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve5.log"
wait_for_feeds other.ics
stop_icsbridge
[ -e "$work/state/pub.davhistory" ] && fail "a start without the feed keeps its history"
cp "$work/with_pub.toml" "$work/serve.toml"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve6.log"
wait_for_feeds pub.ics
refused "$token" || fail "a feed added back while stopped accepts its old token"
echo "removed while stopped and added back: the old token is refused"
stop_icsbridge
grep -q "$secret" "$work"/serve*.log && fail "a secret is in the log"
echo ok
