#!/usr/bin/python3
"""A fake Google Calendar API v3 or Microsoft Graph v1.0 (the subset of docs push-apis.md) with its OAuth server.

    fake_calendar_api.py --provider google|microsoft [--port 0] [--port-file FILE] [--client-id test-client]
        [--client-secret S] [--redirect-uri URI]... [--latency-ms 0] [--quota-per-minute 0]
        [--user-quota-per-minute 0] [--error-rate 0] [--seed 0] [--token-lifetime 3600] [--log FILE]

In memory, on 127.0.0.1, in one thread: each connection is an asyncio task (HTTP/1.1 keep-alive), so a
thousand clients with their pooled connections cost no thread each (a thread per connection, as http.server
has, spent the benchmark's CPU switching between thousands of them). Prints "listening on
http://127.0.0.1:PORT" once it accepts (and writes PORT to --port-file, atomically). Accounts (fakeapi/accounts.py): every grant belongs to the account (an e-mail) that
signed in: login_hint, or the consent page's field, default default@example.org (which exists from the start);
an account has its own calendars, events, sync tokens, and API requests act on the access token's account.
Paths:
    /calendar/v3/...   google (api_base http://127.0.0.1:PORT/calendar/v3); an account's primary calendar exists
                       (its id is the account's e-mail)
    /v1.0/...          microsoft (api_base http://127.0.0.1:PORT/v1.0); an account's default calendar exists
    /oauth/authorize   GET (and POST from its consent page), /oauth/token, /oauth/revoke (google only): the
                       authorization server (fakeapi/oauth.py). redirect_uri: loopback (http://127.0.0.1:PORT/) or
                       one of the --redirect-uri (exact match). A browser (Accept: text/html) gets a consent page
                       (#account, #allow, #cancel); other clients are approved at once (302 with the code).
    /_fake/...         the admin endpoints for tests (fakeapi/admin.py), account=E-MAIL to pick an account
API requests need a live access token (else 401 in the provider's shape); then the quotas: over
--quota-per-minute requests of the whole fake (the project's quota) let through in the last 60 s, or at random
with --error-rate, a request is refused as the provider does (google: 403 rateLimitExceeded /
userRateLimitExceeded in turn, one in four 429; microsoft: 429 ApplicationThrottled with Retry-After 1..3); over
--user-quota-per-minute requests of its account (per user / per mailbox) let through in the last 60 s: google
403 userRateLimitExceeded, microsoft 429 ApplicationThrottled with Retry-After 2. --latency-ms delays every API
answer. --log appends one line per request: METHOD PATH STATUS UNIX_TIME KIND, then " if-match" when the
request carried an If-Match header; with no secret (OAuth paths without their query). The admin config
reject_tokens makes every API request a 401, fresh access tokens too.
"""
import argparse
import asyncio
import email.utils
import http
import os
import signal
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakeapi.accounts import DEFAULT  # noqa: E402
from fakeapi.admin import Admin  # noqa: E402
from fakeapi.common import Answer, Request, State, match_route, secret_free  # noqa: E402
from fakeapi.google import Google  # noqa: E402
from fakeapi.graph import Graph  # noqa: E402
from fakeapi.oauth import OAuth  # noqa: E402

WRITES = ("POST", "PUT", "PATCH", "DELETE")
OAUTH = {("GET", "authorize"): ("authorize", "authorize"), ("POST", "authorize"): ("authorize", "consent"),
         ("POST", "token"): ("token", "token"), ("POST", "revoke"): ("token", "revoke")}


class Fake:
    def __init__(self, args):
        self.state = State(args)
        self.oauth = OAuth(self.state, args)
        self.api = Google(self.state) if args.provider == "google" else Graph(self.state)
        self.admin = Admin(self.state, self.api, self.oauth)
        self.default = self.state.get_account(DEFAULT, create=True)
        self.oauth_paths = {k: v for k, v in OAUTH.items() if k[1] != "revoke" or args.provider == "google"}
        self.log_path = args.log
        self.base_url = None

    def serve(self, req):
        """(answer, milliseconds to wait before sending it)."""
        segs, latency, kind = req.segments, 0, "other"
        with self.state.lock:
            self.state.account = self.default  # until the request says whose it is
            try:
                if segs[:1] == ["_fake"]:
                    answer, kind = self.admin.handle(req), "admin"
                elif segs[:1] == ["oauth"] and len(segs) == 2 and (req.method, segs[1]) in self.oauth_paths:
                    kind, name = self.oauth_paths[(req.method, segs[1])]
                    answer = getattr(self.oauth, name)(req)
                elif tuple(segs[:len(self.api.prefix)]) == self.api.prefix:
                    answer, kind = self.api_call(req)
                    latency = self.state.config.latency_ms
                else:
                    answer = Answer(404, b"not a path of this fake\n", {"Content-Type": "text/plain"})
            except Exception:  # a bug of the fake: say so loudly, answer 500
                traceback.print_exc()
                answer = Answer(500, b"fake_calendar_api: internal error (see its stderr)\n")
            if kind != "admin":
                self.state.counters.count(kind, answer.status, req.method in WRITES and kind in (
                    "insert", "update", "delete", "calendar"))
        self.log(req, answer.status, kind)
        return answer, latency

    def api_call(self, req):
        route = match_route(self.api.routes, req.method, req.segments[len(self.api.prefix):])
        if route is None:
            return self.api.not_found(), "other"
        kind, name, args = route
        why, scopes, account = self.oauth.check(req.bearer())
        if why is None and self.state.config.reject_tokens:
            why = "invalid"
        if why:
            return self.api.unauthorized(why), kind
        self.state.account = account
        verdict = self.state.quota_verdict()
        if verdict:
            return self.api.throttled(verdict), kind
        req.scopes = scopes
        if kind in ("update", "delete") and args and args[-1] in self.state.armed:
            # The person's edit lands between the client's read and its write: the write's If-Match is stale.
            _, ev = self.state.find_event(args[-1])
            summary = self.state.armed.pop(args[-1])
            if ev is not None:
                self.api.edit(ev, summary)
        try:
            return getattr(self.api, name)(req, *args), kind
        except Answer as a:
            return a, kind

    def log(self, req, status, kind):
        if not self.log_path:
            return
        path, _, query = req.target.partition("?")
        shown = path if req.segments[:1] == ["oauth"] else secret_free(path, query)
        conditional = " if-match" if req.headers.get("If-Match") is not None else ""
        with open(self.log_path, "a") as f:
            f.write("%s %s %d %.3f %s%s\n" % (req.method, shown, status, time.time(), kind, conditional))


class Headers:
    """A request's header fields by name, case-insensitive (the first of a repeated one), as http.server's."""

    def __init__(self, lines):
        self.fields = {}
        for line in lines:
            name, _, value = line.partition(":")
            self.fields.setdefault(name.strip().lower(), value.strip())

    def get(self, name, default=None):
        return self.fields.get(name.lower(), default)


class BadRequest(Exception):
    pass


def parse_head(head):
    """(method, target, version, Headers) of a request's head (up to its blank line); raises BadRequest."""
    lines = head.decode("iso-8859-1").split("\r\n")
    words = lines[0].split()
    if len(words) != 3 or not words[2].startswith("HTTP/1."):
        raise BadRequest("bad request line %r" % lines[0][:100])
    return words[0], words[1], words[2], Headers(line for line in lines[1:] if line)


async def read_body(reader, headers):
    if "chunked" in headers.get("Transfer-Encoding", "").lower():
        chunks = []
        while True:
            size = int((await reader.readline()).split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readline()).strip():
                    pass
                return b"".join(chunks)
            chunks.append(await reader.readexactly(size))
            await reader.readline()
    length = int(headers.get("Content-Length") or 0)
    return await reader.readexactly(length) if length else b""


def response(method, answer):
    """The bytes of an answer: status line, Date, the answer's headers, Content-Length (but on 204 and 304) and
    the body (but for HEAD), in one write."""
    payload = answer.payload()
    try:
        phrase = http.HTTPStatus(answer.status).phrase
    except ValueError:
        phrase = ""
    head = ["HTTP/1.1 %d %s" % (answer.status, phrase), "Date: " + email.utils.formatdate(usegmt=True)]
    head += ["%s: %s" % kv for kv in answer.headers.items()]
    if answer.status not in (204, 304):
        head.append("Content-Length: %d" % len(payload))
    out = ("\r\n".join(head) + "\r\n\r\n").encode("iso-8859-1")
    return out + payload if payload and method != "HEAD" else out


async def connection(fake, reader, writer):
    """One client's connection: its requests in turn (HTTP/1.1 keep-alive), until it closes or asks to."""
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return
            try:
                method, target, version, headers = parse_head(head)
            except BadRequest as e:
                writer.write(response("GET", Answer(400, ("%s\n" % e).encode(), {"Connection": "close"})))
                return
            if version != "HTTP/1.0" and headers.get("Expect", "").lower() == "100-continue":
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            req = Request(method, target, headers, await read_body(reader, headers), fake.base_url)
            answer, latency = fake.serve(req)
            if latency:
                await asyncio.sleep(latency / 1000)
            writer.write(response(method, answer))
            await writer.drain()
            keep = headers.get("Connection", "").lower()
            if keep == "close" or version == "HTTP/1.0" and keep != "keep-alive":
                return
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
        pass  # a client gone mid-request, or one that does not speak HTTP: its connection ends
    finally:
        writer.close()


def arguments(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--provider", choices=("google", "microsoft"), required=True)
    p.add_argument("--port", type=int, default=0, help="0: a free port")
    p.add_argument("--port-file", help="written (atomically) with the port once listening")
    p.add_argument("--client-id", default="test-client")
    p.add_argument("--client-secret", help="when given, the token endpoint requires it")
    p.add_argument("--redirect-uri", action="append", default=[], metavar="URI",
                   help="a registered web redirect URI (repeatable); loopback ones are always accepted")
    p.add_argument("--latency-ms", type=int, default=0)
    p.add_argument("--quota-per-minute", type=int, default=0, help="0: no quota")
    p.add_argument("--user-quota-per-minute", type=int, default=0, help="per account; 0: no quota")
    p.add_argument("--error-rate", type=float, default=0.0, help="fraction of API requests refused for quota")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--token-lifetime", type=int, default=3600, help="seconds an access token lives")
    p.add_argument("--log", help="one line per request appended here")
    args = p.parse_args(argv)
    if not 0 <= args.error_rate <= 1:
        p.error("--error-rate is a fraction from 0 to 1")
    return args


async def run(args, fake):
    # A deep accept queue, as a real API's front ends have: a thousand clients reconnecting at once (their kept
    # connections went idle) overflowed 128, and the kernel dropped their SYNs into 10-20 s connect timeouts.
    server = await asyncio.start_server(lambda r, w: connection(fake, r, w), "127.0.0.1", args.port,
                                        backlog=4096, limit=1 << 20)
    port = server.sockets[0].getsockname()[1]
    fake.base_url = "http://127.0.0.1:%d" % port
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.replace(args.port_file + ".tmp", args.port_file)
    print("listening on %s" % fake.base_url, flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with server:
        await stop.wait()


def main(argv):
    args = arguments(argv)
    try:
        asyncio.run(run(args, Fake(args)))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main(sys.argv[1:])
