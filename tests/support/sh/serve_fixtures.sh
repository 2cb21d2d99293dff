# File: serve_fixtures.sh
# Shell pieces shared by the scripts that run `icsbridge serve` from pre-made snapshots next to nginx
# (tests/deploy/nginx_test.sh, deploy/bench-serve.sh). Source it; it defines functions only.

# offline_source: TOML for the events source "eb" on a dead port, so refreshes fail and the snapshots in
# storage.dir are what is served.
offline_source() {
    cat <<TOML
[sources.eb]
type = "events"
base_url = "http://127.0.0.1:9"
token = "x"
timeout = "1s"
TOML
}

# nginx_temp_paths DIR: http-block lines that keep an unprivileged nginx's temp files in DIR.
nginx_temp_paths() {
    local kind
    for kind in client_body proxy fastcgi uwsgi scgi; do
        echo "    ${kind}_temp_path $1;"
    done
}

# offline_feed NAME SELECT: a feed of the offline source that is served from its snapshot all day.
offline_feed() {
    printf '[feeds.%s]\nsource = "eb"\nselect = "%s"\nrefresh = "1d"\n' "$1" "$2"
}

# wait_listening LOG PID: waits (up to 30 s) until `serve` (PID, logging to LOG) says where it listens;
# prints http://127.0.0.1:PORT. Fails (status 1) if it exits or never says.
wait_listening() {
    local base
    for _ in $(seq 1 300); do
        base=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$1" | head -1 | sed 's/listening on //')
        [ -n "$base" ] && { echo "$base"; return 0; }
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
