#!/usr/bin/env bash
# File: bench-webpush.sh
# Benchmark (not a test): WebDAV-Push delivery (issue 37) with `icsbridge serve`, the fake upstream and
# Web Push services that are not ours (tests/support/webpush_receiver.py: each message decrypted with the
# subscription's key, its VAPID JWT verified), all on loopback ([dav] push_allow_private = true).
#   1. latency: a webhook on an organizer feed (the upstream changed) → the message at the push service,
#      p50 and p95 over BENCH_CHANGES (20) changes at least 2 s apart;  target p95 <= 1 s
#   2. fan-out: BENCH_REGISTRATIONS (10,000) registrations on one feed spread over BENCH_ORIGINS (10) push
#      services (one receiver process per port) → one change delivered to all;  target <= 5 s;
#      with the peak RSS of icsbridge (VmHWM)
#   deploy/bench-webpush.sh [BUILD_DIR]      (default build)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
changes=${BENCH_CHANGES:-20}
registrations=${BENCH_REGISTRATIONS:-10000}
origins=${BENCH_ORIGINS:-10}
. "$src/tests/support/sh/run_fixtures.sh"
cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream >/dev/null

init_work
secret=hk-bench-$(od -An -N12 -tx1 /dev/urandom | tr -d " \n")
cp -r "$src/tests/fixtures/upstream" "$work/data"
changed_fixtures "$src" "$work/changed"
start_fake_upstream "$build/icsbridge-fake-upstream" "$work" "$work/data"
pushes=()
for i in $(seq 1 "$origins"); do
    start_webpush_receiver "$src" "$work/receiver$i.out"
    pushes+=("$push")
done
export TEST_HOOK_SECRET=$secret
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0" 'max_connections_per_client = 0')

[dav]
push = true
push_subject = "mailto:bench@example.org"
push_allow_private = true

$(events_source_toml "$upstream" 'timeout = "30s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')

$(organizer_feed_toml pub)

$(organizer_feed_toml many)
TOML
start_icsbridge "$build/icsbridge" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics many.ics

/usr/bin/python3 - "$base" "$upstream" "$secret" "$work" "$changes" "$registrations" "$serve_pid" "${pushes[@]}" <<'PY'
import http.client, json, os, statistics, sys, threading, time, urllib.parse
base, upstream, secret, work = sys.argv[1:5]
changes, registrations, serve_pid = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
pushes = sys.argv[8:]

def cpu_seconds():
    """icsbridge's CPU time so far (user + system): what the fan-out costs it, apart from the push services."""
    fields = open(f"/proc/{serve_pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def request(url, method="GET", body=None, headers=None):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    c.request(method, u.path + ("?" + u.query if u.query else ""), body, headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data

def register_body(sub):
    return f"""<?xml version="1.0" encoding="utf-8"?>
<push-register xmlns="https://bitfire.at/webdav-push"><subscription><web-push-subscription>
<push-resource>{sub["push_resource"]}</push-resource>
<subscription-public-key type="p256dh">{sub["p256dh"]}</subscription-public-key>
<auth-secret>{sub["auth"]}</auth-secret>
</web-push-subscription></subscription></push-register>""".encode()

def change(i):
    d = work + ("/changed" if i % 2 == 0 else "/data")
    request(upstream + "/__control/reload?dir=" + d, "POST")
    t0 = time.time()
    request(f"{upstream}/__control/send_hook?action=event.updated&event=788216780592&to={base}/hooks/eb/{secret}", "POST")
    return t0

def stats(push):
    return json.loads(request(push + "/_stats")[1])

# 1. Latency: one registration on pub.
sub = json.loads(request(pushes[0] + "/_new", "POST", b"{}")[1])
status, _ = request(base + "/dav/feeds/pub/", "POST", register_body(sub), {"Content-Type": "application/xml"})
assert status == 201, status
latencies = []
for i in range(changes):
    before = len(json.loads(request(f"{pushes[0]}/_messages/{sub['id']}")[1]))
    t0 = change(i)
    while True:
        got = json.loads(request(f"{pushes[0]}/_messages/{sub['id']}")[1])
        if len(got) > before:
            latencies.append(got[-1]["at"] - t0)
            break
        if time.time() - t0 > 10:
            raise SystemExit(f"change {i}: no message within 10 s")
        time.sleep(0.01)
    time.sleep(max(0, 2.0 - (time.time() - t0)))
latencies.sort()
p50 = statistics.median(latencies)
p95 = latencies[min(len(latencies) - 1, int(round(0.95 * len(latencies))) - 1)]
print(f"latency webhook -> push service over {changes} changes: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms "
      f"(max {latencies[-1] * 1000:.0f} ms; target p95 <= 1000 ms)")

# 2. Fan-out: registrations on many, spread over the push services.
t = time.time()
def register_many(k, n):
    push = pushes[k % len(pushes)]
    for _ in range(n):
        s = json.loads(request(push + "/_new", "POST", b"{}")[1])
        st, body = request(base + "/dav/feeds/many/", "POST", register_body(s), {"Content-Type": "application/xml"})
        assert st == 201, (st, body[:200])
threads = [threading.Thread(target=register_many, args=(k, registrations // 20)) for k in range(20)]
for th in threads: th.start()
for th in threads: th.join()
print(f"{registrations} registrations over {len(pushes)} push services in {time.time() - t:.1f} s", file=sys.stderr)
time.sleep(2)
before = sum(stats(p)["messages"] for p in pushes)
cpu0 = cpu_seconds()
t0 = change(changes)
deadline = t0 + 120
while time.time() < deadline:
    all_stats = [stats(p) for p in pushes]
    got = sum(s["messages"] for s in all_stats) - before
    if got >= registrations:
        break
    time.sleep(0.1)
last = max(s["last_at"] or 0 for s in all_stats)
print(f"fan-out: one change to {got} of {registrations} registrations over {len(pushes)} push services in "
      f"{last - t0:.2f} s (target <= 5 s); refused: {sum(s['refused'] for s in all_stats)}; icsbridge's CPU "
      f"meanwhile {cpu_seconds() - cpu0:.1f} s")
PY
echo "icsbridge peak RSS: $(grep VmHWM "/proc/$serve_pid/status" | awk '{ printf "%.0f MiB", $2 / 1024 }')"
curl -s "$base/metrics" | grep '^icsbridge_dav_push_messages_total' || true
