#!/usr/bin/env bash
# File: failures_test.sh
# A target that cannot be written fails alone, with one clear line and no secret (issue 25):
#   wrong password  exit 1; stderr names the target and the 401; the wrong and the right password show up
#                   in no output, state file or log; no retry storm (at most 3 requests)
#   beside a good   the good target (password_file with a trailing newline) is still mirrored; exit 1. Its
#                   rate = "10/2s" and max_concurrency = 2 hold at the proxy (each request slowed 50 ms):
#                   no 2 s window has more than 10 request starts, so its 36 requests span at least 6 s,
#                   and never more than 2 are in flight at once
#   507             an item's PUT answered 507 Insufficient Storage: exit 1, one line naming the quota, the
#                   PUT not tried again
#   412 storm       every PUT answered 412 Precondition Failed: each item refused after its tries, exit 1, and no
#                   "conflicts resolved" printed (none was: nothing was written after a 412; issue 35)
#   403             another user's calendar: exit 1, the 403 named
#   not a calendar  url is a plain collection (the principal) with no calendar key: exit 1, says so
#   unreachable     a closed port: exit 1 within 60 s (connection refused is retried with backoff, ~35 s),
#                   the target named
#   usage           push without --config, with an unknown option, or an unknown --target: exit 2
#   failures_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=push.failures
fail_logs="push.out push.err proxy.log radicale.log"
push_init

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"
start_radicale
start_dav_proxy
make_calendar "$dav_user/family/" "Family"
make_calendar "$dav_user/good/" "Good"
wrong=wrong-pw-$(od -An -N9 -tx1 /dev/urandom | tr -d ' \n')
export TEST_DAV_PASSWORD=$wrong
printf '%s\n' "$dav_password" >"$work/good.pw"
chmod 600 "$work/good.pw"

# A second user, bob, with a calendar of his own (Radicale reads the htpasswd file at each sign-in).
bob_pw=bob-pw-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
BOB_PW=$bob_pw $python -c 'import os; from passlib.hash import apr_md5_crypt; print("bob:" + apr_md5_crypt.hash(os.environ["BOB_PW"]))' \
    >>"$work/radicale.users"
code=$(printf 'user = "bob:%s"\n' "$bob_pw" | curl -s -K - -o /dev/null -w '%{http_code}' -X MKCALENDAR "${radicale_url}bob/cal/")
[ "$code" = 201 ] || fail "could not make bob's calendar (HTTP $code)"

# no_secret WHAT FILE...: neither password (nor bob's) is in the FILEs.
no_secret() {
    local what=$1 s
    shift
    for s in "$wrong" "$dav_password" "$bob_pw"; do
        grep -rqF -- "$s" "$@" && fail "$what: a password is in $(grep -rlF -- "$s" "$@" | head -1)"
    done
    return 0
}
# one_line_for TARGET WHAT PATTERN: stderr has a line naming TARGET that matches PATTERN (grep -E -i).
one_line_for() {
    grep -i -- "$1" "$work/push.err" | grep -q -E -i -- "$3" ||
        fail "$2: no line naming '$1' and matching '$3' on stderr: $(cat "$work/push.err")"
}

# 1. A wrong password, beside a good target.
cat >"$work/push.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0")

$(events_source_toml "$upstream" 'timeout = "5s"')

$(organizer_feed_toml pub 'push = ["family", "good"]')

$(caldav_target_toml family "${proxy_url}$dav_user/family/")

[targets.good]
type = "caldav"
url = "${proxy_url}$dav_user/good/"
username = "$dav_user"
password_file = "$work/good.pw"
rate = "10/2s"
max_concurrency = 2
TOML
curl -s -f -X POST -o /dev/null "${proxy_url}__proxy/delay?ms=50" || fail "could not slow the proxy down"
run_push
proxy_clear
[ "$push_rc" = 1 ] || fail "a wrong password: push exited $push_rc (want 1)"
one_line_for family "a wrong password" '401|unauthori[sz]ed|password'
grep -q "^good: created 34, updated 0, deleted 0, unchanged 0" "$work/push.out" ||
    fail "the good target beside the failed one: $(cat "$work/push.out")"
grep -q "^family: " "$work/push.out" && fail "the failed target has a success line: $(cat "$work/push.out")"
failed_requests=$(grep -c " /$dav_user/family/" "$work/proxy.log")
[ "$failed_requests" -le 3 ] || fail "a 401 target was asked $failed_requests times (no retry storm: at most 3)"
[ "$(grep " /$dav_user/family/" "$work/proxy.log" | grep -c -E '^(PUT|DELETE)')" = 0 ] || fail "wrote to the 401 target"
no_secret "a wrong password" "$work/push.out" "$work/push.err" "$work/state"
echo "wrong password: $(grep -i family "$work/push.err")"
# The good target's pace, from the proxy's request starts and ends.
$python - "$work/proxy.log" "/$dav_user/good/" <<'PY' >"$work/pace.txt" || fail "good target's pace: $(cat "$work/pace.txt")"
import sys
reqs = [(float(f[6]), float(f[3])) for f in (l.split() for l in open(sys.argv[1])) if f[1].startswith(sys.argv[2])]
starts = sorted(s for s, _ in reqs)
span = starts[-1] - starts[0]
# 10 per 2 s: a window a little under 2 s (arrival jitter) never holds more than 10 starts.
busiest = max(sum(1 for t in starts if s <= t < s + 1.95) for s in starts)
events = sorted([(s, 1) for s, _ in reqs] + [(e, -1) for _, e in reqs], key=lambda x: (x[0], x[1]))
flight = most = 0
for _, d in events:
    flight += d
    most = max(most, flight)
print("%d requests over %.2f s, at most %d starting within 2 s, at most %d in flight" % (len(reqs), span, busiest, most))
ok = len(reqs) >= 36 and span >= 5.8 and busiest <= 10 and most <= 2
sys.exit(0 if ok else 1)
PY
echo "good target's pace: $(cat "$work/pace.txt")"

# The same with ICSBRIDGE_LOG=debug: still no password in what it logs.
ICSBRIDGE_LOG=debug run_push
no_secret "a wrong password, debug log" "$work/push.out" "$work/push.err" "$work/state"

# 1b. Over quota: one of good's items gone from the calendar, and its PUT answered 507.
sed -e 's/^push = \["family", "good"\]$/push = ["good"]/' -e '/^\[targets.family\]/,/^$/d' "$work/push.toml" >"$work/quota.toml"
dav_curl -f -o /dev/null -X DELETE "$radicale_url$dav_user/good/$(resource_name event-788216780592@127.0.0.1 good)" ||
    fail "could not delete an item of good"
proxy_reset_log
proxy_fault 507 1 "" PUT
"$bin" push --config "$work/quota.toml" >"$work/push.out" 2>"$work/push.err"
push_rc=$?
proxy_clear
[ "$push_rc" = 1 ] || fail "507: push exited $push_rc (want 1): $(cat "$work/push.out" "$work/push.err")"
[ "$(grep -c . "$work/push.err")" = 1 ] || fail "507: want one line on stderr: $(cat "$work/push.err")"
one_line_for good "507" 'quota'
[ "$(proxy_count PUT)" = 1 ] || fail "507: the refused PUT was tried again: $(proxy_summary)"
echo "507: $(cat "$work/push.err")"

# 1c. A 412 storm: every PUT into a fresh calendar is refused as changed meanwhile. Nothing lands, so no
# conflict was resolved, whatever was read again in between.
make_calendar "$dav_user/storm/" "Storm"
sed -e "s|${proxy_url}$dav_user/good/|${proxy_url}$dav_user/storm/|" "$work/quota.toml" >"$work/storm.toml"
proxy_reset_log
proxy_fault 412 100000 "" PUT
"$bin" push --config "$work/storm.toml" >"$work/push.out" 2>"$work/push.err"
push_rc=$?
proxy_clear
[ "$push_rc" = 1 ] || fail "412 storm: push exited $push_rc (want 1): $(cat "$work/push.out" "$work/push.err")"
[ "$(proxy_count PUT -s 412)" -ge 34 ] || fail "412 storm: not every item was tried: $(proxy_summary)"
[ "$(proxy_count PUT -s 201) $(proxy_count PUT -s 204)" = "0 0" ] || fail "412 storm: a PUT landed: $(proxy_summary)"
grep -q "conflict" "$work/push.out" "$work/push.err" &&
    fail "412 storm: conflicts counted as resolved though nothing was written: $(grep conflict "$work/push.out" "$work/push.err")"
echo "412 storm: $(proxy_summary); printed: $(head -c 300 "$work/push.out" "$work/push.err" | tr '\n' ' ')"

# 2. 403: alice writing into bob's calendar.
export TEST_DAV_PASSWORD=$dav_password
cat >"$work/push.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0")

$(events_source_toml "$upstream" 'timeout = "5s"')

$(organizer_feed_toml pub 'push = ["bobs"]')

$(caldav_target_toml bobs "${proxy_url}bob/cal/")
TOML
run_push
[ "$push_rc" = 1 ] || fail "403: push exited $push_rc (want 1)"
one_line_for bobs "403" '403|forbidden|not allowed|permission'
no_secret "403" "$work/push.out" "$work/push.err" "$work/state"
echo "403: $(grep -i bobs "$work/push.err")"

# 3. Not a calendar: the principal collection itself.
sed -i "s|url = \"${proxy_url}bob/cal/\"|url = \"${proxy_url}$dav_user/\"|" "$work/push.toml"
calendars_before=$(dav_check | $python -c 'import json,sys; print(len(json.load(sys.stdin)["calendars"]))')
run_push
[ "$push_rc" = 1 ] || fail "not a calendar: push exited $push_rc (want 1)"
one_line_for bobs "not a calendar" 'calendar'
[ "$(dav_check | $python -c 'import json,sys; print(len(json.load(sys.stdin)["calendars"]))')" = "$calendars_before" ] ||
    fail "not a calendar: a calendar was made (url names a collection, not a server with calendar = ...)"
echo "not a calendar: $(grep -i bobs "$work/push.err")"

# 4. Unreachable: nothing listens on port 9.
sed -i "s|url = \"${proxy_url}$dav_user/\"|url = \"http://127.0.0.1:9/dav/\"|" "$work/push.toml"
started=$(date +%s)
run_push
[ "$push_rc" = 1 ] || fail "unreachable: push exited $push_rc (want 1)"
took=$(($(date +%s) - started))
[ "$took" -le 60 ] || fail "unreachable: push took $took s"
one_line_for bobs "unreachable" 'connect|unreachable|refused|127\.0\.0\.1:9'
echo "unreachable (${took} s): $(grep -i bobs "$work/push.err")"

# 5. Usage and config errors: 2.
"$bin" push >/dev/null 2>&1
[ $? = 2 ] || fail "push without --config did not exit 2"
"$bin" push --config "$work/push.toml" --bogus >/dev/null 2>&1
[ $? = 2 ] || fail "push with an unknown option did not exit 2"
run_push --target nope
[ "$push_rc" = 2 ] || fail "push --target nope exited $push_rc (want 2)"
unset TEST_DAV_PASSWORD
run_push
[ "$push_rc" = 2 ] || fail "push with password_env unset exited $push_rc (want 2)"
echo "PASS [$test_name]"
