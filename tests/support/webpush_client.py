"""The client side of the WebDAV-Push delivery tests (tests/server/webpush_e2e.sh,
tests/cluster/webpush_cluster_e2e.sh, deploy/bench-webpush.sh), imported by their python steps as `client`:
the Web Push service's test endpoints (tests/support/webpush_receiver.py), a registration as DAVx⁵ sends it,
the pushed message read back, and the collection's sync token and a sync-collection (python3-caldav).
argv: BASE (icsbridge's URL) PUSH (the push service's URL).
"""
import json, sys, time, urllib.request, caldav
import xml.etree.ElementTree as ET
base, push = sys.argv[1], sys.argv[2]
NS = "{https://bitfire.at/webdav-push}"

def call(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()

def new_sub():
    return json.loads(call("POST", push + "/_new", b"{}")[2])

def register(sub, feed="pub", at=None, expires=None):
    """Registers `sub`; `expires` (Unix seconds) asks for that expiry. Returns the Location."""
    asked = ""
    if expires is not None:
        from email.utils import formatdate
        asked = f"<expires>{formatdate(expires, usegmt=True)}</expires>"
    body = f"""<?xml version="1.0" encoding="utf-8"?>
<push-register xmlns="https://bitfire.at/webdav-push">
  <subscription><web-push-subscription>
    <push-resource>{sub["push_resource"]}</push-resource>
    <subscription-public-key type="p256dh">{sub["p256dh"]}</subscription-public-key>
    <auth-secret>{sub["auth"]}</auth-secret>
  </web-push-subscription></subscription>
  <trigger><content-update><depth xmlns="DAV:">1</depth></content-update></trigger>{asked}
</push-register>""".encode()
    status, headers, _ = call("POST", f"{at or base}/dav/feeds/{feed}/", body, {"Content-Type": "application/xml"})
    assert status == 201, (status, headers)
    return headers.get("Location")

def answer(sid, query):
    assert call("POST", f"{push}/_answer/{sid}?{query}")[0] == 200

def messages(sid):
    return json.loads(call("GET", f"{push}/_messages/{sid}")[2])

def refused(sid):
    return json.loads(call("GET", f"{push}/_refused/{sid}")[2])

def wait_messages(sid, n, seconds=10):
    end = time.time() + seconds
    while time.time() < end:
        got = messages(sid)
        if len(got) >= n:
            return got
        time.sleep(0.05)
    raise AssertionError(f"{sid}: {len(messages(sid))} message(s) after {seconds} s, wanted {n}")

def parse(message):
    root = ET.fromstring(message["plaintext"])
    assert root.tag == NS + "push-message", root.tag
    topic = root.find(NS + "topic").text
    token = root.find(NS + "content-update/{DAV:}sync-token").text
    return topic, token

def calendar(at=None, feed="pub"):
    url = f"{at or base}/dav/feeds/{feed}/"
    return caldav.Calendar(client=caldav.DAVClient(url=url), url=url)

def sync_token(at=None, feed="pub"):
    return calendar(at, feed).objects_by_sync_token(load_objects=False).sync_token
