# File: google_checks.sh
# The fake Google Calendar API's checks of push/fake_api_test.sh (sourced by it: uses its call/api/send/want/
# check/j helpers and oauth_common, expiry_and_quota, revoked).

# gev ID DAY [SUMMARY]: an event of ours as the client inserts it, 2027-03-DAY 10:00-11:00 UTC.
gev() {
    printf '{"id":"%s","iCalUID":"%s@example.org","summary":"%s","start":{"dateTime":"2027-03-%02dT10:00:00Z"},"end":{"dateTime":"2027-03-%02dT11:00:00Z"},"extendedProperties":{"private":{"icsbridge":"1"}}}' \
        "$1" "$1" "${3:-Event $1}" "$2" "$2"
}
# glist QUERY: all pages of GET events?QUERY of $gcal; sets g_ids (space-separated, in order), g_pages and
# g_sync (the nextSyncToken of the last page); fails if a page other than the last has a nextSyncToken.
glist() {
    local q=$1 more=
    g_ids='' g_pages=0
    while :; do
        api GET "/calendars/$gcal/events?$q${more:+&pageToken=$more}"
        want 200 "google list $q"
        g_pages=$((g_pages + 1))
        g_ids="$g_ids$(j '"".join(" " + e["id"] for e in d["items"])')"
        more=$(j 'd.get("nextPageToken", "")')
        [ -z "$more" ] && break
        check '"nextSyncToken" not in d' "google list $q: a page with nextPageToken"
    done
    g_sync=$(j 'd["nextSyncToken"]')
    g_ids=${g_ids# }
}

google_oauth() {
    scope=https://www.googleapis.com/auth/calendar.app.created
    oauth_common google client_secret=s3cret
    authorize
    token grant_type=authorization_code "code=$code" "redirect_uri=$redirect" "code_verifier=$verifier"
    want 401 "google: a token request without the client secret"
    check 'd["error"] == "invalid_client"' "google: no client secret"
    token grant_type=authorization_code "code=$code" "redirect_uri=$redirect" "code_verifier=$verifier" client_secret=s3cret
    want 200 "google: the code exchange with the secret (the code is not spent by a refused client)"
    check 'd["token_type"] == "Bearer" and d["expires_in"] == 3600 and d["scope"].endswith("calendar.app.created") and d["refresh_token"]' "google: token answer"
    access=$(j 'd["access_token"]')
    refresh=$(j 'd["refresh_token"]')
    authorize access_type=
    token grant_type=authorization_code "code=$code" "redirect_uri=$redirect" "code_verifier=$verifier" client_secret=s3cret
    check '"refresh_token" not in d' "google: a refresh token without access_type=offline"
    token grant_type=refresh_token "refresh_token=$refresh" client_secret=s3cret
    check '"refresh_token" not in d and d["access_token"]' "google: a refresh (no new refresh token)"
    echo "google oauth: client secret required, refresh token only with access_type=offline, none on refresh"
}

google_calendars() {
    api GET /users/me/calendarList
    want 200 "google: calendarList"
    check 'd["items"] == []' "google: calendar.app.created lists only calendars the app made"
    api GET /calendars/primary/events
    want 403 "google: the primary calendar with calendar.app.created"
    check 'd["error"]["errors"][0]["reason"] == "insufficientPermissions"' "google: 403"
    send POST /calendars '{}'
    want 400 "google: a calendar without summary"
    send POST /calendars '{"summary":"Eventbrite"}'
    want 200 "google: POST /calendars"
    check 'd["summary"] == "Eventbrite" and d["id"].endswith("@group.calendar.google.com")' "google: new calendar"
    gcal_id=$(j 'd["id"]')
    gcal=$(j 'urllib.parse.quote(d["id"], safe="")')
    api GET "/users/me/calendarList?maxResults=250"
    check '[(c["id"], c["summary"], c["accessRole"]) for c in d["items"]] == [("'"$gcal_id"'", "Eventbrite", "owner")]' "google: calendarList"
    echo "google calendars: created by name, listed (only the app's), primary refused with calendar.app.created"
}

google_events() {
    local id etag sync2 sync3 old
    for id in abcd evw00001 EV00001 '12345/'; do
        send POST "/calendars/$gcal/events" "$(gev "$id" 1)"
        want 400 "google: client id $id"
        check 'd["error"]["errors"][0]["reason"] == "invalid"' "google: client id $id"
    done
    for id in 1 2 3 4 5 6; do
        send POST "/calendars/$gcal/events" "$(gev "ev0000$id" "$id")"
        want 200 "google: insert ev0000$id"
        check 'd["id"] == "ev0000'$id'" and re.fullmatch(r"\"[0-9]+\"", d["etag"]) is not None and d["status"] == "confirmed" and d["extendedProperties"]["private"]["icsbridge"] == "1"' "google: inserted event"
    done
    send POST "/calendars/$gcal/events" "$(gev ev00001 1)"
    want 409 "google: the same id again"
    check 'd["error"]["errors"][0]["reason"] == "duplicate"' "google: 409"
    send POST "/calendars/$gcal/events" '{"id":"a11dad1","start":{"date":"2027-04-01"},"end":{"date":"2027-04-01"}}'
    check 'd["error"]["errors"][0]["reason"] == "timeRangeEmpty"' "google: an all-day event of no day"
    send POST "/calendars/$gcal/events" '{"id":"b0ne1","start":{"dateTime":"2027-04-01T10:00:00"},"end":{"dateTime":"2027-04-01T11:00:00"}}'
    want 400 "google: a dateTime without offset or timeZone"
    api GET "/calendars/$gcal/events?maxResults=0"
    want 400 "google: maxResults=0"

    glist "maxResults=4&showDeleted=true"
    [ "$g_ids" = "ev00001 ev00002 ev00003 ev00004 ev00005 ev00006" ] && [ "$g_pages" = 2 ] ||
        fail "google: the full list by 4 gave $g_pages pages: $g_ids"
    glist "syncToken=$g_sync"
    [ -z "$g_ids" ] || fail "google: an incremental list with no change returned $g_ids"
    sync2=$g_sync

    api GET "/calendars/$gcal/events/ev00001"
    etag=$(j 'd["etag"]')
    send PUT "/calendars/$gcal/events/ev00001" "$(gev ev00001 1 Renamed)" -H 'If-Match: "1"'
    want 412 "google: PUT with a wrong If-Match"
    check 'd["error"]["errors"][0]["reason"] == "conditionNotMet"' "google: 412"
    send PUT "/calendars/$gcal/events/ev00001" "$(gev ev00001 1 Renamed)" -H "If-Match: $etag"
    want 200 "google: PUT with the right If-Match"
    check 'd["summary"] == "Renamed" and d["etag"] != '"'$etag'" "google: PUT changes summary and etag"
    send PUT "/calendars/$gcal/events/ev00001" "$(gev ev00001 1 Again)" -H "If-Match: $etag"
    want 412 "google: PUT with the etag before the change"
    api GET "/calendars/$gcal/events/ev00002"
    api DELETE "/calendars/$gcal/events/ev00002" -H "If-Match: $(j 'd["etag"]')"
    want 204 "google: DELETE"
    api DELETE "/calendars/$gcal/events/ev00002"
    want 410 "google: DELETE of a cancelled event"
    check 'd["error"]["errors"][0]["reason"] == "deleted"' "google: 410"
    api GET "/calendars/$gcal/events/ev00002"
    check 'd["status"] == "cancelled"' "google: GET of a cancelled event"
    api GET "/calendars/$gcal/events/ev09999"
    want 404 "google: GET of an unknown event"
    glist "maxResults=2500"
    [ "$g_ids" = "ev00001 ev00003 ev00004 ev00005 ev00006" ] || fail "google: the list without showDeleted: $g_ids"
    glist "syncToken=$sync2"
    [ "$g_ids" = "ev00001 ev00002" ] || fail "google: the changes since the sync token: $g_ids (want ev00001 ev00002)"
    check '[e["status"] for e in d["items"]] == ["confirmed", "cancelled"]' "google: incremental list statuses"
    sync3=$g_sync

    send POST "/calendars/$gcal/events" "$(gev ev00002 2)"
    want 409 "google: inserting the id of a cancelled event"
    api GET "/calendars/$gcal/events/ev00002"
    send PUT "/calendars/$gcal/events/ev00002" "$(gev ev00002 2 | sed 's/}$/,"status":"confirmed"}/')" -H "If-Match: $(j 'd["etag"]')"
    check 'd["status"] == "confirmed"' "google: PUT with status confirmed revives"
    api GET "/calendars/$gcal/events?syncToken=$sync3&privateExtendedProperty=icsbridge%3D1"
    want 400 "google: syncToken with privateExtendedProperty"
    api GET "/calendars/$gcal/events?syncToken=nonsense"
    want 410 "google: an unknown sync token"
    check 'd == {"error": {"code": 410, "message": "Sync token is no longer valid, a full sync is required.", "errors": [{"domain": "global", "reason": "fullSyncRequired", "message": "Sync token is no longer valid, a full sync is required."}]}}' "google: 410 body"

    api GET "/calendars/$gcal/events/ev00003"
    old=$(j 'd["etag"]')
    fake_admin foreign '{"calendar":"Eventbrite","summary":"Dentist","start":"2027-03-10T09:00:00Z"}' >"$work/foreign.json"
    fid=$(j 'd["id"]' "$work/foreign.json")
    fake_admin edit '{"id":"ev00003","summary":"Edited behind your back"}' >/dev/null
    glist "privateExtendedProperty=icsbridge%3D1"
    [ "$g_ids" = "ev00001 ev00002 ev00003 ev00004 ev00005 ev00006" ] || fail "google: ours by extended property: $g_ids"
    glist "syncToken=$sync3"
    [ "$g_ids" = "ev00002 $fid ev00003" ] ||
        fail "google: the changes since the sync token: $g_ids (want ev00002, the foreign $fid, ev00003)"
    check 'd["items"][1]["summary"] == "Dentist" and "extendedProperties" not in d["items"][1]' "google: the foreign event"
    check 'd["items"][2]["summary"] == "Edited behind your back" and d["items"][2]["etag"] != '"'$old'" "google: the edit"
    send PUT "/calendars/$gcal/events/ev00003" "$(gev ev00003 3)" -H "If-Match: $old"
    want 412 "google: PUT with the etag from before an edit behind the client's back"
    api GET "/calendars/$gcal/events/ev00004"
    old=$(j 'd["etag"]')
    fake_admin edit '{"id":"ev00004","summary":"Edited meanwhile","when":"before_write"}' >/dev/null
    api GET "/calendars/$gcal/events/ev00004"
    check 'd["etag"] == '"'$old'"' and d["summary"] != "Edited meanwhile"' "google: an armed edit made before the write"
    send PUT "/calendars/$gcal/events/ev00004" "$(gev ev00004 4)" -H "If-Match: $old"
    want 412 "google: PUT with the etag read just before an edit armed for the write"
    send PUT "/calendars/$gcal/events/ev00004" "$(gev ev00004 4)"
    check 'd["summary"] == "Event ev00004"' "google: the armed edit is made once"
    [ "$(grep -c '^PUT /calendar/v3/calendars/[^ ]*/events/ev00004 412 [0-9.]* update if-match$' "$work/fake-google.log")" = 1 ] &&
        [ "$(grep -c '^PUT /calendar/v3/calendars/[^ ]*/events/ev00004 200 [0-9.]* update$' "$work/fake-google.log")" = 1 ] ||
        fail "google: the log does not tell the PUT with If-Match from the one without: $(grep ev00004 "$work/fake-google.log")"
    [ "$(fake_state "len(ours(cal('Eventbrite'))), len(live(cal('Eventbrite')))")" = "(6, 7)" ] ||
        fail "google: the state has $(fake_state "len(ours(cal('Eventbrite'))), len(live(cal('Eventbrite')))") (ours, live)"
    echo "google events: ids checked, 409 even when cancelled, paging + sync tokens, 412, 204/410, revive, 410 fullSyncRequired, foreign and edited events, an edit armed for the next write, If-Match in the log"
}

google_checks() {
    start_fake_calendar_api google --client-secret s3cret --seed 7 --redirect-uri "$web_redirect"
    google_oauth
    google_calendars
    google_events
    refusal_expr='d["error"]["errors"][0]["reason"]'
    refusal_shapes=("403 rateLimitExceeded" "403 userRateLimitExceeded" "429 rateLimitExceeded")
    expiry_and_quota google "/calendars/$gcal/events?maxResults=1" client_secret=s3cret
    call POST "$fake_api_url/oauth/revoke?token=$refresh"
    want 200 "google: /oauth/revoke"
    token grant_type=refresh_token "refresh_token=$refresh" client_secret=s3cret
    check 'd["error"] == "invalid_grant"' "google: refresh after /oauth/revoke"
    connect client_secret=s3cret
    revoked google "/calendars/$gcal/events" client_secret=s3cret
}
