#!/usr/bin/env bash
# File: retry_test.sh
# A busy server is waited for, not hammered (issue 25), with the fault proxy in front of Radicale:
#   429 on PUTs      two PUTs answered 429 with `Retry-After: 2`: the push still completes (exit 0, every item
#                    there once), and neither PUT is tried again before 2 s have passed
#   503 on a read    after a change, the first request of the push answered 503 with `Retry-After: 1`: the
#                    push completes and waited at least 1 s before asking again
#   HTTP-date        a 429 whose Retry-After is a date 2 s ahead: waited until then
#   503 forever      every request 503 (`Retry-After: 1`): push gives up, exit 1 within 45 s, naming the
#                    target and the 503, after at most 6 requests (the tries of one request)
#   retry_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=push.retry
fail_logs="push.out push.err proxy.log radicale.log"
push_init

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
start_radicale
start_dav_proxy
export TEST_DAV_PASSWORD=$dav_password
make_calendar "$dav_user/family/" "Family"
push_feed_config "$work/push.toml" "url = \"${proxy_url}$dav_user/family/\""

# waited_after STATUS SECONDS: each request answered STATUS was asked again (same method and path) no
# sooner than SECONDS later (less 50 ms of clock slack), and was asked again at all.
waited_after() {
    $python - "$work/proxy.log" "$1" "$2" <<'PY' || fail "$(cat "$work/waited.txt")"
import sys
log, status, wait = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = [l.split() for l in open(log) if l.strip()]
problems, gaps = [], []
for i, (m, p, s, t) in enumerate(l[:4] for l in lines):
    if s != status:
        continue
    again = [float(l[3]) for l in lines[i + 1:] if l[0] == m and l[1] == p]
    if not again:
        problems.append("%s %s answered %s was never asked again" % (m, p, s))
    elif again[0] - float(t) < wait - 0.05:
        problems.append("%s %s asked again %.2f s after a %s with Retry-After %s" % (m, p, again[0] - float(t), s, wait))
    else:
        gaps.append(again[0] - float(t))
if not gaps and not problems:
    problems.append("no request was answered %s" % status)
out = open(sys.argv[1].rsplit("/", 1)[0] + "/waited.txt", "w")
out.write("; ".join(problems) if problems else "waited %s s" % ", ".join("%.2f" % g for g in gaps))
sys.exit(1 if problems else 0)
PY
    cat "$work/waited.txt"
    echo
}
# in_sync WHAT: every feed item there once.
in_sync() {
    export_feed "$work/feed.ics"
    dav_check --calendar Family --compare "$work/feed.ics" >"$work/cal.json" || fail "$1: dav_check failed"
    [ "$(json_get "$work/cal.json" 'd["ours"]')" = 34 ] &&
        [ "$(json_get "$work/cal.json" 'len(d["duplicate_uids"]) + len(d["compare"]["missing"]) + len(d["compare"]["different"])')" = 0 ] ||
        fail "$1: the calendar is not the feed: $(json_get "$work/cal.json" '(d["ours"], d["duplicate_uids"][:3], d["compare"]["missing"][:3], d["compare"]["different"][:1])')"
}

# 1. 429 on two PUTs of the initial push.
proxy_fault 429 2 2 PUT
started=$(date +%s%N)
run_push
took=$(( ($(date +%s%N) - started) / 1000000 ))
[ "$push_rc" = 0 ] || fail "429: push exited $push_rc: $(cat "$work/push.err")"
grep -q "^family: created 34," "$work/push.out" || fail "429: push printed: $(cat "$work/push.out")"
[ "$(proxy_count PUT -s 429)" = 2 ] || fail "429: the proxy answered $(proxy_count PUT -s 429) PUTs 429 (armed 2)"
echo -n "429: push took $took ms; "
waited_after 429 2
in_sync "429"

# 2. 503 on the first request of the next push (the listing, or whatever comes first).
changed_fixtures "$src" "$work/changed"
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
proxy_reset_log
proxy_fault 503 1 1
run_push
[ "$push_rc" = 0 ] || fail "503: push exited $push_rc: $(cat "$work/push.err")"
grep -q "^family: created 0, updated 1, deleted 0" "$work/push.out" || fail "503: push printed: $(cat "$work/push.out")"
[ "$(proxy_count -s 503)" = 1 ] || fail "503: the armed 503 was not hit: $(proxy_summary)"
echo -n "503 on $(awk '$3 == 503 { print $1; exit }' "$work/proxy.log"): "
waited_after 503 1
in_sync "503"

# 3. Retry-After as an HTTP-date, 3 s ahead (whole seconds: at least 2 s from now).
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
proxy_reset_log
proxy_fault 429 1 "$(LC_ALL=C date -u -d '+3 seconds' '+%a, %d %b %Y %H:%M:%S GMT' | sed 's/ /%20/g; s/,/%2C/g')" PUT
run_push
[ "$push_rc" = 0 ] || fail "HTTP-date: push exited $push_rc: $(cat "$work/push.err")"
echo -n "429 with an HTTP-date: "
waited_after 429 2
in_sync "HTTP-date"

# 4. 503 forever: push gives up.
proxy_reset_log
proxy_fault 503 100000 1
started=$(date +%s)
timeout 60 "$bin" push --config "$work/push.toml" >"$work/push.out" 2>"$work/push.err"
push_rc=$?
took=$(($(date +%s) - started))
proxy_clear
[ "$push_rc" = 1 ] || fail "503 forever: push exited $push_rc (want 1; 124 is the 60 s timeout)"
[ "$took" -le 45 ] || fail "503 forever: push took $took s to give up"
grep -i family "$work/push.err" | grep -q 503 || fail "503 forever: stderr does not name the target and the 503: $(cat "$work/push.err")"
echo "503 forever: gave up after $took s and $(proxy_count) requests ($(proxy_summary)): $(grep -i family "$work/push.err")"
# The tries of one request, no more: a throttled sync REPORT is not a server without sync-collection.
[ "$(proxy_count)" -le 6 ] || fail "503 forever: $(proxy_count) requests for 6 tries ($(proxy_summary))"
echo "PASS [$test_name]"
