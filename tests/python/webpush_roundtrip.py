"""Messages icsbridge encrypts and signs (icsbridge-webpush-tool, i.e. the webpush room) sent over real HTTP to
tests/support/webpush_receiver.py, a push service that is not ours: each decrypts there, with a subscription
key icsbridge never saw the private half of, to the bytes that went in, and its VAPID header verifies.
Then the receiver's refusals, so that its acceptances mean something: a changed byte of a body, a token for
another origin, no token, a subscription bound to another key, and an answer set for a subscription.

    webpush_roundtrip.py TOOL RECEIVER
Exit 1 on any failure.
"""
import base64
import json
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

SUBJECT = "mailto:ops@example.org"


def b64(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def request(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


class Check:
    def __init__(self):
        self.failures = 0

    def __call__(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        self.failures += 0 if ok else 1


def main(tool, receiver):
    check = Check()
    proc = subprocess.Popen(["/usr/bin/python3", receiver], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            print("the receiver did not start:", line)
            return 1
        base = line.split(" ", 2)[2]
        with tempfile.TemporaryDirectory() as keys:
            run(check, tool, base, keys)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(f"webpush_roundtrip: {check.failures} failure(s)")
    return 1 if check.failures else 0


def subscribe(base, vapid_key=None):
    status, body, _ = request("POST", base + "/_new", json.dumps({"vapid_key": vapid_key}).encode())
    assert status == 201, status
    return json.loads(body)


def make(tool, keys, sub, plaintext, push_resource=None):
    """The tool's message for `sub`: (exit status, {"body", "authorization", "vapid_public_key"} or stderr)."""
    r = subprocess.run(
        [tool, "--p256dh", sub["p256dh"], "--auth", sub["auth"], "--push-resource",
         push_resource or sub["push_resource"], "--subject", SUBJECT, "--key-dir", keys],
        input=plaintext, capture_output=True, timeout=30)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else r.stderr.decode())


def send(sub, made, body=None, authorization=True):
    headers = {"Content-Encoding": "aes128gcm", "TTL": "60", "Urgency": "normal", "Topic": "t1"}
    if authorization:
        headers["Authorization"] = made["authorization"]
    return request("POST", sub["push_resource"], body if body is not None else unb64(made["body"]), headers)[0]


def run(check, tool, base, keys):
    sub = subscribe(base)
    texts = [b"", b"x", "<push-message xmlns=\"https://bitfire.at/webdav-push\">Caf\u00e9 \u2615</push-message>"
             .encode(), b"a" * 3993]
    vapid_keys = set()
    for text in texts:
        code, made = make(tool, keys, sub, text)
        check(code == 0, f"the tool encrypts {len(text)} bytes ({made if code else 'ok'})")
        if code:
            continue
        vapid_keys.add(made["vapid_public_key"])
        check(send(sub, made) == 201, f"the push service takes the message of {len(text)} bytes")
    status, got, _ = request("GET", base + "/_messages/" + sub["id"])
    got = json.loads(got)
    check([m["plaintext"].encode() for m in got] == texts, "each message decrypts to the bytes that went in")
    check(all(m["claims"]["aud"] == base and m["claims"]["sub"] == SUBJECT for m in got),
          "each token's aud is the push service's origin, its sub the subject")
    check(len(vapid_keys) == 1, "one VAPID key, kept under --key-dir, signs every message")
    code, too_long = make(tool, keys, sub, b"a" * 3994)
    check(code != 0 and "3993" in too_long, "3994 bytes are refused by the tool")

    vapid_key = vapid_keys.pop() if vapid_keys else ""
    bound = subscribe(base, vapid_key)
    code, made = make(tool, keys, bound, b"bound")
    check(code == 0 and send(bound, made) == 201, "a subscription bound to our VAPID key takes our message")
    other = b64(ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        Encoding.X962, PublicFormat.UncompressedPoint))
    stranger = subscribe(base, other)
    code, made = make(tool, keys, stranger, b"stranger")
    check(code == 0 and send(stranger, made) == 403, "a subscription bound to another key refuses it (403)")

    code, made = make(tool, keys, sub, b"tampered")
    body = bytearray(unb64(made["body"]))
    body[-20] ^= 1
    check(send(sub, made, bytes(body)) == 400, "a body with one byte changed does not decrypt (400)")
    code, made = make(tool, keys, sub, b"elsewhere", push_resource="http://127.0.0.1:1/push/x")
    check(send(sub, made) == 401, "a token for another origin is refused (401)")
    check(send(sub, made, authorization=False) == 401, "a message without a token is refused (401)")
    request("POST", base + f"/_answer/{sub['id']}?status=410&count=1")
    code, made = make(tool, keys, sub, b"gone")
    check(send(sub, made) == 410, "an answer set for the subscription is given (410)")
    status, got, _ = request("GET", base + "/_messages/" + sub["id"])
    check(len(json.loads(got)) == len(texts), "no refused message was recorded as received")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
