#!/usr/bin/env bash
# File: discovery_test.sh
# A target whose url is the server's root (issue 25): the calendar is found by display name through
# /.well-known/caldav, current-user-principal and calendar-home-set, and created with MKCALENDAR when no
# calendar has that name. Two targets on one Radicale: "family" (a name with '&', an umlaut and a dash, no
# such calendar yet) and "work" (a calendar made beforehand at a path that is not its name).
#   push        one MKCALENDAR for family, none for work; both calendars mirror the feed; no other calendar
#               appears (Radicale answers current-user-principal at its root, so /.well-known is not needed)
#   again       no MKCALENDAR, no write
#   state lost  both state files deleted: the calendars are found again by name, not made twice, no item
#               created again
#   --target    only the named target is reconciled and printed; an unknown one is a usage error
#   --dry-run   for a third target whose calendar does not exist: the plan printed, no MKCALENDAR, no
#               write, no state file
#   well-known  the same dry run where the server's root answers its PROPFIND 404 (injected): the calendar
#               is found through /.well-known/caldav, which Radicale redirects to its root
#   HTTPS       a target behind a TLS proxy whose certificate no system store trusts: without ca_file the
#               push fails (exit 1) naming the certificate and writes nothing; with ca_file = the
#               certificate it mirrors the feed
#   discovery_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=push.discovery
fail_logs="push.out push.err proxy.log tls-proxy.log tls-proxy.err radicale.log"
push_init

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"
start_radicale
start_dav_proxy
export TEST_DAV_PASSWORD=$dav_password
family_name="Family & Friends — Müller"
make_calendar "$dav_user/5f0c2b1e-work/" "Work"
cat >"$work/push.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0")

$(events_source_toml "$upstream" 'timeout = "5s"')

$(organizer_feed_toml pub 'push = ["family", "work"]')

$(caldav_target_toml family "$proxy_url" "calendar = \"$family_name\"")

$(caldav_target_toml work "${proxy_url%/}" 'calendar = "Work"')
TOML

# calendars: the principal's calendars as "name=path" lines, sorted.
calendars() {
    dav_check | $python -c '
import json, sys, urllib.parse
for c in json.load(sys.stdin)["calendars"]:
    print("%s=%s" % (c["name"], urllib.parse.urlsplit(c["url"]).path))' | sort
}
# ours_in NAME: how many items of ours the calendar with that display name holds, and no duplicate.
ours_in() {
    dav_check --calendar "$1" >"$work/cal.json" || fail "dav_check failed"
    [ "$(json_get "$work/cal.json" 'd["calendar"] is not None')" = True ] || fail "no calendar named '$1'"
    [ "$(json_get "$work/cal.json" 'd["duplicate_uids"]')" = "[]" ] || fail "duplicate UIDs in '$1'"
    json_get "$work/cal.json" 'd["ours"]'
}

# 1. The first push: family made by MKCALENDAR under its display name, work found where it is.
proxy_reset_log
run_push
[ "$push_rc" = 0 ] || fail "push exited $push_rc: $(cat "$work/push.err")"
grep -q "^family: created 34, updated 0, deleted 0, unchanged 0" "$work/push.out" || fail "push printed: $(cat "$work/push.out")"
grep -q "^work: created 34, updated 0, deleted 0, unchanged 0" "$work/push.out" || fail "push printed: $(cat "$work/push.out")"
[ "$(proxy_count MKCALENDAR -s 201)" = 1 ] && [ "$(proxy_count MKCALENDAR MKCOL)" = 1 ] ||
    fail "want one MKCALENDAR: $(proxy_summary)"
[ "$(calendars | wc -l)" = 2 ] || fail "want two calendars, Radicale has: $(calendars | tr '\n' ' ')"
calendars | grep -qxF "Work=/$dav_user/5f0c2b1e-work/" || fail "the Work calendar moved: $(calendars)"
calendars | grep -q "^$family_name=/$dav_user/" || fail "no calendar named '$family_name': $(calendars | tr '\n' ' ')"
[ "$(ours_in "$family_name")" = 34 ] || fail "'$family_name' does not hold the 34 items"
[ "$(ours_in Work)" = 34 ] || fail "Work does not hold the 34 items"
family_path=$(calendars | grep "^$family_name=" | cut -d= -f2)
echo "made '$family_name' at $family_path; requests: $(proxy_summary)"

# 2. Again: nothing to make, nothing to write.
proxy_reset_log
run_push
[ "$push_rc" = 0 ] || fail "second push exited $push_rc: $(cat "$work/push.err")"
[ "$(proxy_writes)" = 0 ] || fail "second push wrote: $(proxy_summary)"
grep -q "^family: created 0, updated 0, deleted 0, unchanged 34" "$work/push.out" || fail "second push printed: $(cat "$work/push.out")"

# 3. The state lost: found again by name; no second calendar, no item created twice.
rm -f "$work/state/push/family.json" "$work/state/push/work.json"
proxy_reset_log
run_push
[ "$push_rc" = 0 ] || fail "push without state exited $push_rc: $(cat "$work/push.err")"
[ "$(proxy_count MKCALENDAR MKCOL)" = 0 ] || fail "with the state lost, a calendar was made again: $(proxy_summary)"
[ "$(proxy_created)" = 0 ] || fail "with the state lost, items were created again: $(proxy_summary)"
[ "$(calendars | wc -l)" = 2 ] || fail "with the state lost, Radicale has: $(calendars | tr '\n' ' ')"
[ "$(ours_in "$family_name")" = 34 ] && [ "$(ours_in Work)" = 34 ] || fail "with the state lost, items went missing"
echo "state lost: $(proxy_summary)"

# 4. --target: only that one.
proxy_reset_log
run_push --target work
[ "$push_rc" = 0 ] || fail "push --target work exited $push_rc: $(cat "$work/push.err")"
grep -q "^work: " "$work/push.out" && ! grep -q "^family" "$work/push.out" ||
    fail "push --target work printed: $(cat "$work/push.out")"
grep -q " $family_path" "$work/proxy.log" && fail "push --target work sent requests to family's calendar"
run_push --target nope
[ "$push_rc" = 2 ] || fail "push --target nope exited $push_rc (want 2)"
grep -q "nope" "$work/push.err" || fail "push --target nope does not name it: $(cat "$work/push.err")"
# 5. --dry-run for a calendar not made yet: found missing, the plan printed, nothing made or written.
sed -e 's/^push = \["family", "work"\]/push = ["planned"]/' -e 's/^\[targets.family\]/[targets.planned]/' \
    -e "s/^calendar = \"$family_name\"/calendar = \"Planned\"/" "$work/push.toml" >"$work/planned.toml"
grep -q '^calendar = "Planned"' "$work/planned.toml" || fail "could not write planned.toml"
proxy_reset_log
"$bin" push --config "$work/planned.toml" --target planned --dry-run >"$work/push.out" 2>"$work/push.err"
push_rc=$?
[ "$push_rc" = 0 ] || fail "dry run exited $push_rc: $(cat "$work/push.err")"
grep -q "^planned: would create 34, update 0, delete 0; 0 unchanged" "$work/push.out" ||
    fail "dry run printed: $(grep -v '^  ' "$work/push.out")"
[ "$(grep -c '^  create ' "$work/push.out")" = 34 ] || fail "dry run did not list 34 creates"
[ "$(proxy_writes)" = 0 ] || fail "dry run wrote: $(proxy_summary)"
calendars | grep -q "^Planned=" && fail "dry run made the calendar: $(calendars | tr '\n' ' ')"
[ -e "$work/state/push/planned.json" ] && fail "dry run wrote a state file"

# 6. The server's root answers no PROPFIND: RFC 6764's /.well-known/caldav leads to it (a redirect).
proxy_reset_log
proxy_fault 404 1 "" PROPFIND
"$bin" push --config "$work/planned.toml" --target planned --dry-run >"$work/push.out" 2>"$work/push.err"
push_rc=$?
[ "$push_rc" = 0 ] || fail "dry run through /.well-known exited $push_rc: $(cat "$work/push.err")"
grep -q "^planned: would create 34, update 0, delete 0; 0 unchanged" "$work/push.out" ||
    fail "dry run through /.well-known printed: $(grep -v '^  ' "$work/push.out")"
awk '$1 == "PROPFIND" { printf "%s %s;", $2, $3 }' "$work/proxy.log" >"$work/found.txt"
case "$(cat "$work/found.txt")" in
"/ 404;/.well-known/caldav 30"?";/ 207;"*) echo "well-known: $(cat "$work/found.txt")" ;;
*) fail "want PROPFIND / (404), /.well-known/caldav (a redirect), / again: $(cat "$work/found.txt")" ;;
esac

# 7. HTTPS: a TLS proxy with a self-signed certificate for 127.0.0.1, trusted only through ca_file.
start_tls_proxy
make_calendar "$dav_user/secure/" "Secure"
secure_toml() { # [LINE...]: a config whose one target is the Secure calendar over HTTPS
    server_toml "$work/state" "127.0.0.1:0"
    echo
    events_source_toml "$upstream" 'timeout = "5s"'
    echo
    organizer_feed_toml pub 'push = ["secure"]'
    echo
    caldav_target_toml secure "${tls_url}$dav_user/secure/" "$@"
}
secure_toml >"$work/secure.toml"
"$bin" push --config "$work/secure.toml" >"$work/push.out" 2>"$work/push.err"
push_rc=$?
[ "$push_rc" = 1 ] || fail "HTTPS without ca_file exited $push_rc (want 1): $(cat "$work/push.out" "$work/push.err")"
grep -i secure "$work/push.err" | grep -q -i -E 'certificate|verif' ||
    fail "HTTPS without ca_file: stderr does not name the certificate: $(cat "$work/push.err")"
echo "HTTPS without ca_file: $(cat "$work/push.err")"
[ "$(grep -c -E '^(PUT|DELETE|MKCALENDAR) ' "$work/tls-proxy.log")" = 0 ] || fail "HTTPS without ca_file wrote"
secure_toml "ca_file = \"$work/tls.pem\"" >"$work/secure.toml"
"$bin" push --config "$work/secure.toml" >"$work/push.out" 2>"$work/push.err"
push_rc=$?
[ "$push_rc" = 0 ] || fail "HTTPS with ca_file exited $push_rc: $(cat "$work/push.err")"
grep -q "^secure: created 34, updated 0, deleted 0, unchanged 0" "$work/push.out" || fail "HTTPS with ca_file printed: $(cat "$work/push.out")"
[ "$(ours_in Secure)" = 34 ] || fail "Secure does not hold the 34 items"
[ "$(grep -c '^PUT ' "$work/tls-proxy.log")" = 34 ] || fail "the 34 PUTs did not go through the TLS proxy"
echo "PASS [$test_name]"
