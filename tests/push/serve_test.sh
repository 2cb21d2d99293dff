#!/usr/bin/env bash
# File: serve_test.sh
# `icsbridge serve` pushes after every publication (issue 25): the feed reaches Radicale after the first
# refresh; then a change upstream plus the events service's webhook is readable in Radicale (through a
# plain GET of the item's resource) within 5 s, though the same feed also pushes into a target whose
# password is wrong and one that is unreachable (a dead target delays no other). The wrong-password target
# is asked at most 3 times over the whole test (no retry storm, not even after the webhook's publication).
# /metrics (with the admin token) has icsbridge_push_* series for the target; /healthz (admin) shows the
# refused target's 401; the anonymous /metrics and /healthz show nothing of targets; no page, metric or
# log line holds either password. SIGTERM stops serve within 10 s.
#   serve_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=push.serve
fail_logs="serve.log proxy.log radicale.log"
push_init

secret=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
admin=admin-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
cp -r "$src/tests/fixtures/upstream" "$work/data"
changed_fixtures "$src" "$work/changed"
start_fake_upstream "$fake" "$work" "$work/data"
start_radicale
start_dav_proxy
export TEST_DAV_PASSWORD=$dav_password TEST_HOOK_SECRET=$secret
make_calendar "$dav_user/family/" "Family"
make_calendar "$dav_user/locked/" "Locked"
wrong=wrong-pw-$(od -An -N9 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$wrong" >"$work/wrong.pw"
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0" "admin_token = \"$admin\"")

$(events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')

$(organizer_feed_toml pub 'push = ["family", "locked", "dead"]')

$(caldav_target_toml family "${proxy_url}$dav_user/family/")

[targets.locked]
type = "caldav"
url = "${proxy_url}$dav_user/locked/"
username = "$dav_user"
password_file = "$work/wrong.pw"

$(caldav_target_toml dead "http://127.0.0.1:9/dav/")
TOML

start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics

# 1. The first publication is pushed.
ours=0
deadline=$(($(date +%s) + 45)) # 45: room for one hung Radicale PUT (icsbridge times it out at 20 s)
while [ "$(date +%s)" -lt "$deadline" ]; do
    ours=$(dav_check --calendar Family | $python -c 'import json,sys; print(json.load(sys.stdin)["ours"])')
    [ "$ours" = 34 ] && break
    sleep 0.2
done
[ "$ours" = 34 ] || fail "serve pushed $ours of 34 items within 45 s of starting"

# 2. A change and its webhook: readable in Radicale within 5 s.
resource="$radicale_url$dav_user/family/$(resource_name event-788216780592@127.0.0.1)"
dav_curl -f -o /dev/null "$resource" || fail "the changed event's resource $resource is not there before the change"
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
locked_requests=$(grep -c " /$dav_user/locked/" "$work/proxy.log")
[ "$locked_requests" -ge 1 ] && [ "$locked_requests" -le 3 ] ||
    fail "the wrong-password target was asked $locked_requests times at start (want 1 to 3)"
proxy_reset_log
started=$(date +%s%N)
sent=$(curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=788216780592&to=$base/hooks/eb/$secret")
[ "$sent" = '{"status":202}' ] || fail "the service's hook was not accepted: $sent"
seen_ms=
while [ $(( ($(date +%s%N) - started) / 1000000 )) -lt 10000 ]; do
    if dav_curl "$resource" | grep -q '^SUMMARY:.*MOVED'; then
        seen_ms=$(( ($(date +%s%N) - started) / 1000000 ))
        break
    fi
    sleep 0.05
done
[ -n "$seen_ms" ] || fail "the hooked change was not in Radicale within 10 s: $(proxy_summary)"
echo "webhook -> readable in Radicale in ${seen_ms} ms; requests: $(proxy_summary)"
[ "$seen_ms" -le 5000 ] || fail "the hooked change took ${seen_ms} ms to reach Radicale (over 5 s)"
sleep 1
[ "$(proxy_count PUT)" = 1 ] && [ "$(proxy_count DELETE)" = 0 ] ||
    fail "one change made $(proxy_count PUT) PUTs and $(proxy_count DELETE) DELETEs (want 1 and 0)"
locked_requests=$(grep -c " /$dav_user/locked/" "$work/proxy.log")
[ "$locked_requests" = 0 ] || fail "the webhook's publication asked the refused target again ($locked_requests requests)"

# 3. Metrics and health: the target's series for the admin, nothing of targets for anyone else.
curl -s -H "Authorization: Bearer $admin" "$base/metrics" >"$work/metrics.admin"
curl -s "$base/metrics" >"$work/metrics.anon"
curl -s -H "Authorization: Bearer $admin" "$base/healthz" >"$work/healthz.admin"
curl -s "$base/healthz" >"$work/healthz.anon"
grep -q '^icsbridge_push_[a-z_]*{[^}]*target="family"' "$work/metrics.admin" ||
    fail "/metrics has no icsbridge_push_* series for family: $(grep -c . "$work/metrics.admin") lines"
grep -c '^icsbridge_push_' "$work/metrics.admin" | sed 's/^/push series lines: /'
grep -q 'target="family"\|icsbridge_push_' "$work/metrics.anon" && fail "the anonymous /metrics shows targets"
grep -q 'family' "$work/healthz.admin" || fail "/healthz (admin) does not show the target"
grep -q '401' "$work/healthz.admin" || fail "/healthz (admin) does not show the locked target's 401: $(head -c 600 "$work/healthz.admin")"
grep -q '"family"\|targets' "$work/healthz.anon" && fail "the anonymous /healthz shows targets: $(head -c 300 "$work/healthz.anon")"
for f in metrics.admin metrics.anon healthz.admin healthz.anon serve.log; do
    grep -qF -- "$dav_password" "$work/$f" && fail "the DAV password is in $f"
    grep -qF -- "$wrong" "$work/$f" && fail "the wrong DAV password is in $f"
done

# 4. SIGTERM stops it, push or not.
started=$(date +%s)
kill -TERM "$serve_pid"
wait "$serve_pid"
serve_pid=
[ $(($(date +%s) - started)) -le 10 ] || fail "serve took $(($(date +%s) - started)) s to stop"
echo "PASS [$test_name]"
