#!/usr/bin/python3
"""seal_state.py KEY_FILE JSON: prints a sign-in `state` sealed as icsbridge seals it (flow_state.hpp): AES-256-GCM
under HMAC-SHA256(key, "icsbridge seal state"), "v1.KEYID." + base64url(nonce | ciphertext | tag) without
padding, the header and "icsbridge connect state" authenticated. Lets a test make a state only the key file can
make, e.g. one that expired, from outside."""
import base64, hashlib, hmac, os, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

raw = open(sys.argv[1], "rb").read()
key = bytes.fromhex(raw.decode().strip()) if len(raw) != 32 else raw
key_id = hmac.new(key, b"icsbridge key id", hashlib.sha256).hexdigest()[:16]
head = f"v1.{key_id}."
nonce = os.urandom(12)
sealed = AESGCM(hmac.new(key, b"icsbridge seal state", hashlib.sha256).digest()).encrypt(
    nonce, sys.argv[2].encode(), (head + "icsbridge connect state").encode())
print(head + base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("="))
