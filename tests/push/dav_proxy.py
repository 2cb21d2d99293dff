#!/usr/bin/python3
"""A logging, fault-injecting reverse proxy in front of a WebDAV server (Radicale in the push tests).

    dav_proxy.py UPSTREAM_URL LOG_FILE [--tls CERT KEY]

Listens on 127.0.0.1 (a free port) and prints "listening on http://127.0.0.1:PORT" once it accepts (with
--tls: HTTPS with that PEM certificate and key, "listening on https://127.0.0.1:PORT"). Every
request is forwarded unchanged (method, path, body, headers such as Authorization, Depth, If-Match and
If-None-Match) on a fresh connection to UPSTREAM_URL, whose answer goes back unchanged but for the hop-by-hop
headers. Each request forwarded or refused is appended to LOG_FILE as one line:

    METHOD PATH STATUS UNIX_TIME PRECONDITION CLIENT START IF_MATCH AUTH

UNIX_TIME is when the answer was ready to go back (before the client could have it), START when the
request arrived (so [START, UNIX_TIME] lies within the client's own wait: overlapping lines were in flight
at once). PRECONDITION is "create" for If-None-Match: *, "match" for If-Match, "-" for neither (Radicale
answers 201 to every successful PUT, so only this tells a create from a replace); IF_MATCH is the If-Match
value as sent ("-" without one); AUTH is "auth" when the request carried an Authorization header, else "-"
(a redirect test asks whether credentials reached a host they must not). CLIENT is the name given to the
process that sent it (POST /__proxy/client), "-" for any other: several `serve` replicas pushing one
calendar send the same URLs and headers, so only the process that owns the connection tells them apart.
Tests count requests (e.g. no PUT line after a reconcile that should write nothing) and measure the gap
after a 429. Truncating LOG_FILE is fine: lines are appended. A request whose client is gone (killed) before
the answer is still logged once the upstream answered it: the server did the work. One whose body did not
arrive whole is neither forwarded nor logged, as a server would not act on it.

Control requests go to /__proxy/ and are never forwarded or logged:
    POST /__proxy/fault?status=429&count=2&retry_after=2[&method=PUT][&delay_ms=N]
        the next COUNT requests (with METHOD only, when given) are answered STATUS with
        `Retry-After: RETRY_AFTER` (omitted when retry_after is absent) instead of being forwarded
    POST /__proxy/delay?ms=N      every forwarded request waits N ms first (0: off): a slow server
    POST /__proxy/race?path=P[&method=PUT]
                                  the next request (of METHOD, default PUT) to path P races a change: before
                                  it is forwarded, the proxy itself PUTs the request's own body to P with
                                  its SUMMARY replaced by "Changed meanwhile" (no precondition, the
                                  request's credentials), so the item's ETag moves between the client's
                                  listing and its write. The ETag that PUT got is "race_etag" in the state
    POST /__proxy/redirect?path=P&location=L[&status=302][&method=PROPFIND]
                                  every request (of METHOD, default any) to path P is answered STATUS
                                  (default 302) with `Location: L` instead of being forwarded
    POST /__proxy/clear           no fault, no delay, no race, no redirect
    POST /__proxy/client?pid=N&name=NAME
                                  requests on connections that process N owns are logged as CLIENT NAME
    GET  /__proxy/state           the fault in force, as JSON
"""
import http.client
import json
import os
import re
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
              "trailers", "transfer-encoding", "upgrade", "content-length"}

upstream = urllib.parse.urlsplit(sys.argv[1])
log_path = sys.argv[2]
lock = threading.Lock()
fault = {"status": 0, "count": 0, "retry_after": None, "method": None}
delay = {"ms": 0}
race = {"path": None, "method": None, "etag": None}
redirect = {"path": None, "location": None, "status": 302, "method": None}
clients = {}  # pid -> name (POST /__proxy/client)


def log(method, path, status, headers, client="-", start=None, end=None):
    cond = "create" if headers.get("If-None-Match", "").strip() == "*" else "match" if headers.get("If-Match") else "-"
    end = time.time() if end is None else end
    if_match = "".join((headers.get("If-Match") or "-").split())
    auth = "auth" if headers.get("Authorization") else "-"
    line = "%s %s %d %.3f %s %s %.3f %s %s\n" % (method, path, status, end, cond, client,
                                                 end if start is None else start, if_match, auth)
    with lock, open(log_path, "a") as f:
        f.write(line)


def take_fault(method):
    """The fault to answer this request with, if one is armed for it (and counts it down)."""
    with lock:
        if fault["count"] <= 0 or (fault["method"] and fault["method"] != method):
            return None
        fault["count"] -= 1
        return dict(fault)


def redirect_for(method, path):
    """The armed redirect's (status, location) when it covers this request, else None."""
    with lock:
        if redirect["path"] != path or (redirect["method"] and redirect["method"] != method):
            return None
        return redirect["status"], redirect["location"]


def take_race(method, path):
    """Whether this request is the one the armed race waits for (and disarms it)."""
    with lock:
        if race["path"] != path or race["method"] != method:
            return False
        race["path"] = None
        return True


def change_meanwhile(path, body, headers):
    """Someone else's write of the item at path (its SUMMARY changed), straight to the upstream."""
    changed = re.sub(rb"(?m)^SUMMARY[^\r\n]*", b"SUMMARY:Changed meanwhile", body)
    send = {"Content-Type": "text/calendar; charset=utf-8", "Content-Length": str(len(changed))}
    if headers.get("Authorization"):
        send["Authorization"] = headers["Authorization"]
    conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
    try:
        conn.request("PUT", path, body=changed, headers=send)
        resp = conn.getresponse()
        resp.read()
        with lock:
            race["etag"] = resp.getheader("ETag")
    finally:
        conn.close()


def socket_inode(peer_port, our_port):
    """The inode of the client's end of a loopback connection (its local port is peer_port), or None."""
    want_local, want_remote = ":%04X" % peer_port, ":%04X" % our_port
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[1].endswith(want_local) and fields[2].endswith(want_remote):
                        return fields[9]
        except OSError:
            continue
    return None


def client_of(peer_port, our_port):
    """The registered name of the process that owns the connection from peer_port, or None."""
    with lock:
        known = dict(clients)
    if not known:
        return None
    inode = socket_inode(peer_port, our_port)
    if inode is None:
        return None
    target = "socket:[%s]" % inode
    for pid, name in known.items():
        try:
            fds = os.listdir("/proc/%d/fd" % pid)
        except OSError:
            continue  # gone (killed): its connections are closed too
        for fd in fds:
            try:
                if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == target:
                    return name
            except OSError:
                continue
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive towards the client; each forward is its own connection

    def log_message(self, *args):
        pass

    def client(self):
        """Who sent this connection's requests: looked up until found (a process may be named after it
        connected), then kept for the connection's life."""
        if getattr(self, "client_name", None) is None:
            self.client_name = client_of(self.client_address[1], self.server.server_address[1])
        return self.client_name or "-"

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if len(body) < length:
            raise ConnectionError("the client went away in the middle of its request body")
        return body

    def reply(self, status, body=b"", headers=()):
        self.send_response_only(status)
        for k, v in headers:
            self.send_header(k, v)
        if self.command != "HEAD" and status not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def control(self, body):
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        with lock:
            if url.path == "/__proxy/fault":
                fault.update(status=int(q.get("status", 503)), count=int(q.get("count", 1)),
                             retry_after=q.get("retry_after"), method=q.get("method"))
            elif url.path == "/__proxy/delay":
                delay["ms"] = int(q.get("ms", 0))
            elif url.path == "/__proxy/client":
                clients[int(q["pid"])] = q["name"]
            elif url.path == "/__proxy/race":
                race.update(path=q["path"], method=q.get("method", "PUT"), etag=None)
            elif url.path == "/__proxy/redirect":
                redirect.update(path=q["path"], location=q["location"], status=int(q.get("status", 302)),
                                method=q.get("method"))
            elif url.path == "/__proxy/clear":
                redirect.update(path=None, location=None, status=302, method=None)
                fault.update(status=0, count=0, retry_after=None, method=None)
                delay["ms"] = 0
                race.update(path=None, method=None, etag=None)
            elif url.path != "/__proxy/state":
                return self.reply(404, b"unknown control path\n")
            state = json.dumps({"fault": fault, "delay_ms": delay["ms"], "race_etag": race["etag"]}).encode()
        self.reply(200, state, [("Content-Type", "application/json")])

    def forward(self):
        start = time.time()
        try:
            body = self.read_body()
        except (ConnectionError, ValueError):
            self.close_connection = True
            return
        if self.path.startswith("/__proxy/"):
            return self.control(body)
        client = self.client()  # now, while the client is surely there to be found
        moved = redirect_for(self.command, urllib.parse.urlsplit(self.path).path)
        if moved:
            log(self.command, self.path, moved[0], self.headers, client, start)
            return self.reply(moved[0], b"moved by dav_proxy\n", [("Location", moved[1]), ("Content-Type", "text/plain")])
        f = take_fault(self.command)
        if f:
            headers = [("Content-Type", "text/plain")]
            if f["retry_after"] is not None:
                headers.append(("Retry-After", f["retry_after"]))
            end = time.time()
            # Logged before the answer leaves: a client that exits on it must find its request in the log.
            log(self.command, self.path, f["status"], self.headers, client, start, end)
            return self.reply(f["status"], b"injected by dav_proxy\n", headers)
        if delay["ms"]:
            time.sleep(delay["ms"] / 1000)
        if take_race(self.command, self.path):
            change_meanwhile(self.path, body, self.headers)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        if body or self.command in ("PUT", "POST", "PROPFIND", "REPORT", "PROPPATCH", "MKCALENDAR", "MKCOL"):
            headers["Content-Length"] = str(len(body))
        conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
        try:
            conn.request(self.command, self.path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            # A HEAD answer keeps the length of what a GET would send.
            back = [(k, v) for k, v in resp.getheaders()
                    if k.lower() not in HOP_BY_HOP or (self.command == "HEAD" and k.lower() == "content-length")]
            status = resp.status
        except OSError as e:
            back, data, status = [("Content-Type", "text/plain")], ("proxy: %s\n" % e).encode(), 502
        finally:
            conn.close()
        end = time.time()
        # Logged before the answer leaves: the test reads the log as soon as icsbridge has its answer and
        # exits, and a line written after the reply could still be missing then.
        log(self.command, self.path, status, self.headers, client, start, end)
        self.reply(status, data, back)

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = do_OPTIONS = do_PATCH = forward
    do_PROPFIND = do_PROPPATCH = do_REPORT = do_MKCALENDAR = do_MKCOL = do_MOVE = do_COPY = forward
    do_LOCK = do_UNLOCK = forward


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


server = Server(("127.0.0.1", 0), Handler)
scheme = "http"
if len(sys.argv) > 5 and sys.argv[3] == "--tls":
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(sys.argv[4], sys.argv[5])
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    scheme = "https"
print("listening on %s://127.0.0.1:%d" % (scheme, server.server_address[1]), flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
