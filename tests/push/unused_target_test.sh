#!/usr/bin/env bash
# File: unused_target_test.sh
# A target no feed pushes into (issue 35, "Also found"): `check` warns of it at its table, `icsbridge push`
# leaves it alone and exits 0 though it is unreachable (before: it was reconciled, and its connection
# refused failed the whole run with exit 1), and `push --target` of it says it is left alone.
#   unused_target_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=push.unused_target
fail_logs="push.out push.err check.out proxy.log"
push_init

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"
start_radicale
start_dav_proxy
export TEST_DAV_PASSWORD=$dav_password
make_calendar "$dav_user/family/" "Family"
cat >"$work/push.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0")

$(events_source_toml "$upstream" 'timeout = "5s"')

$(organizer_feed_toml pub 'push = ["family"]')

$(caldav_target_toml family "${proxy_url}$dav_user/family/")

$(caldav_target_toml spare "http://127.0.0.1:9/dav/")
TOML
line_spare=$(grep -n '^\[targets.spare\]' "$work/push.toml" | cut -d: -f1)
"$bin" check --config "$work/push.toml" >"$work/check.out" 2>&1 || fail "check refused an unused target: $(cat "$work/check.out")"
grep -qF "$work/push.toml:$line_spare: [targets.spare]: no feed pushes into it" "$work/check.out" ||
    fail "check does not warn of the unused target: $(cat "$work/check.out")"
run_push
[ "$push_rc" = 0 ] || fail "an unused unreachable target failed the push (exit $push_rc): $(cat "$work/push.err")"
grep -q "spare" "$work/push.out" "$work/push.err" && fail "push worked on the unused target: $(cat "$work/push.out" "$work/push.err")"
grep -q "^family: created 34, updated 0, deleted 0" "$work/push.out" || fail "push printed: $(cat "$work/push.out")"
run_push --target spare
[ "$push_rc" = 0 ] || fail "push --target spare exited $push_rc: $(cat "$work/push.err")"
grep -q "spare: no feed pushes into it; its calendar is left alone" "$work/push.err" ||
    fail "push --target spare does not say it is left alone: $(cat "$work/push.err")"
echo "unused target: check warns, push leaves it alone (exit 0)"
echo "PASS [$test_name]"
