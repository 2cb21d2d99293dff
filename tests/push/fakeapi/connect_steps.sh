# File: connect_steps.sh
# The steps of connect_flow_test.sh (sourced by it: it sets provider, public, ana, bob, work, the fake's
# variables and serve's). Each step fails the test with what it saw.

# status_of URL [CURL ARGS...]: the HTTP status of a request (no redirect followed).
status_of() { curl -s -o /dev/null -w '%{http_code}' "${@:2}" "$1"; }

# page_says URL WORDS SECONDS: the person's page shows status WORDS within SECONDS.
page_says() {
    local i
    for i in $(seq 1 $(($3 * 5))); do
        curl -s "$1" | grep -q "id=\"status\"[^>]*>$2<" && return 0
        sleep 0.2
    done
    fail "the page did not say \"$2\" within $3 s; it says: $(curl -s "$1" | grep -o 'id="status"[^<]*<')"
}

# view_uids TOKEN [VIEW]: how many events the feed's view has, as python3-icalendar reads it.
view_uids() {
    curl -s -o "$work/view.ics" "$public/feeds/club.ics?token=$1${2:+&$2}"
    $python -c '
import sys, icalendar
c = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
print(len({str(e["UID"]) for e in c.walk("VEVENT")}))' "$work/view.ics"
}

# connect_as ACCOUNT TOKEN [VIEW]: the flow as a browser follows it; sets page_url (the person's page) and
# callback (the provider's answer, for the replay).
connect_as() {
    local loc
    loc=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$public/connect/$provider?feed=club&token=$2${3:+&$3}")
    case "$loc" in "302 $auth_url?"*) loc=${loc#302 } ;; *) fail "the button's address answered $loc" ;; esac
    $python -c '
import sys, urllib.parse as u
q = dict(u.parse_qsl(u.urlsplit(sys.argv[1]).query))
assert q["redirect_uri"] == sys.argv[2] + "/connect/callback", q["redirect_uri"]
assert q["code_challenge_method"] == "S256" and len(q["code_challenge"]) == 43 and q["state"]
assert q["response_type"] == "code" and q["client_id"] == "test-client"' "$loc" "$public" ||
        fail "the authorization URL is not the sign-in asked: $loc"
    callback=$(curl -s -o /dev/null -w '%{redirect_url}' "$loc&login_hint=$1")
    case "$callback" in "$public/connect/callback?"*) ;; *) fail "the provider did not send back to our callback: $callback" ;; esac
    loc=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$callback")
    case "$loc" in "303 $public/connections/"*"?key="*) page_url=${loc#303 } ;; *) fail "the callback answered $loc" ;; esac
}

step_buttons() {
    [ "$(status_of "$public/feeds/club.html")" = 404 ] || fail "the token feed's page answers without its token"
    curl -s "$public/feeds/club.html?token=$ana" >"$work/club.html"
    grep -q "id=\"connect-$provider\" href=\"/connect/$provider?feed=club&amp;token=$ana\"" "$work/club.html" ||
        fail "the page has no $provider button carrying its token: $(grep -o 'id="connect-[^>]*' "$work/club.html")"
    for q in "feed=club" "feed=club&token=wrong-token" "feed=nope&token=$ana"; do
        [ "$(status_of "$public/connect/$provider?$q")" = 404 ] || fail "/connect/$provider?$q is not the 404"
    done
    [ "$(status_of "$public/connect/$provider?feed=club&token=$ana&days=banana")" = 400 ] ||
        fail "a bad view is not refused with 400"
}

step_connect() {
    connect_as ana@example.org "$ana" alarm=none
    ana_page=$page_url
    ana_callback=$callback
    page_says "$ana_page" "In sync" 30
    local want got
    want=$(view_uids "$ana" alarm=none)
    got=$(fake_state 'len(ours(cal("Club nights")))' account=ana@example.org)
    [ "$got" = "$want" ] || fail "ana's \"Club nights\" holds $got of our events, not the view's $want"
    [ "$(fake_state 'len(d["calendars"])')" = 1 ] || fail "the default account got a calendar"
    echo "connect: ana's calendar holds the view's $want events"
}

step_replay_and_forged() {
    [ "$(status_of "$ana_callback")" = 400 ] || fail "a replayed callback was not refused"
    [ "$(status_of "$ana_callback" -I)" = 405 ] || fail "a HEAD of the callback was not refused (it must not act)"
    local state=${ana_callback#*state=} forged
    state=${state%%&*}
    forged=${state%?}$([ "${state: -1}" = A ] && echo B || echo A)
    [ "$(status_of "${ana_callback/$state/$forged}")" = 400 ] || fail "a state changed by one character was not refused"
    [ "$(status_of "$public/connect/callback?code=x&state=made-up")" = 400 ] || fail "a made-up state was not refused"
    # A state only the key file can make: good for ana's token, but 10 minutes and one second old.
    local old now
    now=$(date +%s)
    old=$($python "$src/tests/push/fakeapi/seal_state.py" "$work/connect.key" \
        "{\"provider\":\"$provider\",\"feed\":\"club\",\"view\":\"\",\"token\":\"$ana\",\"verifier\":\"v\",\"nonce\":\"n-$now\",\"expires\":$((now - 1))}")
    curl -s "$public/connect/callback?code=x&state=$old" >"$work/expired.html"
    grep -q "longer than 10 minutes" "$work/expired.html" || fail "an expired state was not refused as expired"
    old=$($python "$src/tests/push/fakeapi/seal_state.py" "$work/connect.key" \
        "{\"provider\":\"$provider\",\"feed\":\"club\",\"view\":\"\",\"token\":\"$ana\",\"verifier\":\"v\",\"nonce\":\"m-$now\",\"expires\":$((now + 600))}")
    [ "$(status_of "$public/connect/callback?error=access_denied&state=$old")" = 200 ] ||
        fail "a state sealed from outside with the key file did not open: the test's reading of the format is wrong"
    [ "$(status_of "$public/connect/callback?code=x")" = 400 ] || fail "a callback without state was not refused"
    [ "$(ls "$work/state/connections/"*.json | wc -l)" = 1 ] || fail "a refused callback stored a connection"
}

step_key() {
    local id=${ana_page#"$public/connections/"}
    id=${id%%\?*}
    [ "$(status_of "$public/connections/$id?key=wrong-key")" = 404 ] || fail "a wrong key was not the 404"
    [ "$(status_of "$public/connections/$id")" = 404 ] || fail "no key was not the 404"
    [ "$(status_of "$public/connections/AAAAAAAAAAAAAAAAAAAAAA?key=x")" = 404 ] || fail "an unknown id was not the 404"
    [ "$(status_of "$ana_page")" = 200 ] || fail "the right key did not open the page"
    ana_id=$id
}

step_sealed() {
    local record=$work/state/connections/$ana_id.json
    [ "$(stat -c %a "$record")" = 600 ] || fail "the record is not 0600"
    $python "$src/tests/push/fakeapi/open_sealed.py" "$work/connect.key" "$record" >"$work/refresh.txt" ||
        fail "the sealed refresh token did not open with the key file"
    grep -qF -- "$(cat "$work/refresh.txt")" "$record" && fail "the record holds the refresh token in clear"
    local answer
    answer=$(curl -s -X POST --data-urlencode "grant_type=refresh_token" --data-urlencode "refresh_token@$work/refresh.txt" \
        --data-urlencode "client_id=test-client" --data-urlencode "client_secret=$TEST_CLIENT_SECRET" "$token_url")
    case "$answer" in *access_token*) ;; *) fail "the opened refresh token is not the live one" ;; esac
    openssl rand -hex 32 >"$work/other.key"
    $python "$src/tests/push/fakeapi/open_sealed.py" "$work/other.key" "$record" >/dev/null 2>&1 &&
        fail "the sealed refresh token opened with another key"
    rm -f "$work/refresh.txt"
}

step_csrf() {
    [ "$(status_of "$ana_page" -X POST --data '')" = 403 ] || fail "a Disconnect without the CSRF token was not refused"
    [ "$(status_of "$ana_page" -X POST --data 'csrf=forged&delete_calendar=1')" = 403 ] || fail "a forged CSRF token was not refused"
    local csrf
    csrf=$(curl -s "$ana_page" | grep -o 'name="csrf" value="[^"]*"' | sed 's/.*value="//; s/"$//')
    [ -n "$csrf" ] || fail "the page has no CSRF token"
    [ "$(status_of "$ana_page" -X POST -H 'Origin: http://evil.example' --data "csrf=$csrf")" = 403 ] ||
        fail "a Disconnect from another Origin was not refused"
    [ "$(status_of "$ana_page")" = 200 ] || fail "a refused Disconnect disconnected"
}

step_revoked() {
    connect_as bob@example.org "$bob"
    bob_page=$page_url
    page_says "$bob_page" "In sync" 30
    club_config ""
    kill -HUP "$serve_pid"
    page_says "$bob_page" "Stopped" 15
    curl -s "$bob_page" >"$work/bob.html"
    grep -q "revoked" "$work/bob.html" || fail "bob's page does not say his link was revoked"
    grep -q "within seconds" "$work/bob.html" && fail "bob's stopped page still promises changes within seconds"
    grep -q "Updates to this calendar are stopped" "$work/bob.html" || fail "bob's page does not say updates stopped"
    changed_fixtures "$src" "$work/data"
    curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
    curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=788216780592&to=$public/hooks/eb/$TEST_HOOK_SECRET" >/dev/null
    local n=0
    for _ in $(seq 1 100); do
        n=$(fake_state 'sum(1 for e in ours(cal("Club nights")) if "MOVED" in (e.get("summary") or e.get("subject") or ""))' account=ana@example.org)
        [ "$n" = 1 ] && break
        sleep 0.1
    done
    [ "$n" = 1 ] || fail "the change did not reach ana's calendar within 10 s"
    sleep 2
    n=$(fake_state 'sum(1 for e in ours(cal("Club nights")) if "MOVED" in (e.get("summary") or e.get("subject") or ""))' account=bob@example.org)
    [ "$n" = 0 ] || fail "bob's calendar was still updated after his token was revoked"
}

step_disconnect() {
    local csrf body
    csrf=$(curl -s "$ana_page" | grep -o 'name="csrf" value="[^"]*"' | sed 's/.*value="//; s/"$//')
    body=$(curl -s -X POST -H "Origin: $public" --data "csrf=$csrf" "$ana_page")
    case "$body" in *Disconnected*) ;; *) fail "Disconnect did not say so: $body" ;; esac
    [ "$(status_of "$ana_page")" = 404 ] || fail "the page of a disconnected calendar still answers"
    [ "$(fake_state 'len(ours(cal("Club nights")))' account=ana@example.org)" -gt 0 ] ||
        fail "the calendar was emptied though deleting it was not asked"
    if [ "$provider" = google ]; then
        [ "$(fake_accounts 'account("ana@example.org")["grants"]')" = 0 ] || fail "ana's grant was not revoked at Google"
    fi
}

step_rekey() {
    # His token back and a restart with the same key: his connection is still there, and goes on.
    club_config ", bob = \"$bob\""
    stop_icsbridge
    start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log.1"
    page_says "$bob_page" "In sync" 15
    cat "$work/serve.log.1" >>"$work/serve.log"
    stop_icsbridge
    openssl rand -hex 32 >"$work/connect.key"
    start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log.2"
    page_says "$bob_page" "Reconnect needed" 15
    kill -0 "$serve_pid" || fail "serve died after a key change"
    cat "$work/serve.log.2" >>"$work/serve.log"
}

no_secrets_logged() {
    local s
    for s in "$ana" "$bob" "$TEST_CLIENT_SECRET" "${ana_page#*key=}" "${bob_page#*key=}" ana@example.org bob@example.org; do
        grep -qF -- "$s" "$work/serve.log" && fail "the log holds a secret or a subscriber's account"
    done
    return 0
}
