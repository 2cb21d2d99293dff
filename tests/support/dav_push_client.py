"""A WebDAV-Push client as DAVx⁵ behaves (draft-bitfire-webdav-push), for the shell tests: reads a
collection's advertisement with an XML parser and registers a real subscription (a fresh P-256 key pair
and auth secret from python3-cryptography).

    dav_push_client.py advertise COLLECTION_URL [USER PASS]
        prints one JSON object: dav (the DAV header of OPTIONS), vapid (the key, base64url), vapid_type,
        topic, depth (supported content-update depth)
    dav_push_client.py register COLLECTION_URL PUSH_RESOURCE [USER PASS]
        prints "STATUS LOCATION EXPIRES" (empty fields as "-"); the body as DAVx⁵ 4.4.9 sends it
    dav_push_client.py refusal COLLECTION_URL PUSH_RESOURCE
        registers as `register` does; prints "STATUS CONDITION" (the DAV:error's child, or "-")
    dav_push_client.py post COLLECTION_URL BODY_FILE [USER PASS]
        POSTs the file's bytes as they are; prints "STATUS CONDITION" (the DAV:error's child, or "-")
    dav_push_client.py delete URL
        prints the status of DELETE
"""
import base64
import json
import os
import sys
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

PUSH = "https://bitfire.at/webdav-push"
DAV = "DAV:"


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def request(method, url, body=None, auth=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode())
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def advertise(url, auth):
    status, headers, _ = request("OPTIONS", url, auth=auth)
    body = (f'<D:propfind xmlns:D="DAV:" xmlns:P="{PUSH}"><D:prop><P:transports/><P:supported-triggers/>'
            "<P:topic/></D:prop></D:propfind>").encode()
    status, _, answer = request("PROPFIND", url, body, auth, {"Depth": "0", "Content-Type": "application/xml"})
    assert status == 207, f"PROPFIND answered {status}"
    root = ET.fromstring(answer)
    prop = root.find(f"{{{DAV}}}response/{{{DAV}}}propstat/{{{DAV}}}prop")
    key = prop.find(f"{{{PUSH}}}transports/{{{PUSH}}}web-push/{{{PUSH}}}vapid-public-key")
    depth = prop.find(f"{{{PUSH}}}supported-triggers/{{{PUSH}}}content-update/{{{DAV}}}depth")
    topic = prop.find(f"{{{PUSH}}}topic")
    print(json.dumps({
        "dav": headers.get("DAV", ""),
        "vapid": key.text if key is not None else None,
        "vapid_type": key.get("type") if key is not None else None,
        "topic": topic.text if topic is not None else None,
        "depth": depth.text if depth is not None else None,
    }))


def register_body(resource):
    key = ec.generate_private_key(ec.SECP256R1())
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return (f'<?xml version="1.0" encoding="utf-8"?><push-register xmlns="{PUSH}" xmlns:D="DAV:"><subscription>'
            f"<web-push-subscription><push-resource>{resource}</push-resource>"
            f'<subscription-public-key type="p256dh">{b64url(point)}</subscription-public-key>'
            f"<auth-secret>{b64url(os.urandom(16))}</auth-secret></web-push-subscription></subscription>"
            "<trigger><content-update><D:depth>1</D:depth></content-update></trigger>"
            "</push-register>").encode()


def condition(answer):
    try:
        root = ET.fromstring(answer)
    except ET.ParseError:
        return "-"
    child = next(iter(root), None)
    return child.tag.split("}")[-1] if child is not None else "-"


def main(argv):
    cmd, url = argv[1], argv[2]
    if cmd == "advertise":
        advertise(url, tuple(argv[3:5]) if len(argv) > 4 else None)
    elif cmd == "register":
        status, headers, _ = request("POST", url, register_body(argv[3]), tuple(argv[4:6]) if len(argv) > 5 else None,
                                     {"Content-Type": "application/xml"})
        print(status, headers.get("Location") or "-", headers.get("Expires") or "-")
    elif cmd == "refusal":
        status, _, answer = request("POST", url, register_body(argv[3]), None, {"Content-Type": "application/xml"})
        print(status, condition(answer))
    elif cmd == "post":
        with open(argv[3], "rb") as f:
            body = f.read()
        status, _, answer = request("POST", url, body, tuple(argv[4:6]) if len(argv) > 5 else None,
                                    {"Content-Type": "application/xml"})
        print(status, condition(answer))
    elif cmd == "delete":
        print(request("DELETE", url)[0])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
