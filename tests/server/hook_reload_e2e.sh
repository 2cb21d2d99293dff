#!/usr/bin/env bash
# File: hook_reload_e2e.sh
# A webhook, then a reload (SIGHUP) while the hook waits out its delay (500 ms): the hooked change is served
# within 5 s, not at the feed's next scheduled refresh (an hour away). The reload's new refreshers take on
# what the old ones had pending, and its pipeline keeps the last answer of the unchanged source, so the
# change comes as a patch (a read of the one event) and no list is read. Three rounds, the upstream flipping
# between two versions.
#   hook_reload_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=hook_reload_e2e
init_work

secret=hr-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
cp -r "$src/tests/fixtures/upstream" "$work/data"
changed_fixtures "$src" "$work/changed"
start_fake_upstream "$fake" "$work" "$work/data"
export TEST_HOOK_SECRET=$secret
write_config "$work/serve.toml" \
    "$(server_toml "$work/state" "127.0.0.1:0")" \
    "$(events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')" \
    "$(organizer_feed_toml pub)"
cat >"$work/hook.json" <<JSON
{"api_url": "$upstream/v3/events/788216780592/",
 "config": {"action": "event.updated", "user_id": "1296715565", "webhook_id": "4411", "endpoint_url": "x"}}
JSON
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# list_reads: requests for the organizer list since the last clear (the first page of each list read)
list_reads() {
    curl -s "$upstream/__control/requests" | /usr/bin/python3 -c '
import json, sys
print(sum(1 for r in json.load(sys.stdin) if r["path"] == "/v3/users/me/events/"
          and not any(k in ("page", "continuation") for k, _ in r["query"])))'
}

start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics
sleep 3.5 # past the first refresh's hook gap

rounds=0
tries=0
version=changed
while [ "$rounds" -lt 3 ]; do
    tries=$((tries + 1))
    [ "$tries" -le 8 ] || fail "only $rounds of 3 reloads came within the hook delay in $((tries - 1)) tries"
    before=$(etag_of "$base")
    [ -n "$before" ] || fail "the feed is not served"
    curl -s -X POST "$upstream/__control/reload?dir=$work/$version" >/dev/null
    curl -s -X POST "$upstream/__control/clear_requests" >/dev/null
    reloads=$(grep -c 'reloaded:' "$work/serve.log")
    sent=$(now_ms)
    code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary "@$work/hook.json" "$base/hooks/eb/$secret")
    [ "$code" = 202 ] || fail "the hook was answered $code"
    kill -HUP "$serve_pid"
    until [ "$(grep -c 'reloaded:' "$work/serve.log")" -gt "$reloads" ]; do
        [ $(($(now_ms) - sent)) -lt 10000 ] || fail "no reload logged after SIGHUP"
        sleep 0.01
    done
    applied=$(($(now_ms) - sent))
    after=$before
    while [ "$after" = "$before" ] && [ $(($(now_ms) - sent)) -lt 8000 ]; do
        sleep 0.05
        after=$(etag_of "$base")
    done
    took=$(($(now_ms) - sent))
    # A reload seen later than the hook's delay may have come after the patch: that round proves nothing.
    if [ "$applied" -gt 400 ]; then
        echo "reload applied $applied ms after the hook (past its delay): round not counted"
        sleep 3.5
        continue
    fi
    [ "$after" != "$before" ] || fail "a hook followed by a reload within its delay was lost (no new ETag in 8 s)"
    [ "$took" -le 5000 ] || fail "the hooked change took $took ms after a reload (over 5 s)"
    if [ "$version" = changed ]; then
        curl -s "$base/feeds/pub.ics" | grep -q "MOVED" || fail "the new ETag does not serve the changed event"
        version=data
    else
        curl -s "$base/feeds/pub.ics" | grep -q "MOVED" && fail "the new ETag still serves the old event"
        version=changed
    fi
    lists=$(list_reads)
    [ "$lists" = 0 ] || fail "the hooked change after a reload read the list $lists time(s) (want a patch)"
    rounds=$((rounds + 1))
    echo "round $rounds: reload applied $applied ms after the hook, change served after $took ms, no list read"
done
stop_icsbridge
echo "PASS [hook_reload_e2e]"
