#!/usr/bin/env bash
# File: bench-signin.sh
# Benchmark (not a test): a flood of self-serve sign-ins (issue 35). N begin + claim cycles (default
# 100,000): GET /connect/google?feed=pub (a fresh sealed state), then GET /connect/callback?state=S&
# error=access_denied (the refusal a provider sends back, which uses the state up: a claim kept until the
# state expires). Once from one client address on one keep-alive connection, once from many loopback
# addresses (127.0.X.Y, the client socket bound to each in turn). Meanwhile a feed is fetched every 0.2 s.
# Prints, per run: the answers by status, the time taken, serve's RSS before and after (VmRSS), and the
# feed's answers (all must be 200). The caps (30 per client, 10,000 in all, per 10 minutes, begun and
# claimed each) bound what the flood holds; without them each claim kept ~315 B for 10 minutes.
#   deploy/bench-signin.sh [BUILD_DIR] [N]
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
cycles=${2:-100000}
bin=$build/icsbridge
fake=$build/icsbridge-fake-upstream
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=bench-signin
fail_logs="serve.log"
fail_skip="info GET \|info POST "

[ -x "$bin" ] && [ -x "$fake" ] || { echo "build $bin and $fake first" >&2; exit 1; }
init_work
. "$src/tests/push/fakeapi/signin_serve.sh"
start_signin_serve

rss() { awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status"; }

# flood MODE: N cycles; prints one table row.
flood() {
    local before after
    before=$(rss)
    $python - "$port" "$cycles" "$1" "$before" "$serve_pid" <<'PY' || fail "the $1 flood failed"
import collections, re, socket, sys, threading, time
port, cycles, mode, before, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
feed = collections.Counter()
stop = threading.Event()

def fetch_feed():
    import urllib.error, urllib.request
    while not stop.is_set():
        try:
            feed[urllib.request.urlopen("http://127.0.0.1:%d/feeds/pub.ics" % port, timeout=10).status] += 1
        except urllib.error.HTTPError as e:
            feed[e.code] += 1
        except Exception as e:
            feed[type(e).__name__] += 1
        stop.wait(0.2)

def request(sock, path):
    sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("closed")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)\r\ncontent-length: *(\d+)", head).group(1))
    while len(body) < length:
        body += sock.recv(65536)
    status = int(head[9:12])
    m = re.search(rb"(?i)\r\nlocation: [^\r]*[?&]state=([^&\r]+)", head)
    return status, (m.group(1) if m else None)

def connect_from(addr):
    s = socket.create_connection(("127.0.0.1", port), source_address=(addr, 0), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s

def addresses():
    while True:
        for x in range(0, 254):
            for y in range(1, 255):
                yield "127.0.%d.%d" % (x, y)

watcher = threading.Thread(target=fetch_feed)
watcher.start()
begun, claimed = collections.Counter(), collections.Counter()
state = b"none"
t0 = time.monotonic()
peak = before
if mode == "one":
    s = connect_from("127.0.0.1")
    for i in range(cycles):
        st, got = request(s, b"/connect/google?feed=pub")
        begun[st] += 1
        state = got or state
        st, _ = request(s, b"/connect/callback?error=access_denied&state=" + state)
        claimed[st] += 1
else:
    gen = addresses()
    for i in range(cycles):
        s = connect_from(next(gen))
        st, got = request(s, b"/connect/google?feed=pub")
        begun[st] += 1
        state = got or state
        st, _ = request(s, b"/connect/callback?error=access_denied&state=" + state)
        claimed[st] += 1
        s.close()
        if i % 5000 == 0:
            peak = max(peak, int(open("/proc/%s/status" % pid).read().split("VmRSS:")[1].split()[0]))
took = time.monotonic() - t0
stop.set()
watcher.join()
after = int(open("/proc/%s/status" % pid).read().split("VmRSS:")[1].split()[0])
fmt = lambda c: ", ".join("%s %d" % (k, v) for k, v in sorted(c.items(), key=str))
print("| %s | %d | %s | %s | %.1f s | %.1f MiB | %.1f MiB (%+.1f MiB) | %s |" % (
    "one address (127.0.0.1)" if mode == "one" else "many addresses (127.0.x.y)", cycles, fmt(begun),
    fmt(claimed), took, before / 1024, after / 1024, (after - before) / 1024, fmt(feed)))
if set(feed) != {200}:
    sys.exit("the feed answered %s during the flood" % fmt(feed))
PY
}

echo "| client | cycles | begin answers | claim answers | took | RSS before | RSS after | feed during |"
echo "|---|---|---|---|---|---|---|---|"
flood one
flood many
kill -0 "$serve_pid" || fail "serve died during the flood"
