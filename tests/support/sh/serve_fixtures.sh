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
