"""Verifies a VAPID header icsbridge made (RFC 8292) with a verifier that is not ours: python3-jwt.

    check_vapid.py SAMPLE.json
SAMPLE.json (written by unit.webpush_test): the `authorization` value, the `public_key` (base64url of the
uncompressed P-256 point), the `push_resource`, the expected `audience` and `subject`, and `issued` (the
second the token was made). Checks the form `vapid t=JWT, k=KEY`, the ES256 signature against the key,
`aud`, `sub`, and `exp` at most 24 h after `issued`; then that a token with one byte of its signature
changed, or checked against another key, is refused. Exit 1 on any failure.
"""
import base64
import json
import re
import sys

import jwt
from cryptography.hazmat.primitives.asymmetric import ec


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main(path):
    with open(path, encoding="utf-8") as f:
        sample = json.load(f)
    m = re.fullmatch(r"vapid t=([A-Za-z0-9_.-]+), k=([A-Za-z0-9_-]+)", sample["authorization"])
    if not m:
        print("not the form `vapid t=JWT, k=KEY`:", sample["authorization"][:40])
        return 1
    token, k = m.groups()
    if k != sample["public_key"]:
        print("k= is not the VAPID public key")
        return 1
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(k))
    header = jwt.get_unverified_header(token)
    if header != {"typ": "JWT", "alg": "ES256"}:
        print("unexpected JWT header:", header)
        return 1
    claims = jwt.decode(
        token, public, algorithms=["ES256"], audience=sample["audience"], options={"require": ["aud", "exp", "sub"]}
    )
    if claims["sub"] != sample["subject"]:
        print("sub is", claims["sub"])
        return 1
    if not sample["issued"] < claims["exp"] <= sample["issued"] + 24 * 3600:
        print("exp is not within 24 h of the token's making:", claims["exp"] - sample["issued"], "s")
        return 1
    # The verifier must be able to say no, or the checks above prove nothing.
    head, body, signature = token.split(".")
    raw = bytearray(unb64(signature))
    raw[10] ^= 1
    damaged = f"{head}.{body}." + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    other = ec.generate_private_key(ec.SECP256R1()).public_key()
    for bad, key in ((damaged, public), (token, other)):
        try:
            jwt.decode(bad, key, algorithms=["ES256"], audience=sample["audience"])
        except jwt.InvalidSignatureError:
            continue
        print("a damaged token or another key was accepted")
        return 1
    print(f"check_vapid: ES256 signature verified by python3-jwt {jwt.__version__}; aud {claims['aud']}, "
          f"exp +{claims['exp'] - sample['issued']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
