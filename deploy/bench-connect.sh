#!/usr/bin/env bash
# File: bench-connect.sh
# Benchmark (not a test): self-serve connections at scale (issue 27), against the suite's fake Google
# Calendar API. C people (default 1,000) each connect a feed of E events (default 100) from its page, every
# one into their own account (the flow as a browser follows it, 8 at a time); once every calendar holds the
# feed, the connections' budget is reloaded down to RATE (default 6000/m, 100 a second) and one event is
# renamed upstream, announced by the webhook. Measured from the webhook on:
#   requests       the fake's API requests until every calendar holds the change
#   time           until the last calendar holds it
#   busiest second the most API requests the fake saw in one second (the budget allows RATE/60)
#   as sent        with BENCH_SENT=1: the most icsbridge sent in any one second (a sliding window), from
#                  strace of its sendmsg() calls. The fake serves from one thread and stamps a request when
#                  it reaches it; its listings are slower than the budget's pace, so the cheap writes queued
#                  behind them are stamped in a burst: its busiest second measures the fake catching up.
# plus the set-up (C flows, C×(E+1) writes at a high budget) and the serving process's peak RSS.
# With BENCH_KEEP=DIR, the server's and the fake's logs are copied there, with the time the hook was sent
# (hook-time, Unix seconds), to see where the time went (the fake's log has each request's time).
# BENCH_BIN=FILE runs that icsbridge binary instead of BUILD_DIR's (A/B against an older build); the
# environment passes through to it (e.g. GLIBC_TUNABLES).
#   deploy/bench-connect.sh [BUILD_DIR] [C] [E] [RATE]
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
people=${2:-1000}
events=${3:-100}
rate=${4:-6000/m}
bin=${BENCH_BIN:-$build/icsbridge}
fake=$build/icsbridge-fake-upstream
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
. "$src/tests/support/sh/bench_events.sh"
test_name=bench-connect
fail_logs="serve.log fake-google.err"
fail_skip="info GET \|info POST "

# With BENCH_BIN nothing is built: BUILD_DIR's fake must be there (a build in it may be under way).
[ -n "${BENCH_BIN:-}" ] || cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream >/dev/null || { echo "build failed" >&2; exit 1; }
init_work
events_dir "$events" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data" --page-size 200
port=$(free_port)
public=http://127.0.0.1:$port
start_fake_calendar_api google --client-secret bench-secret --redirect-uri "$public/connect/callback"
export TEST_CLIENT_SECRET=bench-secret TEST_HOOK_SECRET=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
openssl rand -hex 32 >"$work/connect.key"
chmod 600 "$work/connect.key"
# bench_config RATE
bench_config() {
    write_config "$work/serve.toml" "$(server_toml "$work/state" "127.0.0.1:$port" "public_url = \"$public\"")" \
        "$(events_source_toml "$upstream" 'timeout = "10s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')" \
        "$(organizer_feed_toml pub 'title = "Bench"' 'max_items = 1000000')" \
        "[connect]
key_file = \"$work/connect.key\"
rate = \"$1\"
google = { client_id = \"test-client\", client_secret_env = \"TEST_CLIENT_SECRET\", api_base = \"$api_base\", auth_url = \"$auth_url\", token_url = \"$token_url\" }"
}
bench_config 120000/m
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics

# C sign-ins, 8 at a time, each as a browser follows it (no redirect followed by the client itself).
t0=$(date +%s.%N)
$python - "$public" "$auth_url" "$people" <<'PY' || fail "the sign-ins failed"
import concurrent.futures, functools, http.client, sys, urllib.error, urllib.request
public, auth, people = sys.argv[1], sys.argv[2], int(sys.argv[3])
class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None
# Each person from a loopback address of their own, as people are: one address may begin only 30
# sign-ins in 10 minutes (issue 35).
class FromAddress(urllib.request.HTTPHandler):
    def __init__(self, address):
        super().__init__()
        self.address = address
    def http_open(self, req):
        return self.do_open(functools.partial(http.client.HTTPConnection, source_address=(self.address, 0)), req)
def location(url, opener):
    try:
        opener.open(url, timeout=60)
    except urllib.error.HTTPError as e:
        if e.code in (302, 303):
            return e.headers["Location"]
        raise
    raise RuntimeError("no redirect from " + url)
def connect(i):
    opener = urllib.request.build_opener(NoRedirect, FromAddress("127.0.%d.%d" % (i // 250, i % 250 + 1)))
    at_provider = location(public + "/connect/google?feed=pub", opener)
    back = location(at_provider + "&login_hint=person%d@example.org" % i, opener)
    page = location(back, opener)
    assert "/connections/" in page, page
with concurrent.futures.ThreadPoolExecutor(8) as pool:
    list(pool.map(connect, range(people)))
PY
t1=$(date +%s.%N)
# Every calendar full: the fake's accounts, each with "Bench" holding E live events.
full() { curl -s "$fake_api_url/_fake/accounts" | $python -c '
import json, sys
n, want = 0, int(sys.argv[1])
for a in json.load(sys.stdin)["accounts"]:
    n += any(c["name"] == "Bench" and c["events"] == want for c in a["calendars"])
print(n)' "$events"; }
for _ in $(seq 1 3600); do [ "$(full)" = "$people" ] && break; sleep 1; done
[ "$(full)" = "$people" ] || fail "after an hour $(full) of $people calendars hold the feed"
t2=$(date +%s.%N)
# api_requests: the fake's requests since its counts were reset, but its admin and OAuth endpoints'.
api_requests() {
    fake_state 'd["requests"]["total"] - sum(v for k, v in d["requests"]["by_kind"].items() if k in ("admin", "token", "authorize", "revoke"))'
}
setup_requests=$(api_requests)

# The budget down to RATE, then one change, announced by the webhook.
bench_config "$rate"
kill -HUP "$serve_pid"
for _ in $(seq 1 100); do grep -q "reloaded:" "$work/serve.log" && break; sleep 0.1; done
if [ -n "${BENCH_SENT:-}" ]; then
    command -v strace >/dev/null || apt-get install -y -q strace >/dev/null || fail "BENCH_SENT needs strace"
    strace -f -qq -ttt -s 24 -e trace=sendmsg -o "$work/sent.trace" -p "$serve_pid" &
    strace_pid=$!
fi
sleep 6 # the connections take the new rate at their next sync (every 5 s)
fake_admin reset_counts >/dev/null
rename_event "$work/data" $((events / 2)) 1
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
t3=$(date +%s.%N)
curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=$((900000000000 + events / 2))&to=$public/hooks/eb/$TEST_HOOK_SECRET" >/dev/null
# The change is in a calendar once the fake saw its update; every connection's update is one PUT.
updated() { grep -c '^PUT .*/events/.* 200 ' "$work/fake-google.log"; }
before=$(updated)
for _ in $(seq 1 6000); do [ $(($(updated) - before)) -ge "$people" ] && break; sleep 0.1; done
done_updates=$(($(updated) - before))
[ "$done_updates" -ge "$people" ] || fail "after 10 minutes $done_updates of $people calendars hold the change"
last=$(grep '^PUT .*/events/.* 200 ' "$work/fake-google.log" | tail -1 | awk '{print $4}')
change_requests=$(api_requests)
busiest=$(fake_requests_per_second)
sent=
if [ -n "${BENCH_SENT:-}" ]; then
    kill "$strace_pid" && wait "$strace_pid" 2>/dev/null
    # The requests' first lines (method, then the path in the next buffer) to the fake's API, in time order.
    sent=" (as sent: $(grep -E 'iov_base="(GET|PUT|POST|PATCH|DELETE)"' "$work/sent.trace" | grep -F '" /calendar/v3/' |
        awk '{print $2}' | sort -n | awk '{t[NR] = $1; while (t[NR] - t[lo + 1] >= 1) lo++; if (NR - lo > m) m = NR - lo}
            END {print m + 0}'))"
fi
rss=$(awk '/VmHWM/ {print $2}' "/proc/$serve_pid/status")

printf '| connections × events | set-up (flows; calendars filled) | set-up requests | change: requests | change: until all hold it | busiest second (budget %s) | peak RSS |\n' "$rate"
printf '|---|---|---|---|---|---|---|\n'
printf '| %s × %s | %.1f s; %.1f s | %s | %s | %.1f s | %s | %s MiB |\n' "$people" "$events" \
    "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t0" | bc)" "$setup_requests" "$change_requests" \
    "$(echo "$last - $t3" | bc)" "$busiest$sent" "$((rss / 1024))"
if [ -n "${BENCH_KEEP:-}" ]; then
    mkdir -p "$BENCH_KEEP" && cp "$work/serve.log" "$work/fake-google.log" "$BENCH_KEEP/" && echo "$t3" >"$BENCH_KEEP/hook-time"
fi
sample=$(fake_state 'sum(1 for e in ours(cal("Bench")) if e.get("summary", "").startswith("Bench change 1 of"))' account=person$((people / 2))@example.org)
[ "$sample" = 1 ] || fail "person$((people / 2))'s calendar does not show the change"
