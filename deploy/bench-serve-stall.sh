#!/usr/bin/env bash
# File: bench-serve-stall.sh
# Benchmark (not a test): does a refresh of a large feed stall `serve`'s control thread (the thread the
# refreshers, webhooks, reloads and publications run on)? Two fake upstreams: one with BENCH_EVENTS=40000
# generated events (pages of BENCH_PAGE_SIZE=50, ~BENCH_DESCRIPTION_BYTES=300 of HTML each), one with the
# test fixtures and a webhook secret. `serve` has one feed of each; each run starts it afresh (cold render
# cache), and while the big feed's first refresh is under way:
#   - a SIGHUP reload when its pages begin, and one BENCH_RELOAD_DELAY_MS=300 after the log says its last
#     page is in (its render, ETag, gzip and CalDAV cut follow): from the signal to the log's "reloaded:"
#     line. A reload stops a refresh that has not published yet, which then starts over; the end's reload
#     is then sent again at the next end, twice as late, up to 5 times a run;
#   - webhooks for the small feed, one every BENCH_HOOK_GAP_MS=400 until 1 s after the big feed is
#     published, each for a changed event: from the hook's 202 to the small feed's new ETag, less the
#     service's fixed hook_delay (500 ms). Hooks that overlap the big feed's last page, render and
#     publication are among them, and so are hooks sent while a reload comes: the reload's new refreshers
#     take on what the old ones had pending, and its pipeline keeps the small feed's last answer to patch.
# Goal (issue 39): every hook's patch published, and every reload applied, within 100 ms.
# Prints each run's figures, then the median and the worst of all runs' reloads and of all their hooks, and
# for the hooks, how much of that the control thread (serve's main thread) spent running and how much it
# spent runnable but waiting for a CPU (its /proc schedstat, from the hook's due time to the new ETag): on
# a loaded machine the wait is the other processes' doing, the run time is ours. (Measured at load 10-13:
# hooks 200-520 ms late, of which the control thread ran 16-29 ms and waited 150-380 ms for a CPU. Those
# hooks are patches, not refreshes, so hook_gap does not delay them.) Take the goal's figures on a quiet box.
# 40,000 events: on a quiet machine 10,000 were published before the first hook could be measured; a run
# takes about 20 s on a quiet machine and minutes at load 10.
# BENCH_BIN=PATH times another icsbridge binary (A/B against an older build).
#   deploy/bench-serve-stall.sh [BUILD_DIR]
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
runs=${BENCH_RUNS:-5}
events=${BENCH_EVENTS:-40000}
page_size=${BENCH_PAGE_SIZE:-50}
description=${BENCH_DESCRIPTION_BYTES:-300}
gap_ms=${BENCH_HOOK_GAP_MS:-400}
reload_delay_ms=${BENCH_RELOAD_DELAY_MS:-300}
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
# A reload that stops the list makes it start over: 40,000 events in pages of 50 are 800 calls a read,
# and the default budget (2000/h) would hold the third read for an hour.
budget = "100000/h"

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
    /usr/bin/python3 - "$bin" "$work" "$small_upstream" "$secret" "$gap_ms" "$reload_delay_ms" \
        >"$work/run$i.out" <<'PY' ||
import http.client, os, re, signal, statistics, subprocess, sys, threading, time, urllib.request
bin, work, small_up, secret, gap_ms, reload_delay_ms = sys.argv[1:7]
log_path = work + "/serve.log"
serve = subprocess.Popen([bin, "serve", "--config", work + "/serve.toml"], stderr=open(log_path, "w"))
def log(): return open(log_path).read()
def control_thread():
    """ms the control thread (serve's main thread) has run, and waited runnable for a CPU, so far."""
    run, wait, _ = open("/proc/%d/task/%d/schedstat" % (serve.pid, serve.pid)).read().split()
    return int(run) / 1e6, int(wait) / 1e6
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
    published = re.compile(r" info feed big: \d+ items")  # the publication (the log's subscriber)
    if published.search(log()):
        sys.exit("the big feed was done before the measurement began: raise BENCH_EVENTS")
    def reload():
        """A SIGHUP; ms from the signal to the log's "reloaded:" line."""
        before = log().count("reloaded:")
        t0 = time.monotonic()
        serve.send_signal(signal.SIGHUP)
        until("the reload", lambda: log().count("reloaded:") > before)
        return (time.monotonic() - t0) * 1000
    reloads = [reload()]
    def reload_at_the_end():
        """A reload after each end of the big list's pages, until one comes after its publish() began:
        BENCH_RELOAD_DELAY_MS after the last page, twice that at the next end, and so on, up to 5 times."""
        ends = lambda: log().count("events API: feed big:")
        seen = 0
        for attempt in range(5):
            until("the big list's last page", lambda: ends() > seen, 120)
            seen = ends()
            time.sleep(int(reload_delay_ms) * 2 ** attempt / 1000)
            reloads.append(reload())
            # Published: the reload found it under way. A next end: the reload stopped it, it started over.
            until("the big feed", lambda: published.search(log()) or ends() > seen, 120)
            if published.search(log()):
                return
    watcher = threading.Thread(target=reload_at_the_end, daemon=True)
    watcher.start()
    body = ('{"api_url": "%s/v3/events/788216780592/", "config": {"action": "event.updated", '
            '"user_id": "1296715565", "webhook_id": "4411", "endpoint_url": "x"}}' % small_up).encode()
    def served_moved():
        conn.request("GET", "/feeds/small.ics")
        return b"MOVED" in conn.getresponse().read()
    def hooked():
        """Changes the small upstream, sends its hook; ms from the 202 to the new ETag, less hook_delay."""
        other = 0 if served_moved() else 1  # the version of the small upstream not served now
        urllib.request.urlopen(urllib.request.Request(
            "%s/__control/reload?dir=%s/data%d" % (small_up, work, other), method="POST")).read()
        before = small()[1]
        req = urllib.request.Request("http://127.0.0.1:%d/hooks/small/%s" % (port, secret), data=body,
                                     headers={"Content-Type": "application/json"})
        if urllib.request.urlopen(req).status != 202:
            sys.exit("the hook was refused")
        t_hook = time.monotonic()
        due = None  # the control thread's schedstat when the hook's delay ended
        while small()[1] == before:
            if time.monotonic() - t_hook > 60 or serve.poll() is not None:
                sys.exit("gave up waiting for the hooked change")
            if due is None and time.monotonic() - t_hook >= 0.5:
                due = control_thread()
            time.sleep(0.002)
        took = (time.monotonic() - t_hook) * 1000 - 500
        end = control_thread()
        run, wait = (end[0] - due[0], end[1] - due[1]) if due else (0.0, 0.0)
        return took, run, wait
    # Each hook reads its one event (a patch), also across a reload.
    hooks, runs, waits, done = [], [], [], None
    while done is None or time.monotonic() - done < 1.0:
        took, run, wait = hooked()
        hooks.append(took)
        runs.append(run)
        waits.append(wait)
        if done is None and published.search(log()):
            done = time.monotonic()
        time.sleep(int(gap_ms) / 1000)
    watcher.join(30)
    ms = lambda xs: ",".join("%.0f" % x for x in xs)
    print("reloads=%s hooks=%s hook_runs=%s hook_waits=%s" % (ms(reloads), ms(hooks), ms(runs), ms(waits)))
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
def all_of(k):
    return [float(x) for r in rows for x in r[k].split(",")]
def line(what, xs):
    return "%s: median %.0f ms, worst %.0f ms (%d, goal: all <= 100 ms: %s)" % (
        what, statistics.median(xs), max(xs), len(xs), "met" if max(xs) <= 100 else "NOT met")
print("%d runs, %s events (pages of %s), load average %s" % (len(rows), sys.argv[1], sys.argv[2], sys.argv[3]))
print(line("  reload, signal to applied", all_of("reloads")))
print(line("  hook, 202 to the patch published beyond hook_delay", all_of("hooks")))
for k, what in (("hook_runs", "the control thread ran"), ("hook_waits", "it waited for a CPU")):
    xs = all_of(k)
    print("    of which %s: median %.0f ms, worst %.0f ms" % (what, statistics.median(xs), max(xs)))
' "$events" "$page_size" "$load"
