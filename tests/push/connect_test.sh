#!/usr/bin/env bash
# File: connect_test.sh
# `icsbridge connect` (issue 26) end to end against the fake OAuth servers of fake_calendar_api.py, for both
# providers: the printed URL followed with curl (the fake approves at once and redirects to connect's
# loopback listener), then the stored token (0600, a refresh token the fake takes, no access token) and
# nothing secret in what connect printed. Also: a second connect (Google sends a refresh token again only
# with prompt=consent), a client secret from client_secret_env (and a wrong one refused), an answer with a
# forged state refused while connect goes on waiting, a refused sign-in, --timeout with nobody coming, and
# the targets connect does not take. `check` reports each target's connection.
#   connect_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u
bin=$1 src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
test_name=push.connect
fail_logs="fake-*.err connect-*.out connect-*.err"
init_work

office_secret=office-client-secret-7431
start_fake_calendar_api google
google_url=$fake_api_url
start_fake_calendar_api microsoft --client-secret "$office_secret"
office_url=$fake_api_url

# oauth_target NAME PROVIDER FAKE_URL [LINE...]: a [targets.NAME] table pointing at that fake.
oauth_target() {
    local api=$3/calendar/v3
    [ "$2" = microsoft ] && api=$3/v1.0
    toml_table "targets.$1" "type = \"$2\"" 'client_id = "test-client"' 'calendar = "Eventbrite"' \
        "api_base = \"$api\"" "auth_url = \"$3/oauth/authorize\"" "token_url = \"$3/oauth/token\"" -- "${@:4}"
    echo
}
cfg=$work/config.toml
{
    printf '[storage]\ndir = "%s"\n\n' "$work/state"
    oauth_target work google "$google_url"
    oauth_target office microsoft "$office_url" 'client_secret_env = "OFFICE_SECRET"'
    oauth_target wrongsecret microsoft "$office_url" 'client_secret = "not-the-secret"'
    toml_table targets.family 'type = "caldav"' 'url = "http://127.0.0.1:9/dav/"' 'username = "alice"' \
        'password = "pw"'
} >"$cfg"
chmod 600 "$cfg"
export OFFICE_SECRET=$office_secret

# start_connect TARGET [ARGS...]: connect in the background (stdout and stderr in $work/connect-TARGET.*)
# until it printed its URL; sets connect_pid, auth_link (the URL), loopback (its redirect_uri) and state.
start_connect() {
    local out=$work/connect-$1.out
    # Emptied here, not by the background job's redirection: that may run after the first read below,
    # which would then take the URL of this target's previous connect.
    : >"$out"
    "$bin" connect --config "$cfg" "$@" >"$out" 2>"$work/connect-$1.err" &
    connect_pid=$!
    local lines=() raw
    # Both lines from one read of the file, once the second is whole (the read ends in a newline).
    for _ in $(seq 1 100); do
        raw=$(cat "$out"; printf x)
        mapfile -t lines <<<"${raw%x}"
        [ "${#lines[@]}" -ge 3 ] && [ "${raw: -2}" = $'\nx' ] && break
        lines=()
        kill -0 "$connect_pid" 2>/dev/null || fail "connect $1 exited before printing a URL"
        sleep 0.05
    done
    [ "${#lines[@]}" -ge 2 ] || fail "connect $1 printed no URL within 5 s: '$(cat "$out")'"
    auth_link=${lines[1]}
    [ "${lines[0]}" = "Open this URL in a browser signed in to the account:" ] ||
        fail "connect $1: first line is '${lines[0]}' (stdout: '$(cat "$out")', stderr: '$(cat "$work/connect-$1.err")')"
    loopback=$(/usr/bin/python3 -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[1]).query)["redirect_uri"][0])' "$auth_link")
    state=$(/usr/bin/python3 -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[1]).query)["state"][0])' "$auth_link")
    [[ $loopback =~ ^http://127\.0\.0\.1:[0-9]+/$ ]] || fail "connect $1: redirect_uri is '$loopback'"
}
# finish_connect WANT_RC WHAT: waits (up to 15 s) for connect_pid; fails unless it exited with WANT_RC.
finish_connect() {
    local rc
    for _ in $(seq 1 150); do kill -0 "$connect_pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$connect_pid" 2>/dev/null && fail "$2: connect still runs after 15 s"
    wait "$connect_pid"
    rc=$?
    [ "$rc" = "$1" ] || fail "$2: connect exited $rc, want $1: $(cat "$work"/connect-*.err)"
}
# stored EXPR TARGET: a Python expression over TARGET's token file (as d).
stored() {
    /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
        "$work/state/oauth/$2.json" "$1"
}
# no_secret_in TARGET SECRET...: none of the secrets is in what connect TARGET printed.
no_secret_in() {
    local t=$1 s
    shift
    for s in "$@"; do
        [ -n "$s" ] || fail "no_secret_in $t: an empty secret to look for"
        if grep -qF -- "$s" "$work/connect-$t.out" "$work/connect-$t.err"; then
            fail "connect $t printed a secret (${s:0:6}…)"
        fi
    done
}

# --- Before: check says how to connect.
"$bin" check --config "$cfg" >"$work/check.out" 2>&1 || fail "check failed: $(cat "$work/check.out")"
grep -qF "  token:   target work is not connected: run icsbridge connect --config $cfg work" "$work/check.out" ||
    fail "check does not say work is not connected: $(cat "$work/check.out")"

# --- Google: the redirect followed by hand, so the code is known and can be looked for in the output.
start_connect work
curl -s -o /dev/null -D "$work/authorize.headers" "$auth_link" || fail "the fake's authorize did not answer"
location=$(sed -n 's/^[Ll]ocation: *//p' "$work/authorize.headers" | tr -d '\r')
[[ $location == "$loopback"\?* ]] || fail "the fake redirected to '$location', not to $loopback"
code=$(/usr/bin/python3 -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[1]).query)["code"][0])' "$location")
curl -s -o "$work/page.html" "$location" || fail "connect's loopback did not answer the redirect"
finish_connect 0 "google connect"
grep -q "icsbridge is connected" "$work/page.html" || fail "the browser's page: $(cat "$work/page.html")"
[ "$(tail -1 "$work/connect-work.out")" = "connected: target work (google)" ] ||
    fail "google connect's last line: $(tail -1 "$work/connect-work.out")"
[ "$(stat -c %a "$work/state/oauth/work.json")" = 600 ] || fail "the token file is not 0600"
[ "$(stat -c %a "$work/state/oauth")" = 700 ] || fail "the token directory is not 0700"
[ "$(stored 'd["provider"], d["client_id"], "access_token" in d' work)" = "('google', 'test-client', False)" ] ||
    fail "google token file: $(stored 'sorted(d)' work)"
[ "$(stored 'd["scope"]' work)" = https://www.googleapis.com/auth/calendar.app.created ] || fail "google scope"
refresh=$(stored 'd["refresh_token"]' work)
[ -n "$refresh" ] || fail "no refresh token stored"
no_secret_in work "$code" "$refresh"
# The stored refresh token is one the fake honours.
answer=$(curl -s -d grant_type=refresh_token -d client_id=test-client --data-urlencode "refresh_token=$refresh" "$google_url/oauth/token")
grep -q '"access_token"' <<<"$answer" || fail "the fake refused the stored refresh token: $answer"
"$bin" check --config "$cfg" >"$work/check.out" 2>&1
grep -qF "  token:   connected ($work/state/oauth/work.json)" "$work/check.out" ||
    fail "check does not say work is connected: $(cat "$work/check.out")"

# --- Google again: a second consent gives a refresh token only with prompt=consent; the new one replaces it.
start_connect work
curl -sL -o "$work/page.html" "$auth_link"
finish_connect 0 "second google connect"
[ "$(stored 'd["refresh_token"]' work)" != "$refresh" ] || fail "the second connect kept the old refresh token"

# --- Microsoft, with the client secret from client_secret_env (the fake requires it).
start_connect office --timeout 30
curl -sL -o "$work/page.html" "$auth_link"
finish_connect 0 "microsoft connect"
[ "$(tail -1 "$work/connect-office.out")" = "connected: target office (microsoft)" ] || fail "microsoft's last line"
[ "$(stat -c %a "$work/state/oauth/office.json")" = 600 ] || fail "office's token file is not 0600"
[ "$(stored 'd["provider"], d["scope"], "access_token" in d' office)" = "('microsoft', 'offline_access Calendars.ReadWrite', False)" ] ||
    fail "microsoft token file: $(stored 'sorted(d)' office)"
no_secret_in office "$(stored 'd["refresh_token"]' office)" "$office_secret"

# --- A wrong client secret: the token endpoint refuses the client, nothing is stored.
start_connect wrongsecret
curl -sL -o "$work/page.html" "$auth_link"
finish_connect 1 "connect with a wrong client secret"
grep -q "refused the client (invalid_client" "$work/connect-wrongsecret.err" ||
    fail "wrong secret: $(cat "$work/connect-wrongsecret.err")"
grep -q "icsbridge is not connected" "$work/page.html" || fail "wrong secret page: $(cat "$work/page.html")"
[ ! -e "$work/state/oauth/wrongsecret.json" ] || fail "a token was stored for a refused client"
no_secret_in wrongsecret not-the-secret

# --- A forged state is refused with a page of its own, and connect goes on waiting for the real answer.
start_connect work --timeout 30
forged=$(curl -s -o "$work/forged.html" -w '%{http_code}' "${loopback}?code=forged-code&state=forged-state")
[ "$forged" = 400 ] || fail "a forged state was answered $forged"
grep -q "Not this sign-in" "$work/forged.html" || fail "forged state page: $(cat "$work/forged.html")"
sleep 0.3
kill -0 "$connect_pid" 2>/dev/null || fail "connect stopped after a forged state"
grep -q "refused an answer that is not this sign-in's" "$work/connect-work.err" || fail "no word of the forged state"
curl -sL -o "$work/page.html" "$auth_link"
finish_connect 0 "connect after a forged state"

# --- The person refuses: exit 1 with the provider's words, on the page too.
start_connect work
curl -s -o "$work/page.html" "${loopback}?error=access_denied&error_description=The+user+declined&state=$state"
finish_connect 1 "a refused sign-in"
grep -qx "icsbridge: connect: the sign-in was refused: access_denied (The user declined)" "$work/connect-work.err" ||
    fail "refused sign-in: $(cat "$work/connect-work.err")"
grep -q "icsbridge is not connected" "$work/page.html" || fail "refused sign-in page: $(cat "$work/page.html")"

# --- Nobody comes: --timeout ends it with exit 1 and a clear message.
started=$(date +%s)
start_connect office --timeout 2
finish_connect 1 "a timeout"
took=$(($(date +%s) - started))
[ "$took" -le 6 ] || fail "--timeout 2 took $took s"
grep -q "no sign-in came back to $loopback within 2 s: run connect again and open the URL it prints in a browser on this machine" \
    "$work/connect-office.err" || fail "timeout message: $(cat "$work/connect-office.err")"

# --- What connect does not take.
"$bin" connect --config "$cfg" family >"$work/connect-family.out" 2>"$work/connect-family.err"
[ $? = 2 ] || fail "connect of a caldav target did not exit 2"
grep -q "connect is for google and microsoft targets" "$work/connect-family.err" || fail "caldav target: $(cat "$work/connect-family.err")"
"$bin" connect --config "$cfg" nosuch >"$work/connect-nosuch.out" 2>"$work/connect-nosuch.err"
[ $? = 2 ] || fail "connect of an unknown target did not exit 2"
grep -q "unknown target 'nosuch'" "$work/connect-nosuch.err" || fail "unknown target: $(cat "$work/connect-nosuch.err")"
"$bin" connect --config "$cfg" >/dev/null 2>"$work/connect-none.err"
[ $? = 2 ] || fail "connect without a target did not exit 2"
grep -q "connect: missing TARGET" "$work/connect-none.err" || fail "no target: $(cat "$work/connect-none.err")"
"$bin" connect --config "$cfg" work --timeout 0 >/dev/null 2>"$work/connect-zero.err"
[ $? = 2 ] || fail "--timeout 0 did not exit 2"
# --- As root on a packaged install (`sudo icsbridge connect`), the token goes to the owner of storage.dir,
# the service's user, who must be able to read it (issue 35: it was root's, 0600). Tests run as root here.
owner_note="as root: skipped (not root)"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    owned=$(mktemp -d /tmp/icsbridge-owner.XXXXXX)
    chmod 755 "$owned"
    mkdir "$owned/state"
    chown nobody: "$owned/state"
    chmod 750 "$owned/state"
    sed "s#^dir = .*#dir = \"$owned/state\"#" "$cfg" >"$work/owned.toml"
    chmod 600 "$work/owned.toml"
    root_cfg=$cfg
    cfg=$work/owned.toml
    start_connect work --timeout 30
    curl -sL -o "$work/page.html" "$auth_link"
    finish_connect 0 "connect as root into the storage.dir of nobody"
    cfg=$root_cfg
    token_file=$owned/state/oauth/work.json
    [ "$(stat -c '%U %a' "$token_file")" = "nobody 600" ] ||
        { rm -rf "$owned"; fail "as root, the token file is $(stat -c '%U %a' "$token_file"), not nobody's 0600"; }
    [ "$(stat -c '%U %a' "$owned/state/oauth")" = "nobody 700" ] ||
        { rm -rf "$owned"; fail "as root, the token directory is $(stat -c '%U %a' "$owned/state/oauth")"; }
    runuser -u nobody -- cat "$token_file" >/dev/null 2>&1 || { rm -rf "$owned"; fail "nobody cannot read the token file"; }
    rm -rf "$owned"
    owner_note="as root: the token file nobody's 0600"
fi
echo "connect ok: google (twice), microsoft with client_secret_env, wrong secret, forged state, refusal, timeout; $owner_note"
