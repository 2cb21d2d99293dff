#!/usr/bin/env bash
# File: serve_test.sh
# `icsbridge serve` pushes after every publication (issue 25): the feed reaches Radicale after the first
# refresh; then a change upstream plus the events service's webhook is readable in Radicale (through a
# plain GET of the item's resource) within 5 s, though the same feed also pushes into a target whose
# password is wrong, one that is unreachable, one that accepts connections and never answers, and one
# whose host name's lookup never ends (build/libicsbridge_hang_dns.so preloaded): a slow or dead target
# delays no other, and the feed is served meanwhile. The wrong-password target
# is asked at most 3 times over the whole test (no retry storm, not even after the webhook's publication).
# /metrics and /healthz (with the admin token) show each target's values: family's 34 creates and one
# update, items, requests, an empty queue and its last success; the refused target's 401 and failure time.
# The anonymous /metrics and /healthz show nothing of targets; no page, metric or log line holds either
# password. Drift is repaired without a change: feed quick (refresh 2 s, its own
# target "drift", straight to Radicale) has one of our items edited and one deleted in the calendar behind
# icsbridge's back, no webhook and no changed publication follow, and both are back as the feed has them
# within about one repair period (10 s, the shortest) of the edit. SIGTERM stops serve within 10 s.
#   serve_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
fake=$2
src=$3
hang_dns=$4/libicsbridge_hang_dns.so
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
make_calendar "$dav_user/drift/" "Drift"
[ -f "$hang_dns" ] || fail "$hang_dns is not built (target icsbridge_hang_dns)"
# A server that accepts connections and never answers: each accept is a line in silent.log.
: >"$work/silent.log"
$python -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    with open(sys.argv[1], "a") as f:
        f.write("accepted\n")' "$work/silent.log" >"$work/silent.port" &
extra_pids+=("$!")
for _ in $(seq 1 50); do [ -s "$work/silent.port" ] && break; sleep 0.1; done
silent_port=$(cat "$work/silent.port")
[ -n "$silent_port" ] || fail "the silent server did not start"
wrong=wrong-pw-$(od -An -N9 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$wrong" >"$work/wrong.pw"
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0" "admin_token = \"$admin\"")

$(events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')

$(organizer_feed_toml pub 'push = ["family", "locked", "dead", "silent", "slowdns"]')

$(caldav_target_toml family "${proxy_url}$dav_user/family/")

[targets.locked]
type = "caldav"
url = "${proxy_url}$dav_user/locked/"
username = "$dav_user"
password_file = "$work/wrong.pw"

$(caldav_target_toml dead "http://127.0.0.1:9/dav/")

$(caldav_target_toml silent "http://127.0.0.1:$silent_port/dav/")

$(caldav_target_toml slowdns "http://localhost:$silent_port/dav/")

$(organizer_feed_toml quick 'refresh = "2s"' 'filter = { keywords = ["Brunch"] }' 'push = ["drift"]')

$(caldav_target_toml drift "${radicale_url}$dav_user/drift/")
TOML

# The lookup of "localhost" (only that name) never ends in serve: the shim is preloaded into it alone.
export HANG_DNS_HOST=localhost HANG_DNS_LOG=$work/dns.log LD_PRELOAD=$hang_dns
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
unset LD_PRELOAD HANG_DNS_HOST
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
# The two slow targets were asked, and hang: their requests are still out.
grep -q '^hung localhost$' "$work/dns.log" 2>/dev/null || fail "the lookup of localhost was not hung (is the shim in force?)"
[ "$(grep -c . "$work/silent.log")" -ge 1 ] || fail "the silent target was never asked"

# 1b. Drift behind icsbridge's back in the calendar of feed quick; checked in step 4, a period later.
drift_items=0
for _ in $(seq 1 100); do
    dav_check --calendar Drift >"$work/drift.json" || fail "dav_check Drift failed"
    drift_items=$(json_get "$work/drift.json" 'd["ours"]')
    [ "$drift_items" -ge 2 ] && break
    sleep 0.1
done
[ "$drift_items" -ge 2 ] || fail "feed quick's items did not reach the Drift calendar ($drift_items of ours)"
drift_edited=$(json_get "$work/drift.json" '[i["href"] for i in d["items"] if i["ours"]][0]')
drift_deleted=$(json_get "$work/drift.json" '[i["href"] for i in d["items"] if i["ours"]][1]')
drift_summary=$(json_get "$work/drift.json" '[i["summary"] for i in d["items"] if i["href"] == "'"$drift_edited"'"][0]')
drift_uid=$(json_get "$work/drift.json" '[i["uid"] for i in d["items"] if i["href"] == "'"$drift_edited"'"][0]')
printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//EN\r\nBEGIN:VEVENT\r\nUID:%s\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20270101T100000Z\r\nSUMMARY:Edited in the calendar app\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' "$drift_uid" |
    dav_curl -f -o /dev/null -X PUT -H 'Content-Type: text/calendar' --data-binary @- "${radicale_url%/}$drift_edited" ||
    fail "could not edit $drift_edited behind icsbridge's back"
dav_curl -f -o /dev/null -X DELETE "${radicale_url%/}$drift_deleted" || fail "could not delete $drift_deleted"
drift_at=$(date +%s%N)
drift_log_from=$(wc -l <"$work/serve.log")

# 2. A change and its webhook: readable in Radicale within 5 s.
resource="$radicale_url$dav_user/family/$(resource_name event-788216780592@127.0.0.1 family)"
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
code=$(curl -s --max-time 2 -o "$work/pub.ics" -w '%{http_code}' "$base/feeds/pub.ics")
[ "$code" = 200 ] && grep -q 'MOVED' "$work/pub.ics" ||
    fail "the feed is not served (HTTP $code) or not refreshed while two targets hang"
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
# The values: family wrote its 34 items and the one change, and is in sync; locked failed with its 401.
target_is() { # TARGET EXPR WANT: EXPR over the target's /healthz entry (as t) is WANT
    local got
    got=$(json_get "$work/healthz.admin" "next(($2) for t in d['targets'] if t['name'] == '$1')" 2>/dev/null) ||
        fail "/healthz (admin) has no target $1: $(head -c 600 "$work/healthz.admin")"
    [ "$got" = "$3" ] || fail "/healthz (admin): $1's $2 is $got, want $3: $(json_get "$work/healthz.admin" "[t for t in d['targets'] if t['name'] == '$1']")"
}
target_is family 't["writes"]' "{'create': 34, 'update': 1, 'delete': 0}"
target_is family '(t["items"], t["queue"], t["conflicts"], t["ok"], t["last_error"])' "(34, 0, 0, True, None)"
target_is family 't["requests"] >= 3 and t["last_success"] is not None' True
target_is locked '(t["ok"], t["items"], t["last_success"], t["last_failure"] is not None)' "(False, 0, None, True)"
target_is locked '"401" in t["last_error"] and "locked" in t["last_error"]' True
metric_is() { # SERIES WANT: the admin /metrics sample of SERIES (name{labels}) is WANT
    local got
    got=$(grep -F "$1 " "$work/metrics.admin" | awk '{ print $2 }')
    [ "$got" = "$2" ] || fail "/metrics (admin): $1 is '${got}', want $2"
}
metric_is 'icsbridge_push_writes_total{target="family",kind="create"}' 34
metric_is 'icsbridge_push_writes_total{target="family",kind="update"}' 1
metric_is 'icsbridge_push_writes_total{target="family",kind="delete"}' 0
metric_is 'icsbridge_push_items{target="family"}' 34
metric_is 'icsbridge_push_queue{target="family"}' 0
metric_is 'icsbridge_push_conflicts_total{target="family"}' 0
metric_is 'icsbridge_push_up{target="family"}' 1
metric_is 'icsbridge_push_up{target="locked"}' 0
metric_is 'icsbridge_push_last_success_timestamp_seconds{target="locked"}' 0
metric_is 'icsbridge_push_last_failure_timestamp_seconds{target="family"}' 0
now_s=$(date +%s)
for series in 'icsbridge_push_last_success_timestamp_seconds{target="family"}' \
    'icsbridge_push_last_failure_timestamp_seconds{target="locked"}'; do
    t=$(grep -F "$series " "$work/metrics.admin" | awk '{ print $2 }')
    [ -n "$t" ] && [ "$t" -gt $((now_s - 120)) ] && [ "$t" -le "$now_s" ] || fail "/metrics (admin): $series is '$t', not a time of this test"
done
[ "$(grep -F 'icsbridge_push_requests_total{target="family"} ' "$work/metrics.admin" | awk '{ print ($2 >= 3) }')" = 1 ] ||
    fail "/metrics (admin): family's requests: $(grep -F 'icsbridge_push_requests_total{target="family"}' "$work/metrics.admin")"
grep -q '"family"\|targets' "$work/healthz.anon" && fail "the anonymous /healthz shows targets: $(head -c 300 "$work/healthz.anon")"
for f in metrics.admin metrics.anon healthz.admin healthz.anon serve.log; do
    grep -qF -- "$dav_password" "$work/$f" && fail "the DAV password is in $f"
    grep -qF -- "$wrong" "$work/$f" && fail "the wrong DAV password is in $f"
done

# 4. The drift repaired within about one period (10 s) of the edit, with no change of feed quick to wake it.
drift_ms=
while [ $(( ($(date +%s%N) - drift_at) / 1000000 )) -lt 15000 ]; do
    dav_check --calendar Drift >"$work/drift.json" || fail "dav_check Drift failed"
    if [ "$(json_get "$work/drift.json" 'd["ours"]')" = "$drift_items" ] &&
        [ "$(json_get "$work/drift.json" '[i["summary"] for i in d["items"] if i["href"] == "'"$drift_edited"'"]')" = "['$drift_summary']" ]; then
        drift_ms=$(( ($(date +%s%N) - drift_at) / 1000000 ))
        break
    fi
    sleep 0.2
done
[ -n "$drift_ms" ] || fail "the drift in the Drift calendar was not repaired within 15 s: $(json_get "$work/drift.json" '[(i["href"], i["summary"]) for i in d["items"]]')"
echo "drift repaired ${drift_ms} ms after the edit"
[ "$drift_ms" -le 12000 ] || fail "the drift took ${drift_ms} ms to be repaired (the period is 10 s)"
tail -n +$((drift_log_from + 1)) "$work/serve.log" | grep -q 'feed quick: .*, changed' &&
    fail "feed quick changed after the edit: the repair was not the periodic one"
tail -n +$((drift_log_from + 1)) "$work/serve.log" | grep -q 'push drift: created 1, updated 1, deleted 0' ||
    fail "the repair's log line is missing: $(grep 'push drift' "$work/serve.log" | tail -3)"

# 5. SIGTERM stops it, push or not.
started=$(date +%s)
kill -TERM "$serve_pid"
wait "$serve_pid"
serve_pid=
[ $(($(date +%s) - started)) -le 10 ] || fail "serve took $(($(date +%s) - started)) s to stop"
echo "PASS [$test_name]"
