#!/usr/bin/env bash
# File: serve_threads_test.sh
# `serve` renders a long list's pages on worker threads while the next ones arrive (PrerenderPool) and the
# calendar after the last page on another thread, as `export` does, while the control thread goes on with
# webhooks and reloads and the HTTP threads answer agenda pages in many zones (libical's zone cache is
# process-wide; its races once wrote events an hour off). Six refreshes of 2,000 events, each started by a
# reload, with webhooks patching two other feeds and agenda pages in rotating zones meanwhile: every
# publication of the big feed is byte-identical to `icsbridge export` of it, hooks patch both small feeds,
# every page answers, nothing in the log fails. The sanitizer suite runs it too.
#   serve_threads_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=serve_threads
fail_logs="serve.log fake.log"
init_work

# Each page takes 300 ms, so a refresh lasts seconds however fast the machine: long enough for several hooks
# a round (after a reload the first hook refreshes the small feeds; the next ones patch).
launch_fake_upstream "$fake" "$work" --generate-events 2000 --page-size 100 --description-bytes 300 --latency-ms 300 ||
    fail "the big upstream did not start"
big_upstream=$upstream
extra_pids+=("$fake_pid")
mkdir "$work/small"
launch_fake_upstream "$fake" "$work/small" --data "$src/tests/fixtures/upstream" || fail "the small upstream did not start"
small_upstream=$upstream
cp -r "$src/tests/fixtures/upstream" "$work/data0"
changed_fixtures "$src" "$work/data1"

secret=st-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export TEST_HOOK_SECRET=$secret
# threads_config ROUND: the big feed's title names the round, so each reload fetches it again at once.
threads_config() {
    write_config "$work/serve.toml" \
        "$(server_toml "$work/state" 127.0.0.1:0)" \
        "$(toml_table sources.big 'type = "events"' "base_url = \"$big_upstream\"" 'token = "demo-events-token"' \
            'timeout = "30s"')" \
        "$(toml_table sources.small 'type = "events"' "base_url = \"$small_upstream\"" 'token = "demo-events-token"' \
            'webhook_secret_env = "TEST_HOOK_SECRET"')" \
        "$(toml_table feeds.big 'source = "big"' 'select = "organizer"' 'keep_past = "0s"' "title = \"Big, round $1\"")" \
        "$(toml_table feeds.one 'source = "small"' 'select = "organizer"' 'keep_past = "3650d"')" \
        "$(toml_table feeds.two 'source = "small"' 'select = "organizer"' 'keep_past = "3000d"')"
    chmod 600 "$work/serve.toml"
}

hook() {
    curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' --data-binary "@$work/hook.json" \
        "$base/hooks/small/$secret"
}
cat >"$work/hook.json" <<JSON
{"api_url": "$small_upstream/v3/events/788216780592/",
 "config": {"action": "event.updated", "user_id": "1296715565", "webhook_id": "4411", "endpoint_url": "x"}}
JSON
big_published() { grep -c 'feed big: 2000 items' "$work/serve.log"; }
zones=(Europe/Berlin Asia/Tokyo America/New_York Australia/Lord_Howe Asia/Kolkata America/St_Johns Pacific/Chatham UTC)

threads_config 0
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds one.ics two.ics
wait_for_url "$base/feeds/big.ics" 120 || fail "the big feed was not served"
flip=0
pages=0
for round in 1 2 3 4 5 6; do
    done_before=$(big_published)
    threads_config "$round"
    kill -HUP "$serve_pid"
    # While the big feed refreshes: hooks for the small feeds (a change each time), agenda pages in zones.
    started=$(date +%s)
    while [ "$(big_published)" -le "$done_before" ]; do
        [ $(($(date +%s) - started)) -lt 120 ] || fail "round $round: the big feed was not published within 120 s"
        flip=$((1 - flip))
        curl -s -X POST "$small_upstream/__control/reload?dir=$work/data$flip" >/dev/null
        [ "$(hook)" = 202 ] || fail "round $round: a hook was refused"
        for feed in big one; do
            zone=${zones[$(( (pages + round) % ${#zones[@]} ))]}
            code=$(curl -s -o "$work/page.html" -w '%{http_code}' "$base/feeds/$feed.html?tz=$zone")
            [ "$code" = 200 ] || fail "round $round: $feed.html?tz=$zone answered $code"
            pages=$((pages + 1))
        done
        sleep 0.2
    done
    curl -s -o "$work/served.ics" "$base/feeds/big.ics" || fail "round $round: big.ics did not answer"
    "$bin" export --config "$work/serve.toml" --feed big >"$work/export.ics" 2>"$work/export.err" ||
        fail "round $round: export failed: $(cat "$work/export.err")"
    cmp -s "$work/served.ics" "$work/export.ics" ||
        fail "round $round: serve published other bytes than export: $(diff "$work/served.ics" "$work/export.ics" | head -4)"
    grep -q "Big, round $round" "$work/served.ics" || fail "round $round: the served big feed is not this round's"
done
# The hooks were read as patches, on both small feeds (after each reload the first hook refreshes instead,
# and hooks' refreshes are capped per minute, so not every hook is served at once). A round can end before
# its patch is due: then hooks go on, without reloads, until each feed was patched (at most 30 s).
patched_both() { [ "$(grep -c 'feed one: .* changed (patched)' "$work/serve.log")" -ge 1 ] &&
    [ "$(grep -c 'feed two: .* changed (patched)' "$work/serve.log")" -ge 1 ]; }
started=$(date +%s)
until patched_both || [ $(($(date +%s) - started)) -ge 30 ]; do
    flip=$((1 - flip))
    curl -s -X POST "$small_upstream/__control/reload?dir=$work/data$flip" >/dev/null
    [ "$(hook)" = 202 ] || fail "a hook after the rounds was refused"
    sleep 1
done
for feed in one two; do
    patched=$(grep -c "feed $feed: .* changed (patched)" "$work/serve.log")
    [ "$patched" -ge 1 ] || fail "no hook patched $feed"
    curl -s "$base/feeds/$feed.ics" | grep -q "Rust & Systems Programming Night" || fail "$feed.ics lost the hooked event"
done
kill -0 "$serve_pid" || fail "serve died"
grep -E '(refresh failed|error|fail)' "$work/serve.log" | grep -v 'SIGHUP' && fail "the log reports a failure"
echo "PASS [server.serve_threads]: 6 refreshes of 2000 events on worker threads, byte-identical to export, with $pages agenda pages in rotating zones and hooks patching two other feeds ($(grep -c "changed (patched)" "$work/serve.log") patches) meanwhile"
