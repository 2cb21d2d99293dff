# File: graph_checks.sh
# The fake Microsoft Graph's checks of push/fake_api_test.sh (sourced by it: uses its call/api/send/want/check/j
# helpers and oauth_common, expiry_and_quota, revoked).

# mev N: an event of ours as the client creates it (transactionId txn-N, key-N), 2027-03-N 10:00-11:00 UTC.
mev() {
    printf '{"subject":"Event %s","body":{"contentType":"text","content":"About %s"},"start":{"dateTime":"2027-03-%02dT10:00:00","timeZone":"UTC"},"end":{"dateTime":"2027-03-%02dT11:00:00","timeZone":"UTC"},"isAllDay":false,"location":{"displayName":"Hall"},"showAs":"busy","transactionId":"txn-%s","singleValueExtendedProperties":[{"id":"%s","value":"key-%s"}]}' \
        "$1" "$1" "$1" "$1" "$1" "$PROP" "$1"
}
# follow URL [CURL_ARGS...]: GET URL and every @odata.nextLink after it; sets m_ids (space-separated), m_pages,
# m_delta (the @odata.deltaLink of the last page, if any); every page's value is appended to $work/items.jsonl.
follow() {
    local url=$1
    shift
    m_ids='' m_pages=0
    : >"$work/items.jsonl"
    while :; do
        api GET "$url" "$@"
        want 200 "microsoft: GET $url"
        m_pages=$((m_pages + 1))
        m_ids="$m_ids$(j '"".join(" " + e["id"] for e in d["value"])')"
        j '"\n".join(json.dumps(e) for e in d["value"])' >>"$work/items.jsonl"
        url=$(j 'd.get("@odata.nextLink", "")')
        [ -z "$url" ] && break
        check '"@odata.deltaLink" not in d' "microsoft: a page with both links"
    done
    m_delta=$(j 'd.get("@odata.deltaLink", "")')
    m_ids=${m_ids# }
}
# urlq KEY=VALUE...: the query string of these parameters, percent-encoded.
urlq() {
    $python -c 'import sys, urllib.parse as u; print("&".join(u.quote(k, safe="$") + "=" + u.quote(v, safe="") for k, _, v in (a.partition("=") for a in sys.argv[1:])))' "$@"
}
# items EXPR: a Python expression over the items follow collected (as items, a list).
items() {
    $python -c 'import json, sys; items = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]; print(eval(sys.argv[2]))' \
        "$work/items.jsonl" "$1"
}

graph_oauth() {
    scope="offline_access Calendars.ReadWrite"
    oauth_common microsoft
    authorize
    token grant_type=authorization_code "code=$code" "redirect_uri=$redirect" "code_verifier=$verifier" client_secret=x
    want 401 "microsoft: a public client sending a secret"
    connect
    [ -n "$refresh" ] || fail "microsoft: no refresh token with offline_access"
    token grant_type=refresh_token "refresh_token=$refresh"
    want 200 "microsoft: refresh"
    local rotated
    rotated=$(j 'd["refresh_token"]')
    [ -n "$rotated" ] && [ "$rotated" != "$refresh" ] || fail "microsoft: the refresh token was not rotated"
    token grant_type=refresh_token "refresh_token=$refresh"
    want 400 "microsoft: the refresh token before rotation"
    check 'd["error"] == "invalid_grant"' "microsoft: a rotated-out refresh token"
    refresh=$rotated
    authorize scope=Calendars.ReadWrite
    token grant_type=authorization_code "code=$code" "redirect_uri=$redirect" "code_verifier=$verifier"
    check '"refresh_token" not in d' "microsoft: a refresh token without offline_access"
    echo "microsoft oauth: public client, refresh token only with offline_access, rotated on refresh"
}

graph_calendars() {
    api GET '/me/calendars?$top=100'
    want 200 "microsoft: GET /me/calendars"
    check '[(c["name"], c["isDefaultCalendar"], c["canEdit"]) for c in d["value"]] == [("Calendar", True, True)]' "microsoft: the default calendar"
    send POST /me/calendars '{"name":"Eventbrite"}'
    want 201 "microsoft: POST /me/calendars"
    mcal=$(j 'd["id"]')
    send POST /me/calendars '{"name":"Eventbrite"}'
    want 409 "microsoft: a second calendar of the same name"
    check 'd["error"]["code"] == "ErrorFolderExists"' "microsoft: 409"
    follow '/me/calendars?$top=1'
    [ "$m_pages" = 2 ] && [ "$(items '[c["name"] for c in items]')" = "['Calendar', 'Eventbrite']" ] ||
        fail "microsoft: the calendars by one: $m_pages pages, $(items '[c["name"] for c in items]')"
    api GET /me/calendar
    check 'd["isDefaultCalendar"] and d["name"] == "Calendar"' "microsoft: GET /me/calendar"
    echo "microsoft calendars: default one, created by name (twice: 409), paged by nextLink"
}

graph_events() {
    local n id1 etag1 ids
    send POST "/me/calendars/$mcal/events" "$(mev 1)"
    want 201 "microsoft: create"
    check 'd["@odata.etag"] == "W/\"%s\"" % d["changeKey"] and d["start"] == {"dateTime": "2027-03-01T10:00:00.0000000", "timeZone": "UTC"} and "singleValueExtendedProperties" not in d' "microsoft: the created event"
    id1=$(j 'd["id"]')
    etag1=$(j 'd["@odata.etag"]')
    send POST "/me/calendars/$mcal/events" "$(mev 1)"
    want 201 "microsoft: the same transactionId again"
    [ "$(j 'd["id"]')" = "$id1" ] || fail "microsoft: the same transactionId made a second event"
    [ "$(fake_state "len(cal('Eventbrite')['events'])")" = 1 ] || fail "microsoft: a transactionId twice left $(fake_state "len(cal('Eventbrite')['events'])") events"
    ids=$id1
    for n in 2 3 4 5; do
        send POST "/me/calendars/$mcal/events" "$(mev $n)"
        want 201 "microsoft: create $n"
        ids="$ids $(j 'd["id"]')"
    done
    send POST "/me/calendars/$mcal/events" '{"subject":"x","isAllDay":true,"start":{"dateTime":"2027-04-01T10:00:00","timeZone":"UTC"},"end":{"dateTime":"2027-04-02T10:00:00","timeZone":"UTC"}}'
    want 400 "microsoft: an all-day event not at midnight"
    fake_admin foreign '{"calendar":"Eventbrite","summary":"Dentist"}' >"$work/foreign.json"
    fid=$(j 'd["id"]' "$work/foreign.json")

    follow "/me/calendars/$mcal/events?$(urlq '$top=2' '$select=id' \
        "\$filter=singleValueExtendedProperties/Any(ep: ep/id eq '$PROP' and ep/value ne null)" \
        "\$expand=singleValueExtendedProperties(\$filter=id eq '$PROP')")"
    [ "$m_ids" = "$ids" ] && [ "$m_pages" = 3 ] || fail "microsoft: ours by filter, by 2: $m_pages pages, $m_ids (want $ids)"
    [ "$(items 'all(sorted(e) == ["@odata.etag", "changeKey", "id", "singleValueExtendedProperties"] and e["singleValueExtendedProperties"][0]["value"].startswith("key-") for e in items)')" = True ] ||
        fail "microsoft: the filtered listing's items: $(items 'items[:1]')"
    api GET "/me/calendars/$mcal/events?$(urlq "\$filter=subject eq 'Event 1'")"
    want 400 "microsoft: another \$filter"

    api GET "/me/calendars/$mcal/calendarView/delta"
    want 400 "microsoft: delta without a window"
    follow "/me/calendars/$mcal/calendarView/delta?startDateTime=2000-01-01T00:00:00Z&endDateTime=2100-01-01T00:00:00Z" -H 'Prefer: odata.maxpagesize=2'
    [ "$m_ids" = "$ids $fid" ] && [ "$m_pages" = 3 ] && [ -n "$m_delta" ] ||
        fail "microsoft: delta round 1 by 2: $m_pages pages, $m_ids, deltaLink '$m_delta'"
    check 'h.get("preference-applied") == "odata.maxpagesize=2"' "microsoft: Preference-Applied"
    [ "$(items 'any("singleValueExtendedProperties" in e or "@removed" in e for e in items)')" = False ] ||
        fail "microsoft: delta round 1 items: $(items 'items[:1]')"

    send PATCH "/me/events/$id1" '{"subject":"Changed"}' -H 'If-Match: W/"bogus"'
    want 412 "microsoft: PATCH with a wrong If-Match"
    check 'd["error"]["code"] == "ErrorIrresolvableConflict"' "microsoft: 412"
    send PATCH "/me/events/$id1" '{"subject":"Changed"}' -H "If-Match: $etag1"
    want 200 "microsoft: PATCH"
    check 'd["subject"] == "Changed" and d["@odata.etag"] != '"'$etag1'" "microsoft: PATCH changes subject and etag"
    local id2=${ids#* }
    id2=${id2%% *}
    api DELETE "/me/events/$id2"
    want 204 "microsoft: DELETE"
    api GET "/me/events/$id2?\$select=id"
    want 404 "microsoft: GET of a deleted event"
    check 'd["error"]["code"] == "ErrorItemNotFound"' "microsoft: 404"
    api DELETE "/me/events/$id2"
    want 404 "microsoft: DELETE again"
    api GET "/me/events/$id1?\$select=id"
    check 'set(d) == {"@odata.etag", "id", "changeKey"}' "microsoft: GET ?\$select=id"

    follow "$m_delta"
    [ "$m_ids" = "$id1 $id2" ] || fail "microsoft: delta round 2: $m_ids (want $id1 $id2)"
    [ "$(items '(items[0]["subject"], items[1]["@removed"])')" = "('Changed', {'reason': 'deleted'})" ] ||
        fail "microsoft: delta round 2 items: $(items 'items')"
    fake_admin edit "{\"id\":\"$fid\",\"summary\":\"Dentist, moved\"}" >/dev/null
    follow "$m_delta"
    [ "$m_ids" = "$fid" ] || fail "microsoft: delta round 3 (an edit behind the client's back): $m_ids"
    local round3=$m_delta
    follow "$m_delta"
    [ -z "$m_ids" ] || fail "microsoft: delta round 4 (no change): $m_ids"
    api GET "/me/calendars/$mcal/calendarView/delta?\$deltatoken=bogus"
    want 410 "microsoft: an unknown delta token"
    check 'd["error"]["code"] == "SyncStateNotFound"' "microsoft: 410"
    send POST "/me/calendars/$mcal/events" "$(mev 2)"
    [ "$status" = 201 ] && [ "$(j 'd["id"]')" = "$id2" ] || fail "microsoft: transactionId txn-2 again (forever) did not answer its event"
    fake_admin forget_sync >/dev/null
    api GET "$round3"
    want 410 "microsoft: a delta link after /_fake/forget_sync"
    echo "microsoft events: transactionId once, filtered listing, delta rounds with @removed, 412, 404 after delete, 410"
}

graph_checks() {
    start_fake_calendar_api microsoft --seed 7 --redirect-uri "$web_redirect"
    graph_oauth
    graph_calendars
    graph_events
    refusal_expr='d["error"]["code"] + " " + h.get("retry-after", "none")'
    refusal_shapes=("ApplicationThrottled 1" "ApplicationThrottled 2" "ApplicationThrottled 3")
    refusal_shapes=("${refusal_shapes[@]/#/429 }")
    expiry_and_quota microsoft "/me/calendars/$mcal/events?\$top=1"
    connect
    revoked microsoft /me/calendars
}
