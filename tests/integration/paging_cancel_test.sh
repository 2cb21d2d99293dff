#!/usr/bin/env bash
# File: paging_cancel_test.sh
# Issue 29, defect 1: a refresh cancelled while its parallel page requests are out (a SIGHUP reload,
# fetch_timeout) must not leave them running on the freed client (under the sanitizer build ASan reports
# it); and `export` honours fetch_timeout as `serve` does.
#   paging_cancel_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u
bin=$1
fake=$2
. "$3/tests/support/sh/run_fixtures.sh"
fail_tail=40
init_work

# 40 pages of 50 at 0.4 s each: the refresh takes ~8 s with 2 requests in flight.
start_fake_upstream "$fake" "$work" "$3/tests/fixtures/upstream" --generate-events 2000 --page-size 50 \
    --latency-ms 400 --threads 4

# big_feed_config [FEED LINE...]: one paged organizer feed ("big"), extra key lines for it.
big_feed_config() {
    write_config "$work/c.toml" \
        "$(server_toml "$work/state" "127.0.0.1:0")" \
        "$(events_source_toml "$upstream" "max_concurrency = 2")" \
        "$(organizer_feed_toml big "$@")"
    chmod 600 "$work/c.toml"
}

# stop_serve SECONDS: SIGTERM, and serve must be gone within SECONDS, exiting 0 with no sanitizer report.
stop_serve() {
    kill -TERM "$serve_pid"
    local i
    for i in $(seq 1 $(($1 * 10))); do
        kill -0 "$serve_pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$serve_pid" 2>/dev/null; then
        kill -9 "$serve_pid"
        fail "serve did not stop within $1 s of SIGTERM"
    fi
    wait "$serve_pid"
    local rc=$?
    serve_pid=
    grep -q 'Sanitizer' "$work/serve.log" && fail "sanitizer report"
    [ "$rc" = 0 ] || fail "serve exited $rc"
}

# wait_log PATTERN SECONDS: until serve's log has PATTERN.
wait_log() {
    local i
    for i in $(seq 1 $(($2 * 10))); do
        grep -q "$1" "$work/serve.log" && return 0
        sleep 0.1
    done
    fail "no '$1' in the log within $2 s"
}

echo "== export honours fetch_timeout as serve does"
big_feed_config 'fetch_timeout = "2s"'
started=$(date +%s)
"$bin" export --config "$work/c.toml" --feed big --output "$work/big.ics" 2>"$work/export.err"
rc=$?
took=$(($(date +%s) - started))
[ "$rc" != 0 ] || fail "export of an 8 s refresh succeeded with fetch_timeout = 2s"
grep -q 'fetch_timeout = 2s' "$work/export.err" || fail "export error does not name fetch_timeout: $(cat "$work/export.err")"
grep -q 'Sanitizer' "$work/export.err" && fail "sanitizer report from export: $(cat "$work/export.err")"
[ "$took" -le 4 ] || fail "export took ${took}s with fetch_timeout = 2s"
[ ! -e "$work/big.ics" ] || fail "export wrote a file after timing out"

echo "== one SIGHUP 3 s into a 40-page refresh"
big_feed_config
start_icsbridge "$bin" "$work/c.toml" "$work/serve.log"
sleep 3
kill -HUP "$serve_pid"
wait_log 'reloaded' 10
sleep 2 # the cancelled requests' answers would arrive now
stop_serve 10

echo "== fetch_timeout = 2s cancels the refresh"
rm -rf "$work/state"
big_feed_config 'fetch_timeout = "2s"'
start_icsbridge "$bin" "$work/c.toml" "$work/serve.log"
wait_log 'fetch_timeout' 10
sleep 2
stop_serve 10

echo "== SIGHUP every 0.3 s for 20 s during paged refreshes"
rm -rf "$work/state"
big_feed_config
start_icsbridge "$bin" "$work/c.toml" "$work/serve.log"
sleep 1
for _ in $(seq 1 66); do
    kill -HUP "$serve_pid" || fail "serve died during the SIGHUP flood"
    sleep 0.3
done
# A reload still applies: a second feed is added.
big_feed_config
organizer_feed_toml small >>"$work/c.toml"
sleep 1
kill -HUP "$serve_pid"
wait_log '1 feed(s) added' 10
stop_serve 10
echo "ok"
