#!/usr/bin/env bash
# File: cloud_test.sh
# Pushing the organizer feed (the fake upstream's fixture events) into a Google Calendar or Microsoft 365
# account (issue 26), against the suite's fake of that API and its authorization server
# (fake_calendar_api.py). One CASE per provider, google or microsoft; the steps, in order:
#   connect    `icsbridge connect` end to end: the printed URL followed as a browser would (the fake
#              approves at once, PKCE checked), the refresh token stored 0600, nothing secret printed
#   initial    a calendar created by name, every feed item an event of ours (job posts none: the feed is
#              events only), one write each, no duplicate; the person's own event in it untouched
#   unchanged  a second push writes nothing, in a handful of requests, listing by what changed (google:
#              syncToken; graph: the delta link), not in full
#   change     one event renamed upstream: one write, to that event
#   removal    one event gone upstream: one delete, of that event
#   loop       the API names the same next page for ever (google: nextPageToken; graph: @odata.nextLink): push
#              stops on the second time it is named, exit 1 with a line naming the target, in a handful of
#              requests, writing nothing (issue 35)
#   conflict   one of our events edited behind icsbridge's back, and again between its read and its write:
#              the update carries If-Match, meets a 412 (counted as a conflict), and the feed's version wins
#   serve      `serve` with the webhook (each case an event renamed upstream), one serve throughout:
#              - the rename is in the calendar within seconds, though the access token serve holds expired
#                at the provider meanwhile: exactly one 401, one refresh
#              - /healthz (admin) and /metrics: items, writes by kind, requests (as many as the fake saw),
#                last success
#              - a token near its expiry (the provider's lifetime short) is refreshed before use: no 401
#              - the provider refuses even a fresh access token: two 401s and one refresh, then the target
#                stops with the reason (401, icsbridge connect) in /healthz and sends nothing on the next
#                publication
#   quota      a fifth of the requests refused for quota: absorbed by backing off, the push succeeds
#   kill       kill -9 in the middle of a first push into a new calendar, then a push: no duplicate
#   moved      the target's calendar renamed in the config: the new calendar is found (created) and filled,
#              the old one left as it was
#   primary    a target with calendar_id = "primary" (Google's primary calendar, Graph's default one) fed job
#              posts: connect asks Google for calendar.events, the posts land in that calendar, each an all-day
#              event on its due date; no calendar is created, the person's own event there untouched
#   serve_revoked  consent revoked while a new serve runs: a handful of requests, /healthz's last error names
#              `icsbridge connect --config FILE cal`
#   revoked    consent revoked: push exits 1 with the reconnect command, in at most a handful of requests
#   cloud_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR PROVIDER
set -u

bin=$1
fake=$2
src=$3
provider=$5
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
. "$src/tests/push/fakeapi/cloud_serve_steps.sh"
test_name=push.cloud.$provider
fail_logs="push.out push.err serve.log connect.out connect.err fake-$provider.log fake-$provider.err"
push_init

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
secret=fake-client-secret-$RANDOM$RANDOM
start_fake_calendar_api "$provider" --client-secret "$secret"
export TEST_CLIENT_SECRET=$secret
export TEST_HOOK_SECRET=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export TEST_ADMIN_TOKEN=admin-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')

# cloud_config FILE TARGET CALENDAR: the feed pub pushed into TARGET, a calendar of that name at the fake.
cloud_config() {
    {
        server_toml "$work/state" "127.0.0.1:0" 'admin_token_env = "TEST_ADMIN_TOKEN"'
        echo
        events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"'
        echo
        organizer_feed_toml pub "push = [\"$2\"]"
        echo
        printf '[targets.%s]\ntype = "%s"\nclient_id = "test-client"\nclient_secret_env = "TEST_CLIENT_SECRET"\n' "$2" "$provider"
        printf 'calendar = "%s"\napi_base = "%s"\nauth_url = "%s"\ntoken_url = "%s"\n' "$3" "$api_base" "$auth_url" "$token_url"
    } >"$1"
}
cloud_config "$work/push.toml" cal "Events"

# feed_uids: the UIDs of the feed as export renders it now, sorted, one a line.
feed_uids() {
    export_feed "$work/feed.ics"
    grep -o '^UID:.*' "$work/feed.ics" | cut -d: -f2- | tr -d '\r' | sort -u
}

# check_mirror STEP [CALENDAR]: the calendar's events of ours are exactly the feed's UIDs, once each.
check_mirror() {
    local cal=${2:-Events} want got
    feed_uids >"$work/want.txt"
    if [ "$provider" = google ]; then
        fake_state "'\n'.join(sorted(e['iCalUID'] for e in ours(cal('$cal'))))" >"$work/got.txt"
    else
        fake_state "'\n'.join(sorted(p['value'] for e in ours(cal('$cal')) for p in e['singleValueExtendedProperties']))" >"$work/got-names.txt"
        $python - "$work/want.txt" "$work/got-names.txt" >"$work/got.txt" <<'PY'
import hashlib, sys
# Graph events carry our resource name (icsbridge-<8 hex of the writer>-<sha256(uid)[:32]>.ics): map names
# back to feed UIDs.
want = [l.strip() for l in open(sys.argv[1]) if l.strip()]
by_hash = {hashlib.sha256(u.encode()).hexdigest()[:32]: u for u in want}
def uid_of(name):
    m = __import__("re").match(r"^icsbridge-[0-9a-f]{8}-([0-9a-f]{32})\.ics$", name)
    return by_hash.get(m.group(1), "unknown:" + name) if m else "unknown:" + name
print("\n".join(sorted(uid_of(l.strip()) for l in open(sys.argv[2]) if l.strip())))
PY
    fi
    # Each marked with its writer, the target cal: Google's private property and event id, Graph's name.
    local tag marked
    tag=$(printf cal | sha256sum | cut -c1-8)
    if [ "$provider" = google ]; then
        marked=$(fake_state "all(e['extendedProperties']['private']['icsbridge'] == 'cal' and e['id'].startswith('$tag') for e in ours(cal('$cal')))")
    else
        marked=$(fake_state "all(p['value'].startswith('icsbridge-$tag-') for e in ours(cal('$cal')) for p in e['singleValueExtendedProperties'])")
    fi
    [ "$marked" = True ] || fail "$1: an event of ours is not marked as target cal's"
    want=$(wc -l <"$work/want.txt")
    got=$(wc -l <"$work/got.txt")
    diff -q "$work/want.txt" "$work/got.txt" >/dev/null ||
        fail "$1: the calendar's events of ours ($got) are not the feed's $want: $(diff "$work/want.txt" "$work/got.txt" | head -5)"
    echo "$1: $got events of ours, as the feed"
}

# writes_were WHAT N: the events written (inserted, updated, deleted) since the counts were reset.
writes_were() {
    local n
    n=$(fake_state "sum(d['requests']['by_kind'][k] for k in ('insert', 'update', 'delete'))")
    [ "$n" = "$2" ] || fail "$1: $n writes, want $2 ($(fake_state "d['requests']['by_kind']"))"
}

# foreign_untouched WHAT: the person's own event in the calendar is as it was.
foreign_untouched() {
    [ "$(fake_state "[e for e in live(cal('Events')) if e not in ours(cal('Events'))]")" = "$foreign" ] ||
        fail "$1: the person's own event changed or went"
}

step_connect() {
    connect_with "$bin" "$work/push.toml" cal
    local token="$work/state/oauth/cal.json"
    [ -f "$token" ] || fail "connect stored no token at $token"
    [ "$(stat -c %a "$token")" = 600 ] || fail "the token file is mode $(stat -c %a "$token")"
    grep -q refresh_token "$token" || fail "the token file holds no refresh token"
    grep -q access_token "$token" && fail "the token file holds an access token"
    grep -qF "$secret" "$work/connect.out" "$work/connect.err" "$token" && fail "the client secret was printed or stored"
    grep -qi "connected" "$work/connect.out" || fail "connect did not say it connected: $(cat "$work/connect.out")"
    echo "connect: token stored"
}

step_initial() {
    fake_admin reset_counts >/dev/null
    expect_push_ok "initial push"
    local n
    n=$(feed_uids | wc -l)
    grep -q "cal: created $n, updated 0, deleted 0, unchanged 0" "$work/push.out" ||
        fail "initial push printed: $(cat "$work/push.out" "$work/push.err")"
    writes_were "initial push" "$n"
    check_mirror "initial push"
    [ "$provider" != google ] || [ "$(fake_state "cal('Events')['app_created']")" = True ] ||
        fail "the calendar Events was not created by icsbridge"
    # The person adds an event of their own to the calendar: every later step leaves it alone.
    fake_admin foreign '{"calendar": "Events", "summary": "Dentist", "start": "2026-12-02T09:00:00Z", "end": "2026-12-02T10:00:00Z"}' >/dev/null
    foreign=$(fake_state "[e for e in live(cal('Events')) if e not in ours(cal('Events'))]")
    [ "$foreign" != "[]" ] || fail "the person's own event is not in the calendar"
    grep -qF "$secret" "$work/push.out" "$work/push.err" "$work/state/push/cal.json" && fail "a secret in the output or state"
    [ "$(fake_state "len([c for c in d['calendars'] if c['name'] == 'Events'])")" = 1 ] || fail "a second calendar Events"
}

# fake_log_mark: remembers where the fake's request log ends now; fake_log_since prints what came after.
fake_log_mark() { log_mark=$(wc -l <"$work/fake-$provider.log"); }
fake_log_since() { tail -n +$((log_mark + 1)) "$work/fake-$provider.log"; }

# incremental_listing WHAT: the requests since fake_log_mark listed our events by what changed (google: every
# events list with syncToken; graph: delta rounds from the delta link alone), never in full.
incremental_listing() {
    local lines
    lines=$(fake_log_since | awk '$5 == "list" || $5 == "delta" || $5 == "calendar"')
    if [ "$provider" = google ]; then
        [ -n "$lines" ] && ! grep -v '^GET /calendar/v3/calendars/[^ ]*/events?[^ ]*syncToken=' <<<"$lines" >/dev/null ||
            fail "$1: not every listing used the sync token: $lines"
    else
        [ -n "$lines" ] && ! grep -v '^GET /v1.0/me/calendars/[^ ]*/calendarView/delta?[^ ]*\$deltatoken=' <<<"$lines" >/dev/null ||
            fail "$1: not every listing followed the delta link: $lines"
        grep -q 'startDateTime' <<<"$lines" && fail "$1: a new delta round instead of the delta link: $lines"
    fi
}

step_unchanged() {
    fake_admin reset_counts >/dev/null
    fake_log_mark
    expect_push_ok "second push"
    incremental_listing "second push"
    grep -q "cal: created 0, updated 0, deleted 0" "$work/push.out" || fail "second push printed: $(cat "$work/push.out")"
    writes_were "second push" 0
    local n
    n=$(fake_requests total)
    [ "$n" -le 5 ] || fail "a push with nothing changed made $n requests: $(fake_state "d['requests']['by_kind']")"
    foreign_untouched "second push"
    echo "unchanged: $n requests"
}

step_change() {
    changed_fixtures "$src" "$work/changed"
    curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
    fake_admin reset_counts >/dev/null
    expect_push_ok "push after a change"
    grep -q "cal: created 0, updated 1, deleted 0" "$work/push.out" || fail "push after a change printed: $(cat "$work/push.out")"
    writes_were "one change" 1
    fake_state "[e.get('summary') or e.get('subject') for e in ours(cal('Events')) if 'MOVED' in (e.get('summary') or e.get('subject') or '')]" |
        grep -q MOVED || fail "the renamed event is not renamed in the calendar"
    check_mirror "one change"
}

step_removal() {
    rm -rf "$work/removed"
    cp -r "$work/changed" "$work/removed"
    $python - "$work/removed/events/events.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["events"] = [e for e in d["events"] if e["id"] != "251769507000"]
json.dump(d, open(sys.argv[1], "w"), ensure_ascii=False, indent=1)
PY
    curl -s -X POST "$upstream/__control/reload?dir=$work/removed" >/dev/null
    fake_admin reset_counts >/dev/null
    expect_push_ok "push after a removal"
    grep -q "cal: created 0, updated 0, deleted 1" "$work/push.out" || fail "push after a removal printed: $(cat "$work/push.out")"
    writes_were "one removal" 1
    check_mirror "one removal"
    foreign_untouched "one removal"
}

# event_content ID: what the feed decides of our event ID (title, text, place, times), as the fake holds it.
event_content() {
    local keys="'summary', 'description', 'location', 'start', 'end'"
    [ "$provider" = google ] || keys="'subject', 'body', 'location', 'start', 'end', 'isAllDay'"
    fake_state "[{k: e.get(k) for k in ($keys)} for e in ours(cal('Events')) if e['id'] == '$1']"
}

step_conflict() {
    # One of our events edited behind icsbridge's back, and again between its read and its write (the fake
    # makes the second edit just before it serves the write): the update carries If-Match, is answered 412,
    # counted as a conflict, and the event ends as the feed has it (the feed wins).
    local id want updates
    id=$(fake_state "ours(cal('Events'))[0]['id']")
    want=$(event_content "$id")
    fake_admin edit "{\"id\": \"$id\", \"summary\": \"Edited by hand\"}" >/dev/null
    fake_admin edit "{\"id\": \"$id\", \"summary\": \"Edited again\", \"when\": \"before_write\"}" >/dev/null
    fake_log_mark
    expect_push_ok "push over an edit behind icsbridge's back"
    grep -q "cal: created 0, updated 1, deleted 0, .*, 1 conflict resolved)" "$work/push.out" ||
        fail "push over an edit printed: $(cat "$work/push.out")"
    updates=$(fake_log_since | awk '$5 == "update" { print $3, $6 }' | paste -sd,)
    [ "$updates" = "412 if-match,200 if-match" ] ||
        fail "the updates of the edited event (status, If-Match) were: $updates (want a 412 then a 200, both with If-Match)"
    [ "$(event_content "$id")" = "$want" ] ||
        fail "the edited event is not as the feed has it: $(event_content "$id") (want $want)"
    check_mirror "after edits behind icsbridge's back"
    foreign_untouched "after edits behind icsbridge's back"
    echo "conflict: If-Match sent, 412 answered, one conflict, the feed's version restored"
}

step_quota() {
    # A fifth: a request refused 6 times running gives up (for the period), 0.2^6 per request; at a third
    # that was one run in 30.
    fake_admin config '{"error_rate": 0.2}' >/dev/null
    rm -f "$work/state/push/cal.json" # lost state: a full listing and many reads
    fake_admin reset_counts >/dev/null
    expect_push_ok "push with a fifth of the requests refused for quota"
    local refused
    refused=$(fake_requests quota_refused)
    fake_admin config '{"error_rate": 0}' >/dev/null
    [ "$refused" -ge 1 ] || fail "no request was refused for quota: the case tested nothing"
    [ "$(fake_requests by_kind insert)" = 0 ] && [ "$(fake_requests by_kind delete)" = 0 ] ||
        fail "with the state lost, events were created or deleted: $(fake_state "d['requests']['by_kind']")"
    check_mirror "quota errors absorbed"
    foreign_untouched "lost state under quota errors"
    echo "quota: $refused refusals absorbed"
}

step_kill() {
    cloud_config "$work/kill.toml" cal "Second"
    fake_admin config '{"latency_ms": 150}' >/dev/null
    "$bin" push --config "$work/kill.toml" >"$work/kill.out" 2>"$work/kill.err" &
    local pid=$! n
    for _ in $(seq 1 100); do
        n=$(fake_state "len(ours(cal('Second'))) if any(c['name'] == 'Second' for c in d['calendars']) else 0" "events=1")
        [ "$n" -ge 5 ] && break
        sleep 0.1
    done
    kill -9 "$pid"
    wait "$pid" 2>/dev/null
    fake_admin config '{"latency_ms": 0}' >/dev/null
    n=$(fake_state "len(ours(cal('Second')))")
    [ "$n" -lt "$(feed_uids | wc -l)" ] || fail "the push ended before it was killed ($n events): the case tested nothing"
    "$bin" push --config "$work/kill.toml" >"$work/push.out" 2>"$work/push.err" || fail "push after kill -9 failed: $(cat "$work/push.err")"
    check_mirror "after kill -9" Second
    [ "$(fake_state "len([c for c in d['calendars'] if c['name'] == 'Second'])")" = 1 ] || fail "a second calendar Second after kill -9"
    echo "kill: $n events before the kill, no duplicate after"
}

step_moved() {
    # The config now names another calendar: the state of the old one must not be used for it.
    local before
    before=$(fake_state "len(ours(cal('Events')))")
    sed -i 's/^calendar = "Events"/calendar = "Moved"/' "$work/push.toml"
    expect_push_ok "push after the target was moved to another calendar"
    check_mirror "moved to another calendar" Moved
    [ "$(fake_state "len(ours(cal('Events')))")" = "$before" ] || fail "the old calendar changed when the target moved"
    sed -i 's/^calendar = "Moved"/calendar = "Events"/' "$work/push.toml"
}

step_primary() {
    # A target with calendar_id = "primary" (Google's primary calendar, Graph's default one), fed job posts: it
    # asks Google for the calendar.events scope (calendar.app.created reaches only calendars it made; the fake
    # refuses the primary one with it), writes into that calendar, creates none, and leaves the person's own
    # event there alone.
    local want_scope=https://www.googleapis.com/auth/calendar.events scope calendars n own
    [ "$provider" = google ] || want_scope="offline_access Calendars.ReadWrite"
    {
        server_toml "$work/state" "127.0.0.1:0"
        echo
        jobs_source_toml "$upstream"
        echo
        feed_toml jobs jobs search 'filter = { keywords = ["Go & Postgres"] }' 'push = ["prim"]'
        printf '\n[targets.prim]\ntype = "%s"\nclient_id = "test-client"\nclient_secret_env = "TEST_CLIENT_SECRET"\n' "$provider"
        printf 'calendar_id = "primary"\napi_base = "%s"\nauth_url = "%s"\ntoken_url = "%s"\n' "$api_base" "$auth_url" "$token_url"
    } >"$work/primary.toml"
    connect_with "$bin" "$work/primary.toml" prim
    scope=$($python -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[1]).query)["scope"][0])' "$connect_url")
    [ "$scope" = "$want_scope" ] || fail "a target with calendar_id asked the scope '$scope', want '$want_scope'"
    fake_admin foreign '{"summary": "Birthday", "start": "2026-12-20"}' >/dev/null
    local main="next(c for c in d['calendars'] if c['main'])"
    own=$(fake_state "[e for e in live($main) if e not in ours($main)]")
    calendars=$(fake_state "len(d['calendars'])")
    "$bin" export --config "$work/primary.toml" --feed jobs --output "$work/jobs.ics" 2>"$work/export.err" ||
        fail "export of the jobs feed failed: $(cat "$work/export.err")"
    n=$(grep -c '^BEGIN:VTODO' "$work/jobs.ics")
    [ "$n" -ge 1 ] || fail "the jobs feed has no job post"
    "$bin" push --config "$work/primary.toml" >"$work/push.out" 2>"$work/push.err" ||
        fail "push into the primary calendar failed: $(cat "$work/push.err")"
    grep -q "^prim: created $n, updated 0, deleted 0" "$work/push.out" || fail "push into the primary calendar printed: $(cat "$work/push.out")"
    [ "$(fake_state "len(ours($main))")" = "$n" ] || fail "the primary calendar holds $(fake_state "len(ours($main))") of our events, want $n"
    [ "$(fake_state "len(d['calendars'])")" = "$calendars" ] || fail "a push into calendar_id = primary created a calendar"
    [ "$(fake_state "[e for e in live($main) if e not in ours($main)]")" = "$own" ] ||
        fail "the person's own event in the primary calendar changed or went"
    all_day_on_due "$work/jobs.ics"
    echo "primary: scope $scope, $n job posts in the primary calendar, each an all-day event on its due date"
}

# all_day_on_due ICS: each job post (VTODO) of ICS is an event of ours in the main calendar lasting the whole
# day of its DUE date (neither API takes tasks).
all_day_on_due() {
    curl -s -f "$fake_api_url/_fake/state" >"$work/fake-state.json" || fail "GET /_fake/state failed"
    $python - "$1" "$work/fake-state.json" "$provider" <<'PY' || fail "job posts are not all-day events on their due dates"
import datetime, hashlib, json, re, sys
ics = re.sub(r"\r?\n[ \t]", "", open(sys.argv[1]).read())
due = {}
for todo in re.findall(r"BEGIN:VTODO(.*?)END:VTODO", ics, re.S):
    uid = re.search(r"^UID:(.*)$", todo, re.M).group(1).strip()
    day = datetime.datetime.strptime(re.search(r"^DUE;VALUE=DATE:(\d{8})", todo, re.M).group(1), "%Y%m%d").date()
    due[uid] = (day.isoformat(), (day + datetime.timedelta(days=1)).isoformat())
main = next(c for c in json.load(open(sys.argv[2]))["calendars"] if c["main"])
got = {}
for e in main["events"]:
    if e["deleted"]:
        continue
    if sys.argv[3] == "google":
        if e.get("extendedProperties", {}).get("private", {}).get("icsbridge"):
            got[e["iCalUID"]] = (e["start"].get("date"), e["end"].get("date"))
        continue
    names = [p["value"] for p in e["singleValueExtendedProperties"] if p["id"].endswith("Name icsbridge")]
    uid = next((u for u in due if names and names[0].endswith("-%s.ics" % hashlib.sha256(u.encode()).hexdigest()[:32])), None)
    midnight = all(e[k]["dateTime"][10:19] == "T00:00:00" for k in ("start", "end"))  # Graph adds .0000000
    if names and e["isAllDay"] and midnight:
        got[uid] = (e["start"]["dateTime"][:10], e["end"]["dateTime"][:10])
    elif names:
        got[uid] = ("not all-day", e["start"], e["end"])
if got != due:
    print("want (start, end) by UID %s, the calendar has %s" % (due, got), file=sys.stderr)
    sys.exit(1)
PY
}

step_loop() {
    fake_admin config '{"repeat_page_token": true}' >/dev/null
    fake_admin reset_counts >/dev/null
    timeout 60 "$bin" push --config "$work/push.toml" >"$work/push.out" 2>"$work/push.err"
    push_rc=$?
    fake_admin config '{"repeat_page_token": false}' >/dev/null
    [ "$push_rc" = 1 ] ||
        fail "a listing that never ends: push exited $push_rc (want 1; 124: still listing after 60 s): $(head -c 300 "$work/push.err")"
    grep "cal" "$work/push.err" | grep -q "never end" || fail "a listing that never ends: $(cat "$work/push.err")"
    local n
    n=$(fake_requests total)
    [ "$n" -le 6 ] || fail "a listing that never ends cost $n requests: $(fake_state "d['requests']['by_kind']")"
    writes_were "a listing that never ends" 0
    echo "loop: exit 1 after $n requests: $(head -c 300 "$work/push.err")"
}

step_revoked() {
    fake_admin revoke >/dev/null
    fake_admin reset_counts >/dev/null
    run_push
    [ "$push_rc" = 1 ] || fail "push with revoked consent exited $push_rc"
    grep -q "icsbridge connect --config" "$work/push.err" || fail "no reconnect command: $(cat "$work/push.err")"
    local n
    n=$(fake_requests total)
    [ "$n" -le 3 ] || fail "revoked consent cost $n requests: $(fake_state "d['requests']['by_kind']")"
    # The refusal is kept: check says so and how to cure it, not "connected" (issue 35).
    "$bin" check --config "$work/push.toml" >"$work/check.out" 2>&1
    grep -q "^  token:   target cal: [A-Za-z]* refused its sign-in on [0-9T:Z-]* (invalid_grant.*); run icsbridge connect --config .* cal again$" \
        "$work/check.out" || fail "check after invalid_grant: $(grep 'token:' "$work/check.out")"
    echo "revoked: exit 1, $n requests: $(head -c 300 "$work/push.err")"
}

for step in connect initial unchanged change removal loop conflict serve quota kill moved primary serve_revoked revoked; do
    step_started=$(date +%s%N)
    "step_$step"
    echo "  ($step: $(( ($(date +%s%N) - step_started) / 1000000 )) ms)"
done
echo "push.cloud.$provider: ok"
