#!/usr/bin/python3
"""open_sealed.py KEY_FILE RECORD: prints the refresh token sealed in a connection record (connections/ID.json),
opened as icsbridge seals it (connect_key.hpp): AES-256-GCM under HMAC-SHA256(key, "icsbridge seal token"),
the text "v1.KEYID." + base64url(nonce | ciphertext | tag), the header and the connection's id authenticated.
Exit 1 when it does not open (another key, a changed byte). An outside reading of the format: a test that the
token is sealed, and only the key file opens it."""
import base64, hashlib, hmac, json, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

raw = open(sys.argv[1], "rb").read()
key = bytes.fromhex(raw.decode().strip()) if len(raw) != 32 else raw
record = json.load(open(sys.argv[2]))
version, key_id, body = record["sealed_token"].split(".")
head = f"{version}.{key_id}."
data = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
aead = AESGCM(hmac.new(key, b"icsbridge seal token", hashlib.sha256).digest())
try:
    print(aead.decrypt(data[:12], data[12:], (head + record["id"]).encode()).decode(), end="")
except Exception:
    sys.exit(1)
