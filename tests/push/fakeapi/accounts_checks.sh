# File: accounts_checks.sh
# The fake's accounts and what issue 27's self-serve connections need of it, checked by push/fake_api_test.sh
# (sourced by it: uses its call/api/send/want/check/j/authorize/token helpers and the providers' gev/mev): web
# redirect URIs, login_hint, the consent page (Allow, Cancel), separate calendars per account, calendar DELETE,
# the per-user quota, per-second request counts, revocation per account.

web_redirect=http://127.0.0.1:5555/connect/callback
browser=(-H 'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')

# exchange WHAT: the code of the last authorize for tokens (redirect_uri the web one); sets access and refresh.
exchange() {
    token grant_type=authorization_code "code=$code" "redirect_uri=$web_redirect" "code_verifier=$verifier" \
        "${secret_fields[@]}"
    want 200 "$1: code exchange"
    access=$(j 'd["access_token"]')
    refresh=$(j 'd.get("refresh_token", "")')
}
# connect_as EMAIL [KEY=VALUE...]: the code flow of a program for the account EMAIL (login_hint), redirect_uri the
# registered web one; sets access and refresh.
connect_as() {
    local email=$1
    shift
    authorize "login_hint=$email" "redirect_uri=$web_redirect" "$@"
    [ "$status" = 302 ] && [ -n "$code" ] && [ "${location%%\?*}" = "$web_redirect" ] && [ "$back_state" = "$state" ] ||
        fail "$provider: authorize for $email with the registered redirect_uri: $status $location"
    exchange "$provider: $email"
}
# new_calendar NAME: a calendar made through the API by the current access token's account; sets cal_id, cal (its
# id for a path).
new_calendar() {
    if [ "$provider" = google ]; then send POST /calendars "{\"summary\":\"$1\"}"; want 200 "google: new calendar $1"
    else send POST /me/calendars "{\"name\":\"$1\"}"; want 201 "microsoft: new calendar $1"; fi
    cal_id=$(j 'd["id"]')
    cal=$(j 'urllib.parse.quote(d["id"], safe="")')
    if [ "$provider" = google ]; then cal_path=/calendars/$cal; else cal_path=/me/calendars/$cal; fi
}
# insert_event N: one of our events into $cal_path; sets event_id.
insert_event() {
    if [ "$provider" = google ]; then send POST "$cal_path/events" "$(gev "evacc00$1" "$1")"; want 200 "google: insert"
    else send POST "$cal_path/events" "$(mev "$1")"; want 201 "microsoft: insert"; fi
    event_id=$(j 'd["id"]')
}

accounts_redirects() {
    authorize "redirect_uri=$web_redirect"
    [ "$status" = 302 ] && [ "${location%%\?*}" = "$web_redirect" ] && [ -n "$code" ] ||
        fail "$provider: the registered web redirect_uri was refused: $status $location"
    token grant_type=authorization_code "code=$code" "redirect_uri=http://127.0.0.1:5555/" "code_verifier=$verifier" \
        "${secret_fields[@]}"
    check 'd["error"] == "invalid_grant"' "$provider: the loopback redirect_uri for a code of the web one"
    local uri
    for uri in http://127.0.0.1:5555/connect/other http://127.0.0.1:5555/connect/callback/ \
        https://127.0.0.1:5555/connect/callback http://127.0.0.1:5556/connect/callback; do
        authorize "redirect_uri=$uri"
        [ "$status" = 400 ] && [ -z "$location" ] || fail "$provider: the unregistered $uri was redirected to: $status $location"
        check '"redirect_uri_mismatch" in d' "$provider: the unregistered $uri"
    done
    authorize_headers=("${browser[@]}")
    authorize redirect_uri=http://127.0.0.1:5555/connect/other
    authorize_headers=()
    [ "$status" = 400 ] && [ -z "$location" ] && grep -qi 'content-type: text/html' "$work/headers" ||
        fail "$provider: a browser with an unregistered redirect_uri: $status, not an HTML 400"
    echo "$provider redirects: the registered web redirect_uri (exact) accepted, others 400 unredirected"
}

accounts_separate() {
    connect_as ana@example.org
    ana=$access ana_refresh=$refresh
    new_calendar Feed
    ana_cal=$cal_path ana_cal_id=$cal_id
    insert_event 1
    ana_event=$event_id
    connect_as Bob@Example.org
    bob=$access bob_refresh=$refresh
    new_calendar Feed # Graph refuses a second calendar of one name in one mailbox (409): not across mailboxes
    bob_cal=$cal_path
    api GET "$ana_cal/events"
    want 404 "$provider: bob reading ana's calendar"
    api GET "$list_path"
    check '"'"$ana_cal_id"'" not in json.dumps(d)' "$provider: ana's calendar in bob's list"
    access=$ana
    api GET "$ana_cal/events"
    want 200 "$provider: ana reading her calendar"
    check 'len(d.get("items", d.get("value", []))) == 1' "$provider: ana's event"
    [ "$(fake_accounts 'cal("ana@example.org", "Feed")["events"], cal("bob@example.org", "Feed")["events"], account("ana@example.org")["grants"], account("bob@example.org")["grants"]')" = "(1, 0, 1, 1)" ] ||
        fail "$provider: /_fake/accounts: $(cat "$work/fake-accounts.json")"
    [ "$(fake_accounts '[c["main"] for c in account("ana@example.org")["calendars"]]')" = "[True, False]" ] ||
        fail "$provider: ana has no main calendar of her own: $(cat "$work/fake-accounts.json")"
    [ "$provider" = microsoft ] || [ "$(fake_state '[c["id"] for c in d["calendars"] if c["main"]]' account=ana@example.org)" = "['ana@example.org']" ] ||
        fail "google: ana's primary calendar id is not her e-mail"
    [ "$(fake_state 'd["account"], len(live(cal("Feed")))' account=ana@example.org)" = "('ana@example.org', 1)" ] ||
        fail "$provider: /_fake/state?account=ana"
    [ "$(fake_state 'd["account"], any(c["name"] == "Feed" for c in d["calendars"])')" = "('default@example.org', False)" ] ||
        fail "$provider: the default account sees a Feed calendar"
    fake_admin foreign '{"calendar":"Feed","summary":"Dentist"}' bob@example.org >/dev/null
    fake_admin edit "{\"id\":\"$ana_event\",\"summary\":\"Moved\"}" ana@example.org >/dev/null
    [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary "{\"id\":\"$ana_event\"}" "$fake_api_url/_fake/edit")" = 404 ] ||
        fail "$provider: /_fake/edit found ana's event in the default account"
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$fake_api_url/_fake/state?account=nobody@example.org")" = 404 ] ||
        fail "$provider: /_fake/state of an unknown account"
    [ "$(fake_accounts 'cal("bob@example.org", "Feed")["events"], cal("ana@example.org", "Feed")["events"]')" = "(1, 1)" ] ||
        fail "$provider: foreign/edit for an account: $(cat "$work/fake-accounts.json")"
    echo "$provider accounts: login_hint picks the account (case-insensitive), calendars and events apart, another's 404, admin account="
}

accounts_consent() {
    local words=$1 form
    authorize_headers=("${browser[@]}")
    authorize "redirect_uri=$web_redirect" login_hint=carol@example.org
    authorize_headers=()
    want 200 "$provider: authorize from a browser (the consent page)"
    grep -qi '^content-type: text/html' "$work/headers" || fail "$provider: the consent page is not HTML"
    for form in 'id="allow"' 'id="cancel"' 'id="account"' 'value="carol@example.org"' 'name="viewport"' \
        'action="/oauth/authorize"' "$words"; do
        grep -qF -- "$form" "$work/body" || fail "$provider: the consent page lacks $form"
    done
    cp "$work/body" "$work/consent.html"
    consent_post allow carol@example.org
    [ "$status" = 302 ] && [ -n "$code" ] && [ "$back_state" = "$state" ] && [ "${location%%\?*}" = "$web_redirect" ] ||
        fail "$provider: Allow on the consent page: $status $location"
    exchange "$provider: carol (consent page)"
    carol=$access
    api GET "$list_path"
    want 200 "$provider: carol's token"
    [ "$(fake_accounts 'account("carol@example.org")["grants"]')" = 1 ] || fail "$provider: no grant of carol's"
    consent_post cancel carol@example.org
    [ "$status" = 302 ] && [ "$(qparam error "$location")" = access_denied ] && [ "$back_state" = "$state" ] &&
        [ -z "$code" ] || fail "$provider: Cancel on the consent page: $status $location"
    consent_post allow not-an-address
    want 200 "$provider: Allow with no e-mail"
    grep -q 'class="problem"' "$work/body" || fail "$provider: Allow with no e-mail did not say so"
    consent_post allow carol@example.org redirect_uri=http://127.0.0.1:5555/elsewhere
    [ "$status" = 400 ] && [ -z "$location" ] || fail "$provider: a consent form with another redirect_uri: $status $location"
    echo "$provider consent: page for Accept text/html (account prefilled, scope in words), Allow -> code, Cancel -> access_denied"
}
# consent_post ACTION ACCOUNT [FIELD=VALUE...]: submits $work/consent.html's form as a browser would (hidden fields,
# the account field, the button's action=ACTION), a field replaced by FIELD=VALUE; sets status, location, code.
consent_post() {
    $python - "$work/consent.html" "$@" >"$work/form" <<'PY'
import html.parser, sys, urllib.parse
class Form(html.parser.HTMLParser):
    fields = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input" and a.get("type") == "hidden":
            self.fields[a["name"]] = a.get("value", "")
f = Form()
f.feed(open(sys.argv[1]).read())
fields = dict(f.fields, action=sys.argv[2], account=sys.argv[3])
fields.update(kv.split("=", 1) for kv in sys.argv[4:])
print(urllib.parse.urlencode(fields), end="")
PY
    call POST "$auth_url" "${browser[@]}" -H 'Content-Type: application/x-www-form-urlencoded' --data-binary "@$work/form"
    location=$(j 'h.get("location", "")')
    code=$(qparam code "$location")
    back_state=$(qparam state "$location")
}

accounts_delete_calendar() {
    access=$ana
    api DELETE "$ana_cal"
    want 204 "$provider: DELETE ana's calendar"
    api DELETE "$ana_cal"
    want 404 "$provider: DELETE of a deleted calendar"
    api GET "$ana_cal/events"
    want 404 "$provider: the events of a deleted calendar"
    if [ "$provider" = google ]; then
        api DELETE /calendars/primary
        want 403 "google: DELETE of the primary calendar with calendar.app.created"
        check 'd["error"]["errors"][0]["reason"] == "insufficientPermissions"' "google: primary with calendar.app.created"
        connect_as dave@example.org scope=https://www.googleapis.com/auth/calendar
        api DELETE /calendars/primary
        want 403 "google: DELETE of the primary calendar"
        check 'd["error"]["errors"][0]["reason"] == "cannotDeletePrimaryCalendar"' "google: DELETE primary"
        api DELETE "/calendars/dave%40example.org"
        check 'd["error"]["errors"][0]["reason"] == "cannotDeletePrimaryCalendar"' "google: DELETE primary by id"
    else
        api GET "/me/events/$ana_event"
        want 404 "microsoft: an event of a deleted calendar"
        api GET /me/calendar
        api DELETE "/me/calendars/$(j 'd["id"]')"
        want 400 "microsoft: DELETE of the default calendar"
        check 'd["error"]["code"] == "ErrorDeleteDistinguishedFolder"' "microsoft: DELETE default calendar"
        new_calendar Feed
        [ "$(j 'd["id"] != "'"$ana_cal_id"'"')" = True ] || fail "microsoft: the new Feed has the old id"
        insert_event 1 # transactionId txn-1 again: its calendar is gone, so a new event
        check 'd["id"] != "'"$ana_event"'"' "microsoft: a transactionId of a deleted calendar's event"
    fi
    [ "$(fake_accounts '[c["name"] for c in account("ana@example.org")["calendars"]]')" = \
        "$([ "$provider" = google ] && echo "['ana@example.org']" || echo "['Calendar', 'Feed']")" ] ||
        fail "$provider: ana's calendars after DELETE: $(cat "$work/fake-accounts.json")"
    echo "$provider calendars: DELETE 204, then 404 (and its events), the primary/default one refused"
}

accounts_user_quota() {
    local who n codes=
    fake_admin reset_counts >/dev/null
    fake_admin config '{"user_quota_per_minute": 3}' >/dev/null
    for who in ana ana ana ana ana bob bob; do
        access=${!who}
        api GET "$list_path"
        codes="$codes $status"
        [ "$status" = 200 ] && continue
        if [ "$provider" = google ]; then
            check 'd["error"]["code"] == 403 and d["error"]["errors"][0]["reason"] == "userRateLimitExceeded"' "google: user quota"
        else
            check 'd["error"]["code"] == "ApplicationThrottled" and h["retry-after"].isdigit()' "microsoft: user quota"
        fi
    done
    fake_admin config '{"user_quota_per_minute": 0}' >/dev/null
    [ "$codes" = " 200 200 200 $refused $refused 200 200" ] || fail "$provider: user quota 3/min, ana 5 then bob 2: got$codes"
    n=$(fake_accounts 'account("ana@example.org")["user_quota_refused"], account("bob@example.org")["user_quota_refused"], account("ana@example.org")["requests"]')
    [ "$n" = "(2, 0, 5)" ] || fail "$provider: user quota counters (ana refused, bob refused, ana requests) $n"
    [ "$(fake_requests user_quota_refused) $(fake_requests quota_refused)" = "2 2" ] ||
        fail "$provider: the whole fake's user_quota_refused, quota_refused"
    echo "$provider user quota: 3/min per account -> ana 3 served then refused, bob served:$codes"
}

# jcheck FILE EXPR WHAT: fails unless EXPR (see j) over FILE is True.
jcheck() { [ "$(j "bool($2)" "$1")" = True ] || fail "$3: not $2 in: $(head -c 600 "$1")"; }

accounts_per_second() {
    local t0 t1 i max pids=()
    fake_admin reset_counts >/dev/null
    t0=$(date +%s)
    access=$bob
    for i in 1 2 3 4 5 6; do
        api GET "$list_path" >/dev/null 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}" # not a bare wait: the fake is a child too
    access=$ana
    api GET "$list_path"
    t1=$(date +%s)
    curl -s -f -o "$work/rps.json" "$fake_api_url/_fake/requests_per_second" || fail "$provider: requests_per_second"
    jcheck "$work/rps.json" 'd["total"] == 7 and sum(n for _, n in d["seconds"]) == 7 and d["max"] == max(n for _, n in d["seconds"]) and all('"$t0"' <= s <= '"$t1"' for s, _ in d["seconds"])' \
        "$provider: requests_per_second"
    max=$(j 'd["max"]' "$work/rps.json")
    [ "$(fake_requests_per_second bob@example.org)" -ge 2 ] || fail "$provider: bob's requests per second"
    curl -s -o "$work/rps-ana.json" "$fake_api_url/_fake/requests_per_second?account=ana@example.org"
    jcheck "$work/rps-ana.json" 'd["total"] == 1 and d["max"] == 1' "$provider: ana's requests per second"
    fake_admin reset_counts >/dev/null
    [ "$(fake_requests_per_second)" = 0 ] || fail "$provider: requests_per_second after reset_counts"
    echo "$provider requests per second: 7 requests counted by second, max $max; 0 after reset_counts"
}

accounts_revoke() {
    if [ "$provider" = google ]; then
        call POST "$fake_api_url/oauth/revoke" -H 'Content-Type: application/x-www-form-urlencoded' \
            --data-urlencode "token=$ana_refresh"
        want 200 "google: /oauth/revoke with the token in a form body"
        token grant_type=refresh_token "refresh_token=$ana_refresh" "${secret_fields[@]}"
        check 'd["error"] == "invalid_grant"' "google: ana's refresh after revoke"
    else
        call POST "$fake_api_url/oauth/revoke" --data-urlencode "token=$ana_refresh"
        want 404 "microsoft: /oauth/revoke (Microsoft has none)"
        fake_admin revoke '{}' ana@example.org >/dev/null
    fi
    access=$ana
    api GET "$bob_cal/events"
    want 401 "$provider: ana's access token after her revocation"
    access=$bob
    api GET "$bob_cal/events"
    want 200 "$provider: bob's access token after ana's revocation"
    fake_admin revoke '{}' bob@example.org >/dev/null
    token grant_type=refresh_token "refresh_token=$bob_refresh" "${secret_fields[@]}"
    check 'd["error"] == "invalid_grant"' "$provider: bob's refresh after /_fake/revoke?account=bob"
    [ "$(fake_accounts '[a["grants"] for a in d["accounts"]][1:]')" = "[0, 0, 1$([ "$provider" = google ] && echo ", 1")]" ] ||
        fail "$provider: live grants after revoking ana and bob: $(cat "$work/fake-accounts.json")"
    echo "$provider revoke: one account's consent revoked, the others' still good"
}

# accounts_checks PROVIDER: all of the above against the running fake of PROVIDER (started with
# --redirect-uri $web_redirect).
accounts_checks() {
    provider=$1
    if [ "$provider" = google ]; then
        secret_fields=(client_secret=s3cret) scope=https://www.googleapis.com/auth/calendar.app.created
        refused=403 list_path=/users/me/calendarList
    else
        secret_fields=() scope="offline_access Calendars.ReadWrite" refused=429 list_path=/me/calendars
    fi
    accounts_redirects
    accounts_separate
    accounts_consent "$([ "$provider" = google ] && echo 'See, edit, create and delete calendars it created' || echo 'Read and write your calendars')"
    accounts_delete_calendar
    accounts_user_quota
    accounts_per_second
    accounts_revoke
}
