#!/usr/bin/env bash
# File: connect_flow_test.sh
# The self-serve connect flow (issue 27) over HTTP, against the suite's fake of PROVIDER (google|microsoft)
# and a real `icsbridge serve`, each request as a browser would send it (curl). The steps, in order:
#   buttons    a token feed's page shows the provider's button only with its token (the link carries it);
#              /connect/PROVIDER for it without the token, or with another, is the same 404 as the feed
#   connect    ana connects the feed's 90-day view: 302 to the provider with a sealed state, PKCE and our
#              redirect URI; the callback lands on /connections/ID?key=SECRET (303); the calendar named
#              after the feed, in ana's account, holds exactly the view's events
#   replay     the same callback again: refused (400), nothing connected twice
#   forged     a state changed by one character, or made up, is refused (400); one sealed from outside with
#              the key file (seal_state.py) but 10 minutes old is refused as expired, a fresh one opens
#   key        a wrong management key, or an unknown id: the same 404; the right one: the page
#   sealed     the stored record holds the refresh token only sealed: opened with the key file (AES-256-GCM,
#              python3-cryptography) it is the live token at the provider; with another key it does not open
#   csrf       Disconnect without the CSRF token, or from another Origin: 403, the connection stays
#   revoked    bob connects too; his token is taken out of the config (SIGHUP): his page says so, and an
#              upstream change reaches ana's calendar but not his
#   disconnect ana disconnects (CSRF token from her page) without deleting: updates stop, the calendar stays,
#              the grant is revoked (Google; Microsoft has no revocation endpoint), the page is 404
#   rekey      bob's token back and a restart: his connection goes on ("In sync"); a restart with another
#              key file: his page says "Reconnect needed", nothing crashes
# No secret (tokens, keys, the client secret) and no account name in the log.
#   connect_flow_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR PROVIDER
set -u

bin=$1
fake=$2
src=$3
provider=$5
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
test_name=push.connect_flow.$provider
fail_logs="serve.log fake-$provider.log fake-$provider.err"
fail_skip="info GET \|info POST "
init_work

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
port=$(free_port)
public=http://127.0.0.1:$port
secret=fake-client-secret-$RANDOM$RANDOM
start_fake_calendar_api "$provider" --client-secret "$secret" --redirect-uri "$public/connect/callback"
export TEST_CLIENT_SECRET=$secret
export TEST_HOOK_SECRET=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
ana=club-token-ana-$RANDOM$RANDOM
bob=club-token-bob-$RANDOM$RANDOM
revoke=
[ "$provider" = google ] && revoke=", revoke_url = \"$fake_api_url/oauth/revoke\""

# club_config BOB_TOKEN_LINE: the config, with or without bob's token.
club_config() {
    write_config "$work/serve.toml" "$(server_toml "$work/state" "127.0.0.1:$port" "public_url = \"$public\"")" \
        "$(events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')" \
        "$(organizer_feed_toml club 'title = "Club nights"' "tokens = { ana = \"$ana\"$1 }")" \
        "[connect]
key_file = \"$work/connect.key\"
$provider = { client_id = \"test-client\", client_secret_env = \"TEST_CLIENT_SECRET\", api_base = \"$api_base\", auth_url = \"$auth_url\", token_url = \"$token_url\"$revoke }"
}
club_config ", bob = \"$bob\""
openssl rand -hex 32 >"$work/connect.key"
chmod 600 "$work/connect.key"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds "club.ics?token=$ana"
. "$src/tests/push/fakeapi/connect_steps.sh"

step_buttons
step_connect
step_replay_and_forged
step_key
step_sealed
step_csrf
step_revoked
step_disconnect
step_rekey
no_secrets_logged
echo "$test_name: ok"
