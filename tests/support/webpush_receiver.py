"""A Web Push service for tests (RFC 8030): a real HTTP server on 127.0.0.1 that holds subscriptions, decrypts
every message with the subscription's private key (RFC 8291 over RFC 8188's aes128gcm, python3-cryptography)
and verifies its VAPID header (RFC 8292: an ES256 JWT checked by python3-jwt), as a browser's push service
and user agent would between them. Nothing of icsbridge's code is used.

    webpush_receiver.py [--port N] [--verify-later]
Prints "listening on http://127.0.0.1:PORT" once ready; stops on SIGTERM or SIGINT.

With --verify-later (benchmarks only) it works as a real push service and phone do between them: a message
is answered 201 and its arrival time recorded when it comes in, and it is decrypted and its VAPID header
verified later, at POST /_verify, on the same checks; until then it counts as "pending" in /_stats, and a
message that fails then is recorded as refused (with its arrival time), not accepted. GET /_messages and
/_refused check what has arrived first.

    POST /_new                  a subscription; JSON body (optional): {"vapid_key": B64} binds it to that
                                application server key (RFC 8292 §4.1: another key's messages get 403).
                                Answers {"id", "push_resource", "p256dh", "auth"} (keys in base64url).
    POST /push/ID               a push message: 201 with Location when it decrypts and its VAPID checks out;
                                400 for a body that does not decrypt or another Content-Encoding, 401 for a
                                missing or invalid VAPID header, 403 for a key the subscription is not bound
                                to, 404 for an unknown subscription; or the answer set by /_answer.
    POST /_answer/ID?status=S&retry_after=R&location=URL&count=N
                                the next N messages (default: all) to ID get status S (e.g. 410, 429, 503, or
                                307 with a Location URL: a redirect a sender must not follow), with Retry-After
                                R when given; they are recorded as refused (with their "at").
    GET  /_messages/ID          [{"plaintext", "topic", "urgency", "ttl", "claims", "at"}] of the accepted
    GET  /_refused/ID           [{"status", "reason", "at"}] of the refused
    GET  /_stats                {"subscriptions", "messages", "refused", "pending", "first_at", "last_at"} of
                                all subscriptions (benchmarks: thousands of them); last_at counts pending ones
    POST /_verify               the messages accepted since the last call (with --verify-later, once every
                                pending one is decrypted and verified): {"messages", "refused", "plaintexts":
                                {PLAINTEXT: N}, "topics": {TOPIC: N}} (benchmarks: is each message right)
"""
import argparse
import base64
import json
import os
import re
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hkdf(salt, ikm, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


class Refusal(Exception):
    """An answer other than 201: the status, why (recorded and sent as JSON), and a Retry-After if any."""

    def __init__(self, status, reason, retry_after=None, location=None):
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.retry_after = retry_after
        self.location = location


def decrypt(body, private_key, auth):
    """RFC 8291 §3.4 and RFC 8188 §2, one record: the plaintext, or Refusal(400)."""
    if len(body) < 21:
        raise Refusal(400, "body shorter than an aes128gcm header")
    salt, rs, idlen = body[:16], int.from_bytes(body[16:20], "big"), body[20]
    as_public, record = body[21:21 + idlen], body[21 + idlen:]
    if idlen != 65 or rs < 18:
        raise Refusal(400, f"header: key id of {idlen} bytes, record size {rs}")
    if len(record) > rs:
        raise Refusal(400, f"more than one record ({len(record)} bytes, record size {rs})")
    try:
        sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), as_public)
    except ValueError:
        raise Refusal(400, "the key id is not a P-256 point")
    ua_public = private_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    secret = private_key.exchange(ec.ECDH(), sender)
    ikm = hkdf(auth, secret, b"WebPush: info\x00" + ua_public + as_public, 32)
    cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    try:
        padded = AESGCM(cek).decrypt(nonce, record, None)
    except InvalidTag:
        raise Refusal(400, "the record does not decrypt (AES-GCM tag)")
    unpadded = padded.rstrip(b"\x00")
    if not unpadded.endswith(b"\x02"):
        raise Refusal(400, "the last record does not end in the delimiter 0x02")
    return unpadded[:-1]


def check_vapid(header, origin, bound_key):
    """RFC 8292: the claims of a valid `vapid t=, k=` header, or Refusal(401/403)."""
    m = re.fullmatch(r"vapid t=([A-Za-z0-9_.-]+), ?k=([A-Za-z0-9_-]+)", header or "")
    if not m:
        raise Refusal(401, "no `Authorization: vapid t=…, k=…`")
    token, k = m.groups()
    if bound_key is not None and k != bound_key:
        raise Refusal(403, "the VAPID key is not the one the subscription was made for")
    try:
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(k))
        claims = jwt.decode(token, key, algorithms=["ES256"], audience=origin,
                            options={"require": ["aud", "exp", "sub"]})
    except (ValueError, jwt.PyJWTError) as e:
        raise Refusal(401, f"VAPID token refused: {type(e).__name__}: {e}")
    if claims["exp"] > time.time() + 24 * 3600 + 60:
        raise Refusal(401, "VAPID token valid for more than 24 hours")
    if not str(claims["sub"]).startswith(("mailto:", "https:")):
        raise Refusal(401, "VAPID sub is no mailto: or https: URI")
    return claims


class Service:
    def __init__(self, verify_later=False):
        self.lock = threading.Lock()
        self.subscriptions = {}
        self.origin = None
        self.verify_later = verify_later
        self.pending = []  # (subscription, headers, body, arrival) with --verify-later
        self.verified = []  # the messages accepted since the last POST /_verify

    def new(self, bound_key):
        private_key = ec.generate_private_key(ec.SECP256R1())
        auth = os.urandom(16)
        with self.lock:
            sid = f"s{len(self.subscriptions) + 1}"
            self.subscriptions[sid] = {"key": private_key, "auth": auth, "bound": bound_key, "messages": [],
                                       "refused": [], "answer": None}
        public = private_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        return {"id": sid, "push_resource": f"{self.origin}/push/{sid}", "p256dh": b64(public), "auth": b64(auth)}

    def push(self, sid, headers, body):
        with self.lock:
            sub = self.subscriptions.get(sid)
            if sub is None:
                raise Refusal(404, "no such subscription")
            answer = sub["answer"]
            if answer and answer["count"] != 0:
                answer["count"] -= 1
                sub["refused"].append({"status": answer["status"], "reason": "answer set by /_answer",
                                       "at": time.time()})
                raise Refusal(answer["status"], "answer set by /_answer", answer.get("retry_after"),
                              answer.get("location"))
            if self.verify_later:
                self.pending.append((sub, headers, body, time.time()))
                sub["pending"] = sub.get("pending", 0) + 1
                return len(sub["messages"]) + sub["pending"]
        return self.check(sub, headers, body, time.time())

    def check(self, sub, headers, body, arrival):
        """Decrypts and verifies one message that arrived at `arrival`: recorded as accepted, or as refused
        (Refusal raised)."""
        try:
            if headers.get("Content-Encoding") != "aes128gcm":
                raise Refusal(400, f"Content-Encoding {headers.get('Content-Encoding')!r}, not aes128gcm")
            if headers.get("TTL") is None:
                raise Refusal(400, "no TTL header (RFC 8030 §5.2)")
            claims = check_vapid(headers.get("Authorization"), self.origin, sub["bound"])
            plaintext = decrypt(body, sub["key"], sub["auth"])
        except Refusal as r:
            with self.lock:
                sub["refused"].append({"status": r.status, "reason": r.reason, "at": arrival})
            raise
        message = {"plaintext": plaintext.decode("utf-8", "replace"), "topic": headers.get("Topic"),
                   "urgency": headers.get("Urgency"), "ttl": headers.get("TTL"), "claims": claims,
                   "at": arrival}
        with self.lock:
            sub["messages"].append(message)
            self.verified.append(message)
            return len(sub["messages"])

    def verify(self):
        """The messages accepted since the last call, after checking every pending one (--verify-later) as
        push() would have: {"messages", "refused", "plaintexts": {plaintext: count}, "topics": {Topic: count}}."""
        with self.lock:
            pending, self.pending = self.pending, []
            for sub, _, _, _ in pending:
                sub["pending"] -= 1
        refused = 0
        for sub, headers, body, arrival in pending:
            try:
                self.check(sub, headers, body, arrival)
            except Refusal:
                refused += 1
        with self.lock:
            verified, self.verified = self.verified, []
        out = {"messages": len(verified), "refused": refused, "plaintexts": {}, "topics": {}}
        for m in verified:
            out["plaintexts"][m["plaintext"]] = out["plaintexts"].get(m["plaintext"], 0) + 1
            out["topics"][m["topic"]] = out["topics"].get(m["topic"], 0) + 1
        return out


def make_handler(service):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            sys.stderr.write("webpush_receiver: " + (fmt % args) + "\n")

        def answer(self, status, payload=None, headers=()):
            body = json.dumps(payload).encode() if payload is not None else b""
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def body(self):
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_POST(self):
            url = urllib.parse.urlsplit(self.path)
            parts = url.path.strip("/").split("/")
            data = self.body()
            if parts == ["_verify"]:
                return self.answer(200, service.verify())
            if parts == ["_new"]:
                options = json.loads(data) if data else {}
                return self.answer(201, service.new(options.get("vapid_key")))
            if len(parts) == 2 and parts[0] == "_answer":
                q = dict(urllib.parse.parse_qsl(url.query))
                with service.lock:
                    sub = service.subscriptions.get(parts[1])
                    if sub is None:
                        return self.answer(404, {"error": "no such subscription"})
                    sub["answer"] = {"status": int(q["status"]), "retry_after": q.get("retry_after"),
                                     "location": q.get("location"), "count": int(q.get("count", -1))}
                return self.answer(200, {})
            if len(parts) == 2 and parts[0] == "push":
                try:
                    n = service.push(parts[1], self.headers, data)
                except Refusal as r:
                    extra = [("Retry-After", r.retry_after)] if r.retry_after else []
                    extra += [("Location", r.location)] if r.location else []
                    return self.answer(r.status, {"error": r.reason}, extra)
                return self.answer(201, None, [("Location", f"/message/{parts[1]}/{n}"), ("TTL", "0")])
            return self.answer(404, {"error": "unknown path"})

        def do_GET(self):
            parts = self.path.strip("/").split("/")
            if parts == ["_stats"]:
                with service.lock:
                    subs = list(service.subscriptions.values())
                    ats = [m["at"] for s in subs for m in s["messages"]]
                    arrivals = ats + [p[3] for p in service.pending]
                    return self.answer(200, {"subscriptions": len(subs), "messages": len(ats),
                                             "refused": sum(len(s["refused"]) for s in subs),
                                             "pending": len(service.pending), "first_at": min(arrivals, default=None),
                                             "last_at": max(arrivals, default=None)})
            if len(parts) == 2 and parts[0] in ("_messages", "_refused"):
                if service.verify_later:
                    service.verify()  # what has arrived, checked first (a benchmark's latency part)
                with service.lock:
                    sub = service.subscriptions.get(parts[1])
                    if sub is None:
                        return self.answer(404, {"error": "no such subscription"})
                    return self.answer(200, sub["messages" if parts[0] == "_messages" else "refused"])
            return self.answer(404, {"error": "unknown path"})

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--verify-later", action="store_true",
                        help="answer 201 on arrival; decrypt and verify at POST /_verify (benchmarks)")
    args = parser.parse_args()
    service = Service(args.verify_later)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(service))
    server.daemon_threads = True
    service.origin = f"http://127.0.0.1:{server.server_address[1]}"
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(f"listening on {service.origin}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
