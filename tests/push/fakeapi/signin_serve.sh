# File: signin_serve.sh
# start_signin_serve (sourced by connect_caps_test.sh and deploy/bench-signin.sh; run_fixtures.sh first,
# init_work done, $fake and $src set): the fake upstream and `serve` with the public feed `pub` and a
# [connect] google client whose endpoints are never reached (a sign-in only begins, and ends refused, so
# nothing is traded). Extra [server] lines as arguments. Sets port, public (http://127.0.0.1:PORT), serve_pid.
start_signin_serve() {
    cp -r "$src/tests/fixtures/upstream" "$work/data"
    start_fake_upstream "$fake" "$work" "$work/data"
    port=$(free_port)
    public=http://127.0.0.1:$port
    openssl rand -hex 32 >"$work/connect.key"
    chmod 600 "$work/connect.key"
    cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:$port" "public_url = \"$public\"" "$@")
$(events_source_toml "$upstream" 'timeout = "5s"')

$(organizer_feed_toml pub 'title = "Club nights"')

[connect]
key_file = "$work/connect.key"
google = { client_id = "test-client", client_secret = "s", auth_url = "https://accounts.example/auth", token_url = "https://accounts.example/token" }
TOML
    start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
    wait_for_feeds pub.ics
}
