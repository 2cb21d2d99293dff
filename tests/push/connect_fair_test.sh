#!/usr/bin/env bash
# File: connect_fair_test.sh
# Fair shares between connections (issue 27): every connection's requests share `[connect] rate` (here
# 1200/m, 20 a second) in turn. Ana connects a feed of 1,500 events; once her upload is under way, Bob
# connects a feed of 5. Bob's calendar must be in sync within seconds, long before Ana's upload can be done
# (about 75 s at that rate), instead of waiting behind her 1,500 writes; and the fake never sees more than
# the budget in one second.
#   connect_fair_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
fake=$2
src=$3
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
. "$src/tests/support/sh/bench_events.sh"
test_name=push.connect_fair
fail_logs="serve.log fake-google.err"
fail_skip="info GET \|info POST "
init_work

events_dir 1500 "$work/data"
start_fake_upstream "$fake" "$work" "$work/data" --page-size 200
port=$(free_port)
public=http://127.0.0.1:$port
start_fake_calendar_api google --client-secret fair-secret --redirect-uri "$public/connect/callback"
export TEST_CLIENT_SECRET=fair-secret
openssl rand -hex 32 >"$work/connect.key"
chmod 600 "$work/connect.key"
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:$port" "public_url = \"$public\"")
$(events_source_toml "$upstream" 'timeout = "10s"')

$(organizer_feed_toml big 'title = "Big"' 'max_items = 1000000')

$(organizer_feed_toml small 'title = "Small"' 'filter = { keywords = ["event #1 ", "event #2 ", "event #3 ", "event #4 ", "event #5 "] }')

[connect]
key_file = "$work/connect.key"
rate = "1200/m"
google = { client_id = "test-client", client_secret_env = "TEST_CLIENT_SECRET", api_base = "$api_base", auth_url = "$auth_url", token_url = "$token_url" }
TOML
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds big.ics small.ics

# connect FEED ACCOUNT: the flow as a browser follows it; prints the person's page.
connect() {
    local loc
    loc=$(curl -s -o /dev/null -w '%{redirect_url}' "$public/connect/google?feed=$1")
    loc=$(curl -s -o /dev/null -w '%{redirect_url}' "$loc&login_hint=$2")
    curl -s -o /dev/null -w '%{redirect_url}' "$loc"
}
in_sync() { curl -s "$1" | grep -q 'id="status"[^>]*>In sync<'; }

ana=$(connect big ana@example.org)
case "$ana" in "$public/connections/"*) ;; *) fail "ana's connect ended at $ana" ;; esac
for _ in $(seq 1 100); do
    [ "$(fake_state 'len(ours(cal("Big")))' account=ana@example.org 2>/dev/null || echo 0)" -ge 20 ] && break
    sleep 0.2
done
t0=$SECONDS
bob=$(connect small bob@example.org)
case "$bob" in "$public/connections/"*) ;; *) fail "bob's connect ended at $bob" ;; esac
for _ in $(seq 1 100); do in_sync "$bob" && break; sleep 0.2; done
in_sync "$bob" || fail "bob's 5 events were not in sync within 20 s of connecting, behind ana's upload"
waited=$((SECONDS - t0))
[ "$(fake_state 'len(ours(cal("Small")))' account=bob@example.org)" = 5 ] || fail "bob's calendar does not hold his 5 events"
ana_done=$(fake_state 'len(ours(cal("Big")))' account=ana@example.org)
[ "$ana_done" -lt 1500 ] || fail "ana's upload was already done: the test proves nothing"
in_sync "$ana" && fail "ana's page says In sync with $ana_done of 1500 events written"
busiest=$(fake_requests_per_second)
# 20 a second, and a second of the fake's clock may hold the edges of two of the budget's.
[ "$busiest" -le 25 ] || fail "the fake saw $busiest requests in one second: over the 20/s budget"
echo "bob in sync after ${waited} s while ana's upload stood at $ana_done of 1500; busiest second $busiest requests"
