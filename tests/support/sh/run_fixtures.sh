# File: run_fixtures.sh
# Starting the fake upstream and `icsbridge serve` from a test script and waiting until each listens.
# Source it; it defines functions only (and the defaults of test_name and fail_logs, which fail reads).

. "$(dirname "${BASH_SOURCE[0]}")/upstream_fixtures.sh"

# fail MESSAGE: ends the test: "FAIL [TEST_NAME]: MESSAGE" on stderr, then the last $fail_tail lines (30;
# FAIL_TAIL overrides) of each file of $fail_logs that exists (names under $work, globs allowed), without the
# lines matching $fail_skip (a grep pattern; none by default). A script sets test_name (default: its file
# name), fail_logs (default: serve.log), fail_tail and fail_skip when it wants others. This is the one fail
# of the shell tests: none defines its own.
test_name=$(basename "$0" .sh)
fail_logs=serve.log
fail_tail=30
fail_skip=
fail() {
    echo "FAIL [$test_name]: $*" >&2
    local pattern f
    [ -n "${work:-}" ] || exit 1
    for pattern in $fail_logs; do
        for f in "$work"/$pattern; do
            [ -f "$f" ] || continue
            echo "--- ${f#"$work"/} (tail):" >&2
            if [ -n "$fail_skip" ]; then grep -v -- "$fail_skip" "$f"; else cat "$f"; fi | tail -"${FAIL_TAIL:-$fail_tail}" >&2
        done
    done
    exit 1
}

# free_port: a TCP port on 127.0.0.1 that nothing listens on right now, for a server that must be told its
# port before it starts (nginx, a `serve` whose public_url names it, a port that is closed on purpose).
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# etag_of BASE [FEED]: the ETag BASE serves for FEED (default pub).
etag_of() { curl -s -D - -o /dev/null "$1/feeds/${2:-pub}.ics" | tr -d '\r' | grep -i '^etag:' | cut -d' ' -f2; }

# write_config FILE PART...: the config FILE made of the TOML PARTs (what server_toml, events_source_toml,
# feed_toml and the like print, or tables written out), a blank line between two. A test wraps it in a
# function of its own for the configs it varies.
write_config() {
    local file=$1 part sep=
    shift
    for part in "$@"; do
        printf '%s%s\n' "$sep" "$part"
        sep=$'\n'
    done >"$file"
}

# start_fake_upstream FAKE WORK DATA [ARGS...]: the fake upstream on a free port serving DATA; sets fake_pid
# and upstream (http://127.0.0.1:PORT), or fails the test.
start_fake_upstream() {
    launch_fake_upstream "$1" "$2" --data "$3" "${@:4}" || fail "the fake upstream did not start"
}

# changed_fixtures SRC DIR: a copy of SRC's upstream fixtures in DIR with one event renamed ("... MOVED"), for
# a test that needs the upstream to change (POST /__control/reload?dir=DIR).
changed_fixtures() {
    cp -r "$1/tests/fixtures/upstream" "$2"
    sed -i '0,/Rust & Systems Programming Night/s//Rust \& Systems Programming Night MOVED/' "$2/events/events.json"
}

# start_icsbridge BIN CONFIG LOG: `serve` with CONFIG (listen on port 0), stderr to LOG; sets serve_pid and
# base (http://127.0.0.1:PORT) once it listens.
start_icsbridge() {
    : >"$3" # now, so the loop below cannot read a previous serve's port from a reused log
    "$1" serve --config "$2" 2>"$3" &
    serve_pid=$!
    base=
    for _ in $(seq 1 300); do
        base=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$3" | head -1 | sed 's/listening on //')
        [ -n "$base" ] && return 0
        kill -0 "$serve_pid" 2>/dev/null || fail "serve exited early"
        sleep 0.1
    done
    fail "serve did not start listening"
}

# start_webpush_receiver SOURCE_DIR OUT [OPTION...]: tests/support/webpush_receiver.py (a Web Push service) on a free
# port, its output in OUT; sets push (http://127.0.0.1:PORT) once it listens, or fails the test. Stopped at exit.
start_webpush_receiver() {
    /usr/bin/python3 "$1/tests/support/webpush_receiver.py" "${@:3}" >"$2" 2>"${2%.out}.log" &
    extra_pids+=($!)
    push=
    for _ in $(seq 1 100); do
        push=$(grep -o 'http://127.0.0.1:[0-9]*' "$2" | head -1)
        [ -n "$push" ] && return 0
        sleep 0.1
    done
    fail "the push service did not start"
}

# stop_icsbridge: SIGTERM to serve_pid; fails the test unless serve exits 0 (it must, on SIGTERM).
stop_icsbridge() {
    kill -TERM "$serve_pid"
    wait "$serve_pid"
    local rc=$?
    serve_pid=
    [ "$rc" -eq 0 ] || fail "serve exited with $rc after SIGTERM"
}

# hup_and_wait N [LOG]: SIGHUP to serve_pid (a reload), then waits up to 10 s for the N-th "reloaded" or
# "reload refused" line in LOG ($work/serve.log); fails the test when none comes.
hup_and_wait() {
    kill -HUP "$serve_pid"
    for _ in $(seq 1 100); do
        [ "$(grep -c 'reloaded:\|reload refused' "${2:-$work/serve.log}")" -ge "$1" ] && return 0
        sleep 0.1
    done
    fail "no reload logged after SIGHUP"
}

# init_work: a new temporary directory in $work, removed at exit after serve_pid, fake_pid (when set) and
# every pid in the extra_pids array (a second fake, a second server) are stopped.
init_work() {
    work=$(mktemp -d)
    serve_pid=
    fake_pid=
    extra_pids=()
    trap stop_and_clean EXIT
}
stop_and_clean() {
    local pid
    for pid in $serve_pid $fake_pid "${extra_pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    rm -rf "$work"
}

# A config from a few keys: each function below writes one TOML table from its defaults and the key lines a
# test gives (`'timeout = "5s"'`); a line for a key the defaults have replaces that default.

# toml_table NAME DEFAULT_LINE... [-- LINE...]: [NAME], each DEFAULT_LINE whose key no LINE sets, the LINEs.
toml_table() {
    local name=$1 defaults=() d l
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do defaults+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    printf '[%s]\n' "$name"
    for d in "${defaults[@]}"; do
        for l in "$@"; do [ "${l%%[ =]*}" = "${d%%[ =]*}" ] && continue 2; done
        printf '%s\n' "$d"
    done
    [ $# -eq 0 ] || printf '%s\n' "$@"
}

# server_toml STATE_DIR LISTEN [LINE...]: the [server] table (public_url http://127.0.0.1:8080, two threads)
# and [storage].
server_toml() {
    toml_table server "listen = \"$2\"" 'public_url = "http://127.0.0.1:8080"' 'threads = 2' -- "${@:3}"
    printf '\n[storage]\ndir = "%s"\n' "$1"
}

# events_source_toml UPSTREAM [LINE...]: the [sources.eb] (events) table for the fake upstream.
events_source_toml() {
    toml_table sources.eb 'type = "events"' "base_url = \"$1\"" 'token = "demo-events-token"' -- "${@:2}"
}

# jobs_source_toml UPSTREAM [LINE...]: the [sources.jobs] table for the fake upstream.
jobs_source_toml() {
    toml_table sources.jobs 'type = "jobs"' "base_url = \"$1\"" 'api_key = "demo-jobs-key"' -- "${@:2}"
}

# fake_sources_toml UPSTREAM [LINE...]: the [sources.eb] (events) and [sources.jobs] tables for the fake
# upstream, both with the extra key lines.
fake_sources_toml() {
    events_source_toml "$@"
    echo
    jobs_source_toml "$@"
}

# feed_toml NAME SOURCE SELECT [LINE...]: a [feeds.NAME] table.
feed_toml() {
    toml_table "feeds.$1" "source = \"$2\"" "select = \"$3\"" -- "${@:4}"
}

# organizer_feed_toml NAME [LINE...]: a feed of the events source's organizer list, refreshed hourly and
# keeping every past fixture event.
organizer_feed_toml() {
    toml_table "feeds.$1" 'source = "eb"' 'select = "organizer"' 'refresh = "1h"' 'keep_past = "3650d"' -- "${@:2}"
}

# wait_for_url URL [SECONDS [STATUS]]: waits (about SECONDS, default 10; each try at most 5 s) until URL
# answers STATUS (200); returns 1 if it never did, with the last status in $last_status.
wait_for_url() {
    local i
    for i in $(seq 1 $((${2:-10} * 10))); do
        last_status=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$1")
        [ "$last_status" = "${3:-200}" ] && return 0
        sleep 0.1
    done
    return 1
}

# wait_for_feeds PATH...: waits (up to 10 s each) until $base/feeds/PATH answers 200.
wait_for_feeds() {
    local f
    for f in "$@"; do wait_for_url "$base/feeds/$f" || :; done
}

# skip_or_fail WHY: exits 77 (CTest skip) saying WHY; under ICSBRIDGE_REQUIRE_ALL=1 (deploy/test.sh, so CI runs
# every test) fails the test instead.
skip_or_fail() {
    [ "${ICSBRIDGE_REQUIRE_ALL:-0}" = 1 ] && fail "$1, and ICSBRIDGE_REQUIRE_ALL=1 (deploy/install-deps.sh installs it)"
    echo "$1: skipping"
    exit 77
}

# need_chromium: sets chromium, or skips (skip_or_fail) when it is not installed.
need_chromium() {
    chromium=$(command -v chromium || command -v chromium-browser || true)
    [ -n "$chromium" ] || skip_or_fail "chromium not installed"
}

# need_python_module MODULE PACKAGE: skips (skip_or_fail) unless /usr/bin/python3 can import MODULE.
need_python_module() {
    /usr/bin/python3 -c "import $1" 2>/dev/null || skip_or_fail "$2 not installed"
}
