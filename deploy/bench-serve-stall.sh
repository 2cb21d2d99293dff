#!/usr/bin/env bash
# File: bench-serve-stall.sh
# Benchmark (not a test): does a refresh of a large feed stall `serve`'s control thread (the thread the
# refreshers, webhooks and reloads run on)? Two fake upstreams: one with BENCH_EVENTS=10000 generated events
# (pages of BENCH_PAGE_SIZE=50, ~BENCH_DESCRIPTION_BYTES=300 of HTML each), one with the test fixtures and a
# webhook secret. `serve` has one feed of each; each run starts it afresh (cold render cache), and while the
# big feed's first refresh is under way:
#   - a SIGHUP reload: from the signal to the log's "reloaded:" line (the big refresh starts over);
#   - webhooks for the small feed, one every BENCH_HOOK_GAP_MS=400 until 1 s after the big feed is
#     published, each for a changed event: from the hook's 202 to the small feed's new ETag, less the
#     service's fixed hook_delay (500 ms). Hooks that overlap the big feed's last page, render and
#     publication are among them.
# Prints each run's figures and the median over BENCH_RUNS=5 runs of each run's median and maximum.
# BENCH_BIN=PATH times another icsbridge binary (A/B against an older build).
#   deploy/bench-serve-stall.sh [BUILD_DIR]
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
runs=${BENCH_RUNS:-5}
events=${BENCH_EVENTS:-10000}
page_size=${BENCH_PAGE_SIZE:-50}
description=${BENCH_DESCRIPTION_BYTES:-300}
gap_ms=${BENCH_HOOK_GAP_MS:-400}
. "$src/tests/support/sh/upstream_fixtures.sh"

cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream >/dev/null
bin=${BENCH_BIN:-$build/icsbridge}

work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

launch_fake_upstream "$build/icsbridge-fake-upstream" "$work" --generate-events "$events" \
    --page-size "$page_size" --description-bytes "$description" || { echo "big upstream did not start" >&2; exit 1; }
big_upstream=$upstream
pids+=("$fake_pid")
mkdir "$work/small"
launch_fake_upstream "$build/icsbridge-fake-upstream" "$work/small" --data "$src/tests/fixtures/upstream" ||
    { echo "small upstream did not start" >&2; exit 1; }
small_upstream=$upstream
pids+=("$fake_pid")
cp -r "$src/tests/fixtures/upstream" "$work/data0"
cp -r "$src/tests/fixtures/upstream" "$work/data1"
sed -i '0,/Rust & Systems Programming Night/s//Rust \& Systems Programming Night MOVED/' "$work/data1/events/events.json"

secret=bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export BENCH_HOOK_SECRET=$secret
cat >"$work/serve.toml" <<TOML
[server]
listen = "127.0.0.1:0"
public_url = "http://127.0.0.1:8080"
threads = 2

[storage]
dir = "$work/state"

[sources.big]
type = "events"
base_url = "$big_upstream"
token = "demo-events-token"
timeout = "60s"

[sources.small]
type = "events"
base_url = "$small_upstream"
token = "demo-events-token"
webhook_secret_env = "BENCH_HOOK_SECRET"

[feeds.big]
source = "big"
select = "organizer"
keep_past = "0s"
max_items = 100000
fetch_timeout = "10m"

[feeds.small]
source = "small"
select = "organizer"
keep_past = "3650d"
TOML

for i in $(seq "$runs"); do
    rm -rf "$work/state"
    /usr/bin/python3 - "$bin" "$work" "$small_upstream" "$secret" "$gap_ms" >"$work/run$i.out" <<'PY' ||
import http.client, os, re, signal, statistics, subprocess, sys, time, urllib.request
bin, work, small_up, secret, gap_ms = sys.argv[1:6]
log_path = work + "/serve.log"
serve = subprocess.Popen([bin, "serve", "--config", work + "/serve.toml"], stderr=open(log_path, "w"))
def log(): return open(log_path).read()
def until(what, cond, limit=60.0, step=0.001):
    end = time.monotonic() + limit
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > end or serve.poll() is not None:
            sys.exit("gave up waiting for " + what)
        time.sleep(step)
try:
    port = int(until("the listen line", lambda: re.search(r"listening on http://127.0.0.1:(\d+)", log()), 30, 0.05)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    def small():
        conn.request("GET", "/feeds/small.ics")
        r = conn.getresponse()
        r.read()
        return r.status, r.getheader("ETag")
    until("the small feed", lambda: small()[0] == 200, 30, 0.01)
    if "feed big: " in log():
        sys.exit("the big feed was done before the measurement began: raise BENCH_EVENTS")
    reloads = log().count("reloaded:")
    t0 = time.monotonic()
    serve.send_signal(signal.SIGHUP)
    until("the reload", lambda: log().count("reloaded:") > reloads)
    reload_ms = (time.monotonic() - t0) * 1000
    body = ('{"api_url": "%s/v3/events/788216780592/", "config": {"action": "event.updated", '
            '"user_id": "1296715565", "webhook_id": "4411", "endpoint_url": "x"}}' % small_up).encode()
    flip = 0
    def hooked(limit):
        """Changes the small upstream, sends its hook; ms from the 202 to the new ETag, less hook_delay."""
        global flip
        flip ^= 1
        urllib.request.urlopen(urllib.request.Request(
            "%s/__control/reload?dir=%s/data%d" % (small_up, work, flip), method="POST")).read()
        before = small()[1]
        req = urllib.request.Request("http://127.0.0.1:%d/hooks/small/%s" % (port, secret), data=body,
                                     headers={"Content-Type": "application/json"})
        if urllib.request.urlopen(req).status != 202:
            sys.exit("the hook was refused")
        t_hook = time.monotonic()
        until("the hooked change", lambda: small()[1] != before, limit, 0.002)
        return (time.monotonic() - t_hook) * 1000 - 500
    # The reload's new pipeline has no answer to patch yet: the first hook refreshes the small feed
    # (after hook_gap); the ones measured below each read their one event (a patch).
    hooked(60)
    hooks, done = [], None
    while done is None or time.monotonic() - done < 1.0:
        hooks.append(hooked(20))
        if done is None and "feed big: " in log():
            done = time.monotonic()
        time.sleep(int(gap_ms) / 1000)
    print("reload_ms=%.1f hooks=%d hook_median_ms=%.1f hook_max_ms=%.1f all=%s"
          % (reload_ms, len(hooks), statistics.median(hooks), max(hooks), ",".join("%.0f" % h for h in hooks)))
finally:
    serve.terminate()
    serve.wait()
PY
        { grep -v " GET /feeds/small" "$work/serve.log" | tail -25 >&2; exit 1; }
    echo "run $i: $(cat "$work/run$i.out")" >&2
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
cat "$work"/run*.out | /usr/bin/python3 -c '
import statistics, sys
rows = [dict(kv.split("=") for kv in line.split()) for line in sys.stdin if line.strip()]
def med(k):
    return statistics.median(float(r[k]) for r in rows)
print("%d runs, %s events (pages of %s): reload %.0f ms; hook -> publication beyond hook_delay: median %.0f ms,"
      " max %.0f ms (medians over runs; %d hooks a run); load average %s" % (len(rows), sys.argv[1], sys.argv[2],
      med("reload_ms"), med("hook_median_ms"), med("hook_max_ms"), med("hooks"), sys.argv[3]))
' "$events" "$page_size" "$load"
