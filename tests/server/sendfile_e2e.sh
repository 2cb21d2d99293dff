#!/usr/bin/env bash
# File: sendfile_e2e.sh
# Large bodies sent with sendfile() from the snapshot's file (issue 39, plain bodies without a copy): an
# unlinked O_TMPFILE in storage.dir, or a sealed memfd where storage.dir's filesystem has none (a memfd's or
# tmpfs's body over 8 MiB written from its mapping), against the real binary over real sockets: the bytes are the
# snapshot's, identity and gzip, for a feed and a view, with HEAD and pipelined requests; a slow reader gets it
# all while others are served; a reader that stops is cut off after idle_timeout (in sendfile() and in a write);
# clients that hang up mid-body leave the server serving and no descriptor behind. Under an open-file limit
# too low for sealed files, the same bytes come from the heap.
#   sendfile_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
src=$3
python=/usr/bin/python3
# shellcheck source=../support/sh/serve_fixtures.sh
. "$src/tests/support/sh/serve_fixtures.sh"
test_name=sendfile
init_work
mkdir -p "$work/state"

# snapshot NAME EVENTS [same]: storage.dir's snapshot of a calendar with EVENTS events, each with a random
# description (so its gzip form is large too; with `same`, one description for all); the body alone in
# WORK/NAME.ics.
snapshot() {
    "$python" - "$work/state/$1.snapshot" "$work/$1.ics" "$2" "${3:-}" <<'PY'
import hashlib, json, os, sys
n = int(sys.argv[3])
random = sys.argv[4] != "same"
body = "".join(["BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//icsbridge//test//EN\r\n"] +
               ["BEGIN:VEVENT\r\nUID:e%d@events.example.com\r\nDTSTAMP:20260101T000000Z\r\n"
                "DTSTART:20260301T180000Z\r\nSUMMARY:Meetup %d\r\nDESCRIPTION:%s\r\nEND:VEVENT\r\n"
                % (i, i, os.urandom(24).hex() if random else "x" * 48) for i in range(n)] +
               ["END:VCALENDAR\r\n"]).encode()
head = {"format": 1, "etag": '"%s"' % hashlib.sha256(body).hexdigest(), "last_modified": 1767225600,
        "fetched_at": 1767225600, "items": n, "bytes": len(body)}
open(sys.argv[1], "wb").write(json.dumps(head).encode() + b"\n" + body)
open(sys.argv[2], "wb").write(body)
PY
}
big_events=12000
snapshot big "$big_events" # about 1.8 MB, gzip about 0.6 MB: both over sendfile_min_bytes (32 KiB)
snapshot small 20 # 4 KB: on the heap, one gather write with the head
# 7.5 MB, more than loopback's socket buffers take (tcp_wmem's 4 MB and the reader's): the server waits for the
# reader in the middle of sendfile()
snapshot large 45000 same
# 10 MB, over sendfile_max_shmem_bytes (8 MiB): from a memfd written from the file's mapping, and waited for
# there alike; from a tmpfile on a disk sent with sendfile() as the others
snapshot huge 60000 same

{
    server_toml "$work/state" 127.0.0.1:0 'threads = 1' 'idle_timeout = "2s"'
    echo
    offline_source
    offline_feed big organizer
    offline_feed small organizer
    offline_feed large organizer
    offline_feed huge organizer
} >"$work/c.toml"

# start [ULIMIT_ARGS...]: serve (under `ulimit ULIMIT_ARGS` when given, in a subshell); sets serve_pid, base.
start() {
    if [ $# -gt 0 ]; then
        (ulimit "$@" && exec "$bin" serve --config "$work/c.toml") 2>"$work/serve.log" &
    else
        "$bin" serve --config "$work/c.toml" 2>"$work/serve.log" &
    fi
    serve_pid=$!
    # With the 10 MB feed alone, serve listened 23 s after its start under the sanitizers (measured, idle machine).
    base=$(wait_listening "$work/serve.log" "$serve_pid" 180) || fail "serve did not start"
    wait_for_url "$base/feeds/big.ics" 10 || fail "big.ics gave $last_status"
}
stop() {
    kill -TERM "$serve_pid"
    wait "$serve_pid" || fail "serve exited with $? after SIGTERM"
    serve_pid=
}
# sealed_files [tmpfile|memfd]: how many snapshot files serve holds open (both kinds, or one: an unlinked
# O_TMPFILE in storage.dir reads "DIR/#INODE (deleted)").
sealed_files() {
    local n=0 m=0 fd state
    state=$(cd "$work/state" && pwd -P)
    for fd in /proc/"$serve_pid"/fd/*; do
        case $(readlink "$fd" 2>/dev/null) in
        /memfd:icsbridge-snapshot*) m=$((m + 1)) ;;
        "$state"/\#*" (deleted)") n=$((n + 1)) ;;
        esac
    done
    case ${1:-} in tmpfile) echo "$n" ;; memfd) echo "$m" ;; *) echo $((n + m)) ;; esac
}
# Whether storage.dir's filesystem makes O_TMPFILE files (ext4, xfs, tmpfs do; overlayfs does not): then the
# snapshot files are those, else memfds.
if "$python" -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_RDWR | os.O_EXCL, 0o600))' \
    "$work/state" 2>/dev/null; then
    file_kind=tmpfile
else
    file_kind=memfd
fi

# same_bytes: every way of asking for the two feeds and a view gives the snapshot's bytes.
same_bytes() {
    local f
    for f in big small; do
        curl -sf -o "$work/got.ics" "$base/feeds/$f.ics" || fail "GET $f.ics failed"
        cmp -s "$work/got.ics" "$work/$f.ics" || fail "$f.ics: not the snapshot's bytes ($1)"
        curl -sf -H 'Accept-Encoding: gzip' -o "$work/got.gz" "$base/feeds/$f.ics" || fail "GET $f.ics gzip failed"
        gzip -dc "$work/got.gz" | cmp -s - "$work/$f.ics" || fail "$f.ics gzip: not the snapshot's bytes ($1)"
    done
    curl -sf -o "$work/view.ics" "$base/feeds/big.ics?alarm=none" || fail "GET the view failed"
    curl -sf -H 'Accept-Encoding: gzip' -o "$work/view.gz" "$base/feeds/big.ics?alarm=none" || fail "view gzip"
    [ "$(stat -c %s "$work/view.ics")" -gt 32768 ] || fail "the view is too small to be sent from a sealed file"
    gzip -dc "$work/view.gz" | cmp -s - "$work/view.ics" || fail "the view's gzip and identity forms differ ($1)"
    grep -c '^BEGIN:VEVENT' "$work/view.ics" | grep -qx "$big_events" || fail "the view lost events ($1)"
    for f in large huge; do # sendfile() and, over 8 MiB from shmem, a copy from the mapping
        curl -sf -o "$work/got.ics" "$base/feeds/$f.ics" || fail "GET $f.ics failed"
        cmp -s "$work/got.ics" "$work/$f.ics" || fail "$f.ics: not the snapshot's bytes ($1)"
    done
}

# pipelined: one connection, four requests in one write (GET, HEAD, GET gzip, GET small): each answer
# whole and in order, the HEAD with the GET's Content-Length and no body.
pipelined() {
    "$python" - "${base##*:}" "$work" <<'PY' || fail "pipelined requests ($1)"
import gzip, socket, sys
port, work = int(sys.argv[1]), sys.argv[2]
big = open(work + "/big.ics", "rb").read()
small = open(work + "/small.ics", "rb").read()
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(b"GET /feeds/big.ics HTTP/1.1\r\nHost: x\r\n\r\n"
          b"HEAD /feeds/big.ics HTTP/1.1\r\nHost: x\r\n\r\n"
          b"GET /feeds/big.ics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"
          b"GET /feeds/small.ics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
data = b""
while True:
    chunk = s.recv(1 << 16)
    if not chunk:
        break
    data += chunk
def answer(data, head):
    end = data.index(b"\r\n\r\n") + 4
    fields = dict(l.split(b": ", 1) for l in data[:end - 4].split(b"\r\n")[1:])
    length = 0 if head else int(fields[b"Content-Length"])
    return data[:end], fields, data[end:end + length], data[end + length:]
h1, f1, b1, data = answer(data, False)
h2, f2, b2, data = answer(data, True)
h3, f3, b3, data = answer(data, False)
h4, f4, b4, data = answer(data, False)
assert h1.startswith(b"HTTP/1.1 200") and b1 == big, "GET"
assert h2.startswith(b"HTTP/1.1 200") and f2[b"Content-Length"] == str(len(big)).encode(), "HEAD"
assert f3.get(b"Content-Encoding") == b"gzip" and gzip.decompress(b3) == big, "GET gzip"
assert b4 == small and data == b"", "GET small, then nothing"
PY
}

# 1. Sealed files hold the large feeds' bodies (identity and gzip), not the small one's.
start
[ "$(sealed_files)" = 6 ] || fail "serve holds $(sealed_files) sealed files, not big's, large's and huge's 2 each"
[ "$(sealed_files "$file_kind")" = 6 ] || fail "of serve's 6 snapshot files $(sealed_files "$file_kind") are ${file_kind}s"
same_bytes "sealed files"
[ "$(sealed_files "$file_kind")" -ge 7 ] || fail "the large view is not in a sealed file ($file_kind)"
pipelined "sealed files"

# 2. A slow reader takes 8 s, at a steady pace: the server waits in sendfile() for longer than idle_timeout
#    (2s), and as every bit of progress moves the deadline, the reader gets it all; meanwhile the only HTTP
#    thread answers others at once.
"$python" - "${base##*:}" "$work/large.ics" <<'PY' || fail "the slow reader"
import socket, sys, threading, time, urllib.request
port, expected = int(sys.argv[1]), open(sys.argv[2], "rb").read()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.settimeout(10)
s.connect(("127.0.0.1", port))
s.sendall(b"GET /feeds/large.ics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
chunks, got, others = [], 0, []
def other():
    t = time.monotonic()
    urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=5).read()
    others.append(time.monotonic() - t)
started = time.monotonic()
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    chunks.append(chunk)
    got += len(chunk)
    if not others and got > 1000000:
        t = threading.Thread(target=other)
        t.start()
        t.join()
    time.sleep(max(0.0, started + 8.0 * got / len(expected) - time.monotonic()))
took = time.monotonic() - started
assert b"".join(chunks).split(b"\r\n\r\n", 1)[1] == expected, "body differs (%d bytes in %.1f s)" % (got, took)
assert others and others[0] < 1.0, "another client waited %s s" % others
PY
# The access log's time is until the last byte was handed to the kernel: the server waited past idle_timeout.
waited=$(grep -o 'GET /feeds/large.ics 200 [0-9]* [0-9.]*ms' "$work/serve.log" | tail -1 | awk '{print int($5)}')
[ "${waited:-0}" -gt 2500 ] || fail "the server was done with the slow reader after ${waited:-?} ms: it never waited long"

# 3. A reader that stops is cut off after idle_timeout (2s) without progress; clients that reset the
#    connection mid-body are let go. Afterwards serve holds no descriptor more than before and still serves.
before=$(ls /proc/"$serve_pid"/fd | wc -l)
for f in large huge; do # in sendfile() and in a write from the mapping
"$python" - "${base##*:}" "$work/$f.ics" "$f" <<'PY' || fail "a stalled reader or a hang-up mid-body ($f)"
import socket, struct, sys, time
port, feed = int(sys.argv[1]), sys.argv[3].encode()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.settimeout(10)
s.connect(("127.0.0.1", port))
s.sendall(b"GET /feeds/" + feed + b".ics HTTP/1.1\r\nHost: x\r\n\r\n")
got = len(s.recv(4096))
time.sleep(4)  # idle_timeout is 2s: the server gives up on this reader meanwhile
ended = False
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            ended = True
            break
        got += len(chunk)
except ConnectionResetError:
    ended = True
assert ended and got < len(open(sys.argv[2], "rb").read()), "the stalled reader got %d bytes and the connection %s" % (got, ended)
for i in range(20):
    c = socket.create_connection(("127.0.0.1", port), timeout=10)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    enc = b"Accept-Encoding: gzip\r\n" if i % 2 else b""
    c.sendall(b"GET /feeds/big.ics HTTP/1.1\r\nHost: x\r\n" + enc + b"\r\n")
    c.recv(1000)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset
    c.close()
PY
done
for _ in $(seq 1 30); do
    [ "$(ls /proc/"$serve_pid"/fd | wc -l)" -le "$before" ] && break
    sleep 0.1
done
after=$(ls /proc/"$serve_pid"/fd | wc -l)
[ "$after" -le "$before" ] || fail "serve holds $after descriptors after the hang-ups, $before before"
same_bytes "after hang-ups"
stop

# 4. An open-file limit of 64 leaves no descriptor to spare for sealed files: the same bytes from the heap.
start -n 64
[ "$(sealed_files)" = 0 ] || fail "serve holds $(sealed_files) sealed files under a limit of 64"
same_bytes "heap"
pipelined "heap"
[ "$(sealed_files)" = 0 ] || fail "a view took a sealed file under a limit of 64"
stop
echo "ok [sendfile]"
