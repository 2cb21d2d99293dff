#!/usr/bin/env bash
# File: components_test.sh
# What a calendar takes, and items that are not ours to write (issue 25). Feeds pub (34 events) and jobs
# (57 job posts, jobs_as = "vtodo") both push into two targets:
#   tasks too    a calendar with VEVENT and VTODO: 34 VEVENT and 57 VTODO resources, each as its feed has
#                it; a second push writes nothing (two feeds in one target do not undo each other)
#   events only  a calendar whose supported-calendar-component-set is VEVENT: the 34 events, no VTODO, and
#                one warning naming the target and the 57 left out; exit 0 (and, checked last, the jobs_as
#                value it advises exists)
#   jobs_as      the jobs feed switched to jobs_as = "vevent": the job posts reach the events-only calendar
#                as events, and the tasks-too calendar follows (the VTODOs replaced)
#   UID clash    a calendar where the person had imported one of the feed's events (same UID, their own
#                resource name): their copy is untouched, the 33 others are pushed, exit 1 naming the
#                target; pushing again does not retry in a loop
#   components_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=push.components
fail_logs="push.out push.err proxy.log radicale.log"
push_init

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"
start_radicale
start_dav_proxy
export TEST_DAV_PASSWORD=$dav_password
make_calendar "$dav_user/both/" "Tasks too" "VEVENT VTODO"
make_calendar "$dav_user/events/" "Events only" "VEVENT"

# components_config JOBS_AS: the two feeds into both targets.
components_config() {
    write_config "$work/push.toml" "$(server_toml "$work/state" "127.0.0.1:0")" "$(fake_sources_toml "$upstream")" \
        "$(organizer_feed_toml pub 'push = ["both", "events"]')" \
        "$(printf '[feeds.jobs]\nsource = "jobs"\nselect = "search"\ndue_after = "30d"\njobs_as = "%s"\npush = ["both", "events"]' "$1")" \
        "$(caldav_target_toml both "${proxy_url}$dav_user/both/")" \
        "$(caldav_target_toml events "${proxy_url}$dav_user/events/")"
}
# feeds_now: $work/pub.ics and $work/jobs.ics as export renders them.
feeds_now() {
    local f
    for f in pub jobs; do
        "$bin" export --config "$work/push.toml" --feed "$f" --output "$work/$f.ics" 2>"$work/export.err" ||
            fail "export $f failed: $(cat "$work/export.err")"
    done
}
# calendar_is NAME VEVENTS VTODOS FEED...: the calendar holds that many of each kind of ours, and exactly
# the FEEDs' items (files under $work) as they have them.
calendar_is() {
    local name=$1 ev=$2 todo=$3 args=() f
    shift 3
    for f in "$@"; do args+=(--compare "$work/$f"); done
    dav_check --calendar "$name" "${args[@]}" >"$work/cal.json" || fail "dav_check $name failed"
    local got
    got=$(json_get "$work/cal.json" '"%d %d" % (sum(1 for i in d["items"] if i["ours"] and i["components"] == ["VEVENT"]), sum(1 for i in d["items"] if i["ours"] and i["components"] == ["VTODO"]))')
    [ "$got" = "$ev $todo" ] || fail "'$name' holds $got (VEVENT VTODO) of ours, want $ev $todo"
    [ "$(json_get "$work/cal.json" 'd["duplicate_uids"]')" = "[]" ] || fail "'$name' has duplicate UIDs"
    [ "$(json_get "$work/cal.json" 'd["compare"]["missing"] + d["compare"]["different"][:2]')" = "[]" ] ||
        fail "'$name' is not its feeds: $(json_get "$work/cal.json" '(d["compare"]["missing"][:3], d["compare"]["different"][:2])')"
}

# 1. Tasks where the calendar takes them; left out, with one warning, where it does not.
components_config vtodo
feeds_now
[ "$(grep -c '^BEGIN:VTODO' "$work/jobs.ics")" = 57 ] || fail "the jobs feed does not have 57 VTODOs"
run_push
[ "$push_rc" = 0 ] || fail "push exited $push_rc: $(cat "$work/push.err")"
grep -q "^both: created 91, updated 0, deleted 0, unchanged 0" "$work/push.out" || fail "push printed: $(cat "$work/push.out")"
grep -q "^events: created 34, updated 0, deleted 0, unchanged 0" "$work/push.out" || fail "push printed: $(cat "$work/push.out")"
calendar_is "Tasks too" 34 57 pub.ics jobs.ics
calendar_is "Events only" 34 0 pub.ics
[ "$(json_get "$work/cal.json" 'len(d["compare"]["extra"])')" = 0 ] || fail "'Events only' holds items the feeds do not"
[ "$(grep -c . "$work/push.err")" = 1 ] || fail "want one warning line, stderr has: $(cat "$work/push.err")"
grep -q "events: .*57" "$work/push.err" || fail "the warning does not name the target and the 57: $(cat "$work/push.err")"
echo "events only: $(cat "$work/push.err")"
cp "$work/push.err" "$work/skipped-warning.txt"

# 2. Nothing changed: nothing written, for two feeds in one target.
proxy_reset_log
run_push
[ "$push_rc" = 0 ] || fail "second push exited $push_rc"
[ "$(proxy_writes)" = 0 ] || fail "a second push with two feeds per target wrote: $(proxy_summary)"

# 3. jobs_as = "vevent": the job posts go to both calendars as events.
components_config vevent
feeds_now
proxy_reset_log
run_push
[ "$push_rc" = 0 ] || fail "push with jobs_as = vevent exited $push_rc: $(cat "$work/push.err")"
[ -s "$work/push.err" ] && fail "jobs_as = vevent still warns: $(cat "$work/push.err")"
calendar_is "Tasks too" 91 0 pub.ics jobs.ics
calendar_is "Events only" 91 0 pub.ics jobs.ics
echo "jobs_as = vevent: $(tr '\n' ' ' <"$work/push.out")"

# 4. The person had imported one of the feed's events into their calendar before.
make_calendar "$dav_user/clash/" "Clash" "VEVENT"
printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//EN\r\nBEGIN:VEVENT\r\nUID:event-788216780592@127.0.0.1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261203T183000Z\r\nSUMMARY:Rust night (imported by hand)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' |
    dav_curl -f -o /dev/null -X PUT -H 'Content-Type: text/calendar' --data-binary @- "${radicale_url}$dav_user/clash/imported.ics" ||
    fail "could not PUT the imported copy"
before=$(dav_curl -s -D - -o /dev/null "${radicale_url}$dav_user/clash/imported.ics" | tr -d '\r' | grep -i '^etag:')
cat >"$work/push.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0")

$(events_source_toml "$upstream" 'timeout = "5s"')

$(organizer_feed_toml pub 'push = ["clash"]')

$(caldav_target_toml clash "${proxy_url}$dav_user/clash/")
TOML
proxy_reset_log
run_push
echo "UID clash: exit $push_rc: $(cat "$work/push.out" "$work/push.err" | tr '\n' ' ')"
[ "$push_rc" = 1 ] || fail "a UID the server refuses: push exited $push_rc (want 1)"
grep -q "clash" "$work/push.err" || fail "the failure does not name the target: $(cat "$work/push.err")"
after=$(dav_curl -s -D - -o /dev/null "${radicale_url}$dav_user/clash/imported.ics" | tr -d '\r' | grep -i '^etag:')
[ -n "$before" ] && [ "$before" = "$after" ] || fail "the person's imported copy changed ($before -> $after)"
dav_check --calendar Clash >"$work/cal.json"
[ "$(json_get "$work/cal.json" 'd["ours"]')" = 33 ] || fail "the clash calendar holds $(json_get "$work/cal.json" 'd["ours"]') of ours, want the 33 others"
clash_name=$(resource_name event-788216780592@127.0.0.1 clash)
tries=$(grep -c "^PUT /$dav_user/clash/$clash_name " "$work/proxy.log")
[ "$tries" -le 2 ] || fail "the refused item was PUT $tries times in one push"
proxy_reset_log
run_push
[ "$push_rc" = 1 ] || fail "the second push with the clash exited $push_rc (want 1)"
[ "$(proxy_writes)" -le 2 ] || fail "the second push with the clash wrote $(proxy_writes) times: $(proxy_summary)"

# 5. The events-only warning of step 1 advised a jobs_as value the config takes (vtodo, vevent, both).
if grep -o 'jobs_as = "[a-z]*"' "$work/skipped-warning.txt" | grep -v -q -E '"(vevent|both)"'; then
    fail "the warning advises a jobs_as value that does not exist: $(cat "$work/skipped-warning.txt")"
fi
echo "PASS [$test_name]"
