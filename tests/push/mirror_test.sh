#!/usr/bin/env bash
# File: mirror_test.sh
# `icsbridge push` mirrors the organizer feed (the fake upstream's 34 fixture events) into a Radicale
# calendar, seen through the logging proxy and read back with python3-caldav (issue 25). One CASE per CTest
# entry; each runs the steps up to its own, in this order:
#   initial    every feed item is a resource of ours with the feed's UID, SUMMARY, DTSTART... and its
#              VTIMEZONEs; one PUT per item, no duplicate; the state file is private and holds no password
#   unchanged  a second push writes nothing and costs one request (the sync-collection REPORT)
#   change     one event renamed upstream: exactly one PUT, to that item's resource
#   removal    one event gone upstream: exactly one DELETE, of that item's resource, with its ETag in
#              If-Match; then an event cancelled upstream: one PUT, the resource says STATUS:CANCELLED; the
#              feed's cancelled = "drop": one DELETE per cancelled event, and one more when another is
#              cancelled; an event moved to 60 days ago (one PUT), then keep_past = "30d": one DELETE.
#              Every DELETE carries If-Match with the item's ETag
#   foreign    all of the above, then the state file deleted and a push again (no duplicate, nothing lost);
#              last, the person adds an event named icsbridge-notes.ics (not ours: ours are
#              icsbridge-<8 hex>-<32 hex>.ics) and a push leaves it alone. In every case the person's own items (an
#              event and a VTODO) keep their ETags after every step and get no request
#   dry_run    --dry-run before the first push and after a change: the plan printed, nothing written
#   drift      one of our items edited and one deleted in the calendar behind our back: the next push puts
#              both back as the feed has them (the feed wins); then a real conflict: a changed event's
#              item is changed in the calendar between the push's listing and its write (by the proxy):
#              its PUT is refused 412, the item is read again, the second PUT carries the new ETag in
#              If-Match, the push reports 1 conflict resolved, and the calendar has the feed's version
#   mirror_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR CASE
set -u

bin=$1
fake=$2
src=$3
case_name=$5
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=push.mirror.$case_name
fail_logs="push.out push.err export.err proxy.log radicale.log fake.log"
push_init

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
start_radicale
start_dav_proxy
export TEST_DAV_PASSWORD=$dav_password
make_calendar "$dav_user/family/" "Family"
collection="${proxy_url}$dav_user/family/"
push_feed_config "$work/push.toml" "url = \"$collection\""

# The person's own items, beside ours: a plain event, a task.
put_foreign_event "$dav_user/family/dentist.ics" dentist-1@example.org "Dentist"
code=$(printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//EN\r\nBEGIN:VTODO\r\nUID:todo-1@example.org\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\nEND:VCALENDAR\r\n' |
    dav_curl -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: text/calendar' --data-binary @- \
        "$radicale_url$dav_user/family/todo.ics")
[ "$code" = 201 ] || fail "could not PUT the foreign task (HTTP $code)"
dav_check --calendar Family >"$work/foreign.json" || fail "dav_check failed"
foreign_etags=$(json_get "$work/foreign.json" '" ".join(sorted(i["href"] + "=" + i["etag"] for i in d["items"]))')

# check_calendar STEP: the calendar holds exactly the feed (as export renders it now) plus the foreign items,
# untouched; no duplicate UID, every zone an item names carried with it.
check_calendar() {
    export_feed "$work/feed.ics"
    dav_check --calendar Family --compare "$work/feed.ics" >"$work/cal.json" || fail "$1: dav_check failed"
    local want got
    want=$(grep -c '^BEGIN:VEVENT' "$work/feed.ics")
    got=$(json_get "$work/cal.json" 'd["ours"]')
    [ "$got" = "$want" ] || fail "$1: $got items of ours in the calendar, the feed has $want"
    [ "$(json_get "$work/cal.json" 'd["compare"]["missing"]')" = "[]" ] ||
        fail "$1: feed items missing from the calendar: $(json_get "$work/cal.json" 'd["compare"]["missing"]')"
    [ "$(json_get "$work/cal.json" 'd["compare"]["extra"]')" = "[]" ] ||
        fail "$1: items of ours the feed does not have: $(json_get "$work/cal.json" 'd["compare"]["extra"]')"
    [ "$(json_get "$work/cal.json" 'd["compare"]["different"][:3]')" = "[]" ] ||
        fail "$1: items differ from the feed (uid, property, feed, calendar): $(json_get "$work/cal.json" 'd["compare"]["different"][:3]')"
    [ "$(json_get "$work/cal.json" 'd["duplicate_uids"]')" = "[]" ] ||
        fail "$1: duplicate UIDs: $(json_get "$work/cal.json" 'd["duplicate_uids"][:5]')"
    [ "$(json_get "$work/cal.json" 'd["missing_vtimezone"][:3]')" = "[]" ] ||
        fail "$1: items name a TZID without its VTIMEZONE: $(json_get "$work/cal.json" 'd["missing_vtimezone"][:3]')"
    [ "$(json_get "$work/cal.json" 'len([i for i in d["items"] if i["ours"] and i["components"] != ["VEVENT"]])')" = 0 ] ||
        fail "$1: a resource of ours holds other than one VEVENT"
    # Each of ours under the name of its UID.
    [ "$(json_get "$work/cal.json" 'sum(1 for i in d["items"] if i["ours"] and i["name"] != "icsbridge-" + __import__("hashlib").sha256(b"family").hexdigest()[:8] + "-" + __import__("hashlib").sha256(i["uid"].encode()).hexdigest()[:32] + ".ics")')" = 0 ] ||
        fail "$1: a resource of ours is not named after its UID"
    local now
    now=$(json_get "$work/cal.json" '" ".join(sorted(i["href"] + "=" + i["etag"] for i in d["items"] if not i["ours"]))')
    [ "$now" = "$foreign_etags" ] || fail "$1: the person's own items changed: before [$foreign_etags], now [$now]"
    grep -E '^(PUT|DELETE|PROPPATCH|MOVE) ' "$work/proxy.log" | grep -v " /$dav_user/family/icsbridge-[0-9a-f]\{8\}-[0-9a-f]\{32\}\.ics " |
        grep -q . && fail "$1: a write to a resource that is not ours: $(grep -E '^(PUT|DELETE) ' "$work/proxy.log" | grep -v 'icsbridge-[0-9a-f]\{8\}-[0-9a-f]\{32\}' | head -3)"
    echo "$1: $got items of ours, the person's $(json_get "$work/cal.json" 'd["foreign"]') untouched"
}

# writes_were WHAT PUT DELETE: the proxy log since the last reset has exactly that many PUTs and DELETEs
# (all answered 2xx) and no other write.
writes_were() {
    local puts dels other bad
    puts=$(proxy_count PUT)
    dels=$(proxy_count DELETE)
    other=$(proxy_count MKCALENDAR MKCOL PROPPATCH MOVE COPY)
    bad=$(awk '$1 ~ /^(PUT|DELETE)$/ && $3 !~ /^2/' "$work/proxy.log" | head -3)
    [ "$puts" = "$2" ] && [ "$dels" = "$3" ] && [ "$other" = 0 ] ||
        fail "$1: $puts PUT, $dels DELETE, $other other writes (want $2 PUT, $3 DELETE): $(proxy_summary)"
    [ -z "$bad" ] || fail "$1: writes that failed: $bad"
}

step_initial() {
    proxy_reset_log
    expect_push_ok "initial push"
    grep -q "family: created 34, updated 0, deleted 0, unchanged 0" "$work/push.out" ||
        fail "initial push printed: $(cat "$work/push.out") ($(grep '^DELETE' "$work/proxy.log" | head -3))"
    writes_were "initial push" 34 0
    [ "$(proxy_created)" = 34 ] || fail "initial push: not every PUT was a create (If-None-Match: *) answered 201: $(proxy_summary)"
    check_calendar "initial push"
    # Spot checks a reader sees: the zone of a Berlin event, and its VTIMEZONE in the same resource.
    json_get "$work/cal.json" '[i for i in d["items"] if i["uid"] == "event-548060677542@127.0.0.1"][0]' >"$work/berlin.txt"
    grep -q "TZID=Europe/Berlin" "$work/berlin.txt" && grep -q "'vtimezones': \['Europe/Berlin'\]" "$work/berlin.txt" ||
        fail "the Berlin event has not its zone: $(cat "$work/berlin.txt")"
    local state="$work/state/push/family.json"
    [ -f "$state" ] || fail "no state file at $state"
    [ "$(stat -c %a "$state")" = 600 ] || fail "the state file is mode $(stat -c %a "$state"), not 600"
    grep -qF "$dav_password" "$state" "$work/push.out" "$work/push.err" && fail "the password is in the state or output"
}

step_unchanged() {
    proxy_reset_log
    expect_push_ok "second push"
    grep -q "family: created 0, updated 0, deleted 0, unchanged 34" "$work/push.out" ||
        fail "second push printed: $(cat "$work/push.out")"
    writes_were "second push" 0 0
    local n
    n=$(proxy_count)
    # One sync-collection REPORT from the kept token, as the README says: nothing else to ask.
    [ "$n" = 1 ] && [ "$(proxy_count REPORT -s 207)" = 1 ] ||
        fail "a push with nothing changed made $n requests (want the one REPORT): $(proxy_summary)"
    grep -q "unchanged 34 (1 request)$" "$work/push.out" || fail "one request is not said so: $(cat "$work/push.out")"
    echo "unchanged: $n request(s): $(proxy_summary)"
    check_calendar "second push"
}

step_change() {
    changed_fixtures "$src" "$work/changed"
    curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
    proxy_reset_log
    expect_push_ok "push after a change"
    grep -q "family: created 0, updated 1, deleted 0, unchanged 33" "$work/push.out" ||
        fail "push after a change printed: $(cat "$work/push.out")"
    writes_were "one change" 1 0
    local name
    name=$(resource_name event-788216780592@127.0.0.1 family)
    grep -q "^PUT /$dav_user/family/$name " "$work/proxy.log" || fail "the PUT was not to the changed item's $name"
    check_calendar "one change"
    json_get "$work/cal.json" '[i["summary"] for i in d["items"] if i["uid"] == "event-788216780592@127.0.0.1"]' |
        grep -q MOVED || fail "the changed event's new SUMMARY is not in the calendar"
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
    proxy_reset_log
    expect_push_ok "push after a removal"
    grep -q "family: created 0, updated 0, deleted 1, unchanged 33" "$work/push.out" ||
        fail "push after a removal printed: $(cat "$work/push.out")"
    writes_were "one removal" 0 1
    grep -q "^DELETE /$dav_user/family/$(resource_name event-251769507000@127.0.0.1 family) 2" "$work/proxy.log" ||
        fail "the DELETE was not of the removed item's resource"
    deletes_match "one removal"
    check_calendar "one removal"
}

# deletes_match WHAT: every DELETE in the proxy log carried If-Match with the ETag the item had in the
# calendar before ($work/cal.json, the last check_calendar's reading).
deletes_match() {
    local etags bad
    etags=$(json_get "$work/cal.json" '" ".join(i["href"] + "=" + "".join(i["etag"].split()) for i in d["items"])')
    bad=$(awk -v known=" $etags " '$1 == "DELETE" && ($5 != "match" || !index(known, " " $2 "=" $8 " "))' "$work/proxy.log")
    [ -z "$bad" ] || fail "$1: a DELETE without the item's ETag in If-Match: $bad"
}

# upstream_edit FROM TO ID CHANGE: TO is a copy of fixtures dir FROM with event ID changed (CHANGE: "cancel",
# its status canceled; or "past", it starts 61 and ends 60 days ago), served by the fake upstream now.
upstream_edit() {
    rm -rf "$2"
    cp -r "$1" "$2"
    $python - "$2/events/events.json" "$3" "$4" <<'PY' || fail "could not edit event $3"
import datetime, json, sys, zoneinfo
path, wanted, change = sys.argv[1:]
d = json.load(open(path))
e = [e for e in d["events"] if e["id"] == wanted][0]
if change == "cancel":
    e["status"] = "canceled"
else:
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    for key, ago in (("start", 61), ("end", 60)):
        at = now - datetime.timedelta(days=ago)
        e[key]["utc"] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
        e[key]["local"] = at.astimezone(zoneinfo.ZoneInfo(e[key]["timezone"])).strftime("%Y-%m-%dT%H:%M:%S")
json.dump(d, open(path, "w"), ensure_ascii=False, indent=1)
PY
    curl -s -f -X POST -o /dev/null "$upstream/__control/reload?dir=$2" || fail "could not reload the upstream from $2"
}

# push_writes_of WHAT WANT_LINE PUTS DELETES: a push printing WANT_LINE with exactly that many writes, each
# DELETE with the item's ETag in If-Match.
push_writes_of() {
    if [ "$4" != 0 ]; then dav_check --calendar Family >"$work/cal.json" || fail "$1: dav_check failed"; fi
    proxy_reset_log
    expect_push_ok "$1"
    grep -q "^family: $2" "$work/push.out" || fail "$1: push printed $(cat "$work/push.out") (want $2)"
    writes_were "$1" "$3" "$4"
    deletes_match "$1"
}

# step_lifecycle: an event cancelled upstream, then cancelled = "drop", then an event past keep_past.
step_lifecycle() {
    local hikes brunch jazz
    hikes=$(resource_name event-594357040111@127.0.0.1 family)
    brunch=$(resource_name event-733775555972@127.0.0.1 family)
    jazz=$(resource_name event-306006468130@127.0.0.1 family)
    upstream_edit "$work/removed" "$work/cancelled" 594357040111 cancel
    push_writes_of "cancelled upstream" "created 0, updated 1, deleted 0," 1 0
    grep -q "^PUT /$dav_user/family/$hikes .* match " "$work/proxy.log" || fail "the cancellation's PUT was not to $hikes"
    dav_curl "$radicale_url$dav_user/family/$hikes" | grep -q '^STATUS:CANCELLED' ||
        fail "the cancelled event's resource has no STATUS:CANCELLED"
    sed -i 's/^push = \["family"\]$/&\ncancelled = "drop"/' "$work/push.toml"
    grep -q '^cancelled = "drop"' "$work/push.toml" || fail "could not set cancelled = drop"
    push_writes_of 'cancelled = "drop"' "created 0, updated 0, deleted 2," 0 2
    [ "$(grep -c -E "^DELETE /$dav_user/family/($hikes|$jazz) " "$work/proxy.log")" = 2 ] ||
        fail "cancelled = drop deleted other than the two cancelled events: $(grep '^DELETE' "$work/proxy.log")"
    upstream_edit "$work/cancelled" "$work/cancelled2" 733775555972 cancel
    push_writes_of "cancelled upstream, dropped" "created 0, updated 0, deleted 1," 0 1
    grep -q "^DELETE /$dav_user/family/$brunch " "$work/proxy.log" || fail "the dropped cancellation's DELETE was not of $brunch"
    # Ended 60 days ago: within keep_past = 3650d an update (its dates), then out of keep_past = 30d.
    upstream_edit "$work/cancelled2" "$work/past" 195729862626 past
    push_writes_of "an event that ended 60 days ago" "created 0, updated 1, deleted 0," 1 0
    sed -i 's/^keep_past = "3650d"$/keep_past = "30d"/' "$work/push.toml"
    push_writes_of "keep_past = 30d" "created 0, updated 0, deleted 1," 0 1
    grep -q "^DELETE /$dav_user/family/$(resource_name event-195729862626@127.0.0.1 family) " "$work/proxy.log" ||
        fail "the expired event's DELETE was not of its resource: $(grep '^DELETE' "$work/proxy.log")"
    check_calendar "after cancellations and expiry"
}

step_lost_state() {
    rm -f "$work/state/push/family.json"
    proxy_reset_log
    expect_push_ok "push after the state file was deleted"
    [ "$(proxy_created)" = 0 ] || fail "with the state lost, $(proxy_created) items were created again"
    [ "$(proxy_count DELETE)" = 0 ] || fail "with the state lost, $(proxy_count DELETE) items were deleted"
    echo "lost state: $(proxy_summary)"
    check_calendar "lost state"
    proxy_reset_log
    expect_push_ok "push after the state was rebuilt"
    writes_were "push after the state was rebuilt" 0 0
}

step_prefix_alike() {
    put_foreign_event "$dav_user/family/icsbridge-notes.ics" notes-1@example.org "My notes about icsbridge"
    dav_check --calendar Family >"$work/foreign.json" || fail "dav_check failed"
    foreign_etags=$(json_get "$work/foreign.json" '" ".join(sorted(i["href"] + "=" + i["etag"] for i in d["items"] if not i["ours"]))')
    proxy_reset_log
    expect_push_ok "push beside icsbridge-notes.ics"
    writes_were "push beside icsbridge-notes.ics" 0 0
    check_calendar "beside icsbridge-notes.ics"
}

step_dry_run() {
    proxy_reset_log
    run_push --dry-run
    [ "$push_rc" = 0 ] || fail "dry run exited $push_rc: $(cat "$work/push.err")"
    grep -q "family: would create 34, update 0, delete 0; 0 unchanged" "$work/push.out" ||
        fail "dry run printed: $(head -3 "$work/push.out")"
    [ "$(grep -c '^  create ' "$work/push.out")" = 34 ] || fail "dry run did not list 34 creates"
    grep -q '^  create event-788216780592@127.0.0.1$' "$work/push.out" || fail "dry run does not name the UIDs"
    [ "$(proxy_writes)" = 0 ] || fail "dry run wrote: $(proxy_summary)"
    [ "$(dav_check --calendar Family | $python -c 'import json,sys; print(json.load(sys.stdin)["ours"])')" = 0 ] ||
        fail "dry run put items into the calendar"
    step_initial
    changed_fixtures "$src" "$work/changed"
    curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
    proxy_reset_log
    run_push --dry-run
    [ "$push_rc" = 0 ] || fail "dry run after a change exited $push_rc"
    grep -q "family: would create 0, update 1, delete 0; 33 unchanged" "$work/push.out" ||
        fail "dry run after a change printed: $(head -3 "$work/push.out")"
    grep -q '^  update event-788216780592@127.0.0.1$' "$work/push.out" || fail "dry run does not name the update"
    [ "$(proxy_writes)" = 0 ] || fail "dry run after a change wrote: $(proxy_summary)"
    step_change # the real push still has the one update to make
}

step_drift() {
    local edited deleted
    edited=$(resource_name event-548060677542@127.0.0.1 family)
    deleted=$(resource_name event-360710890908@127.0.0.1 family)
    printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//EN\r\nBEGIN:VEVENT\r\nUID:event-548060677542@127.0.0.1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261212T190000Z\r\nSUMMARY:Edited in the calendar app\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' |
        dav_curl -f -o /dev/null -X PUT -H 'Content-Type: text/calendar' --data-binary @- "$radicale_url$dav_user/family/$edited" ||
        fail "could not edit $edited behind icsbridge's back"
    dav_curl -f -o /dev/null -X DELETE "$radicale_url$dav_user/family/$deleted" || fail "could not delete $deleted"
    proxy_reset_log
    expect_push_ok "push after drift"
    grep -q "family: created 1, updated 1, deleted 0, unchanged 32" "$work/push.out" ||
        fail "push after drift printed: $(cat "$work/push.out")"
    writes_were "drift" 2 0
    check_calendar "drift"

    # A real conflict: the item changes in the calendar between our listing and our write (the proxy
    # writes it first, then forwards our PUT with its stale If-Match: Radicale answers 412).
    changed_fixtures "$src" "$work/changed"
    curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
    local path
    path="/$dav_user/family/$(resource_name event-788216780592@127.0.0.1 family)"
    proxy_reset_log
    curl -s -f -X POST -o /dev/null "${proxy_url}__proxy/race?path=$path" || fail "could not arm the proxy's race"
    expect_push_ok "push with a conflict"
    grep -q "family: created 0, updated 1, deleted 0, unchanged 33 ([0-9]* requests, 1 conflict resolved)" "$work/push.out" ||
        fail "push with a conflict printed: $(cat "$work/push.out")"
    local raced
    raced=$(curl -s -f "${proxy_url}__proxy/state" | $python -c 'import json,sys; print(json.load(sys.stdin)["race_etag"] or "")')
    [ -n "$raced" ] || fail "the proxy's race did not happen: $(proxy_summary)"
    # The item's requests, in order: the PUT refused 412, a read of the item, the PUT with the new ETag.
    local seen
    seen=$(awk -v p="$path" '$2 == p { print $1, $3, $8 }' "$work/proxy.log" | tr '\n' ';')
    case "$seen" in
    "PUT 412 "*";PROPFIND 207 -;PUT 20"?" ${raced//[[:space:]]/};") ;;
    *) fail "want PUT 412, PROPFIND (read again), PUT If-Match: $raced; the item's requests were: $seen" ;;
    esac
    [ "$(proxy_writes)" = 2 ] || fail "a conflict made $(proxy_writes) writes (want the refused PUT and one more): $(proxy_summary)"
    echo "conflict: $seen"
    check_calendar "conflict" # the feed wins: the feed's SUMMARY, not "Changed meanwhile"
}

case "$case_name" in
initial) step_initial ;;
unchanged) step_initial; step_unchanged ;;
change) step_initial; step_change ;;
removal) step_initial; step_change; step_removal; step_lifecycle ;;
foreign) step_initial; step_unchanged; step_change; step_removal; step_lost_state; step_prefix_alike ;;
dry_run) step_dry_run ;;
drift) step_initial; step_drift ;;
*) fail "unknown case $case_name" ;;
esac
echo "PASS [$test_name]"
