#!/usr/bin/env bash
# File: dav_restart_e2e.sh
# A CalDAV sync token outlives a restart (issue 36): python3-caldav syncs a collection of the real `icsbridge
# serve`; serve stops, its history is on disk beside the snapshot (NAME.davhistory), and the next run answers
# the old token with no change, then, after an upstream change and its webhook, with exactly the changed
# event. A history file that does not reach the snapshot (deleted here) makes the old token 403
# valid-sync-token after the next restart, so the client lists everything again rather than missing a change.
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
grep -q "$secret" "$work"/serve*.log && fail "a secret is in the log"
echo ok
