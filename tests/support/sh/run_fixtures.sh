# File: run_fixtures.sh
# Starting the fake upstream and `icsbridge serve` from a test script and waiting until each listens.
# Source it; it defines functions only (and the defaults of test_name and fail_logs, which fail reads).

. "$(dirname "${BASH_SOURCE[0]}")/upstream_fixtures.sh"

# fail MESSAGE: ends the test: "FAIL [TEST_NAME]: MESSAGE" on stderr, then the tail of each file of
# $fail_logs that exists (names under $work, globs allowed). A script sets test_name (default: its file
# name) and fail_logs (default: serve.log) when it wants others.
test_name=$(basename "$0" .sh)
fail_logs=serve.log
fail() {
    echo "FAIL [$test_name]: $*" >&2
    local pattern f
    [ -n "${work:-}" ] || exit 1
    for pattern in $fail_logs; do
        for f in "$work"/$pattern; do
            [ -f "$f" ] && { echo "--- ${f#"$work"/} (tail):" >&2; tail -"${FAIL_TAIL:-30}" "$f" >&2; }
        done
    done
    exit 1
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

# server_toml STATE_DIR LISTEN [LINE...]: the [server] table (two threads, extra key lines) and [storage].
server_toml() {
    printf '[server]\nlisten = "%s"\npublic_url = "http://127.0.0.1:8080"\nthreads = 2\n' "$2"
    [ $# -le 2 ] || printf '%s\n' "${@:3}"
    printf '\n[storage]\ndir = "%s"\n' "$1"
}

# events_source_toml UPSTREAM [LINE...]: the [sources.eb] (events) table for the fake upstream, with extra
# key lines (e.g. 'budget = "20/m"').
events_source_toml() {
    printf '[sources.eb]\ntype = "events"\nbase_url = "%s"\ntoken = "demo-events-token"\n' "$1"
    shift
    [ $# -eq 0 ] || printf '%s\n' "$@"
}

# fake_sources_toml UPSTREAM: the [sources.eb] (events) and [sources.jobs] tables for the fake upstream.
fake_sources_toml() {
    events_source_toml "$1"
    printf '[sources.jobs]\ntype = "jobs"\nbase_url = "%s"\napi_key = "demo-jobs-key"\n' "$1"
}

# organizer_feed_toml NAME [LINE...]: a feed of the events source's organizer list, refreshed hourly and
# keeping every past fixture event, with extra key lines.
organizer_feed_toml() {
    printf '[feeds.%s]\nsource = "eb"\nselect = "organizer"\nrefresh = "1h"\nkeep_past = "3650d"\n' "$1"
    shift
    [ $# -eq 0 ] || printf '%s\n' "$@"
}

# wait_for_feeds PATH...: waits (up to 10 s each) until $base/feeds/PATH answers 200.
wait_for_feeds() {
    local f
    for f in "$@"; do
        for _ in $(seq 1 100); do
            [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/feeds/$f")" = 200 ] && break
            sleep 0.1
        done
    done
}

# need_chromium: sets chromium, or exits 77 (CTest skip) when it is not installed.
need_chromium() {
    chromium=$(command -v chromium || command -v chromium-browser || true)
    [ -n "$chromium" ] || { echo "chromium not installed: skipping"; exit 77; }
}
