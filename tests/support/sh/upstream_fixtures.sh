# File: upstream_fixtures.sh
# Shell pieces for scripts that run the fake upstream as a process. Source it; it defines functions only.
# The caller owns the cleanup: it kills "$fake_pid" (set here) in its EXIT trap.

# launch_fake_upstream FAKE_BINARY WORKDIR [ARGS...]: starts the fake on a free port, waits until it
# listens, and sets fake_pid and upstream (its http://127.0.0.1:PORT). Returns 1 if it did not start.
launch_fake_upstream() {
    local bin=$1 dir=$2 line
    shift 2
    rm -f "$dir/fake-ready"
    mkfifo "$dir/fake-ready"
    "$bin" --port 0 "$@" >"$dir/fake-ready" 2>"$dir/fake.log" &
    fake_pid=$!
    read -r -t 30 line <"$dir/fake-ready" || return 1
    upstream="${line#listening on }"
    case "$upstream" in http://127.0.0.1:*) return 0 ;; *) return 1 ;; esac
}

# stop_fake_upstream: stops the fake started above, if any.
stop_fake_upstream() {
    if [ -n "${fake_pid:-}" ]; then
        kill -TERM "$fake_pid" 2>/dev/null
        wait "$fake_pid" 2>/dev/null
        fake_pid=
    fi
}
