"""The fake authorization server (OAuth 2.0 authorization code + PKCE S256, refresh tokens, revocation).

It approves at once: GET /oauth/authorize answers 302 to the redirect_uri with a code. What a real server
checks is checked here too, so a client that gets it wrong fails against the fake as it would for real:
a known client_id, a loopback redirect_uri (http://127.0.0.1:PORT/), S256 PKCE, single-use codes that
expire after 10 minutes, the same redirect_uri and client at the token endpoint, the client secret when
the fake was given one. Google gives a refresh token only with access_type=offline (and, after the first
consent, only with prompt=consent); Microsoft only with the offline_access scope, and rotates it on every
refresh (the old one is then invalid). Secrets are never logged (the server logs these paths bare).
"""
import base64
import hashlib
import hmac
import re
import time
import urllib.parse

from .common import Answer, opaque

GOOGLE_SCOPES = {"https://www.googleapis.com/auth/" + s for s in (
    "calendar", "calendar.readonly", "calendar.events", "calendar.events.readonly", "calendar.app.created",
    "calendar.events.owned", "calendar.calendarlist", "calendar.calendarlist.readonly", "calendar.calendars",
    "calendar.calendars.readonly", "userinfo.email")} | {"openid", "email", "profile"}
GRAPH_SCOPES = {"offline_access", "openid", "profile", "email", "User.Read", "Calendars.Read",
                "Calendars.ReadWrite", "Calendars.Read.Shared", "Calendars.ReadWrite.Shared"}
LOOPBACK = re.compile(r"http://127\.0\.0\.1:[0-9]{1,5}/")
CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")
VERIFIER = re.compile(r"[A-Za-z0-9._~-]{43,128}")
CODE_LIFETIME = 600


def scope_name(scope):
    """Graph scopes may be written with their resource: https://graph.microsoft.com/Calendars.ReadWrite."""
    return scope[len("https://graph.microsoft.com/"):] if scope.startswith("https://graph.microsoft.com/") else scope


def oauth_error(status, error, description, headers=None):
    return Answer(status, {"error": error, "error_description": description},
                  dict(headers or {}, **{"Cache-Control": "no-store", "Pragma": "no-cache"}))


def invalid_grant(description):
    return oauth_error(400, "invalid_grant", description)


class OAuth:
    def __init__(self, state, args):
        self.state = state
        self.provider = args.provider
        self.client_id = args.client_id
        self.client_secret = args.client_secret
        self.codes = {}  # code -> what authorize saw
        self.grants = {}  # grant number -> {"scope", "revoked"}
        self.refresh_tokens = {}  # refresh token -> grant number
        self.access_tokens = {}  # access token -> {"grant", "expires", "scope"}
        self.consented = False

    # --- the API's side: is this bearer token good?

    def check(self, token):
        """(None, scopes) for a good access token; ("missing"|"invalid"|"expired", None) otherwise."""
        if not token:
            return "missing", None
        at = self.access_tokens.get(token)
        if at is None or self.grants[at["grant"]]["revoked"]:
            return "invalid", None
        if time.time() >= at["expires"]:
            return "expired", None
        return None, {scope_name(s) for s in at["scope"].split()}

    def revoke_all(self):
        for g in self.grants.values():
            g["revoked"] = True

    def expire_all(self):
        for at in self.access_tokens.values():
            at["expires"] = min(at["expires"], time.time())

    def counts(self):
        now = time.time()
        live = [g for g, v in self.grants.items() if not v["revoked"]]
        return {"grants": len(live),
                "refresh_tokens": sum(1 for g in self.refresh_tokens.values() if g in live),
                "access_tokens": sum(1 for a in self.access_tokens.values() if a["grant"] in live and a["expires"] > now)}

    # --- GET /oauth/authorize

    def authorize(self, req):
        client_id, redirect = req.arg("client_id"), req.arg("redirect_uri")
        if client_id != self.client_id:
            return Answer(400, b"invalid_client: unknown client_id\n", {"Content-Type": "text/plain"})
        if not redirect or not LOOPBACK.fullmatch(redirect):
            return Answer(400, b"redirect_uri_mismatch: want http://127.0.0.1:PORT/\n", {"Content-Type": "text/plain"})
        error = self.authorize_error(req)
        back = {"error": error[0], "error_description": error[1]} if error else {}
        if not error:
            code = opaque(32)
            self.codes[code] = {"client_id": client_id, "redirect_uri": redirect, "scope": req.arg("scope"),
                                "challenge": req.arg("code_challenge"), "refresh": self.gives_refresh(req),
                                "expires": time.time() + CODE_LIFETIME}
            back = {"code": code}
        if req.arg("state") is not None:
            back["state"] = req.arg("state")
        return Answer(302, b"", {"Location": redirect + "?" + urllib.parse.urlencode(back)})

    def authorize_error(self, req):
        """(error, description) to send back to the redirect_uri, or None."""
        if req.arg("response_type") != "code":
            return "unsupported_response_type", "response_type must be code"
        if req.arg("code_challenge_method") != "S256" or not CHALLENGE.fullmatch(req.arg("code_challenge") or ""):
            return "invalid_request", "PKCE is required: code_challenge (43 base64url characters) with S256"
        scopes = (req.arg("scope") or "").split()
        known = GOOGLE_SCOPES if self.provider == "google" else GRAPH_SCOPES
        unknown = [s for s in scopes if scope_name(s) not in known]
        if not scopes or unknown:
            return "invalid_scope", "unknown scope: %s" % " ".join(unknown) if unknown else "scope is required"
        return None

    def gives_refresh(self, req):
        if self.provider == "microsoft":
            return "offline_access" in (req.arg("scope") or "").split()
        first = not self.consented
        self.consented = True
        return req.arg("access_type") == "offline" and (first or "consent" in (req.arg("prompt") or "").split())

    # --- POST /oauth/token

    def token(self, req):
        if not req.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            return oauth_error(400, "invalid_request", "the body must be application/x-www-form-urlencoded")
        form = dict(urllib.parse.parse_qsl(req.body.decode("utf-8", "replace"), keep_blank_values=True))
        refused = self.client_refused(req, form)
        if refused:
            return refused
        grant_type = form.get("grant_type")
        if grant_type == "authorization_code":
            return self.exchange_code(form)
        if grant_type == "refresh_token":
            return self.refresh(form)
        return oauth_error(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")

    def client_refused(self, req, form):
        """The 401 invalid_client for a wrong client id or secret (form fields or HTTP Basic), or None."""
        client_id, secret = form.get("client_id"), form.get("client_secret")
        scheme, _, creds = req.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "basic":
            try:
                user, _, pw = base64.b64decode(creds).decode().partition(":")
            except ValueError:
                user, pw = "", ""
            client_id, secret = urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(pw)
        if client_id != self.client_id:
            return oauth_error(401, "invalid_client", "The OAuth client was not found.")
        if self.client_secret is not None and not hmac.compare_digest(secret or "", self.client_secret):
            return oauth_error(401, "invalid_client", "Unauthorized: wrong or missing client_secret")
        if self.client_secret is None and secret and self.provider == "microsoft":
            return oauth_error(401, "invalid_client", "AADSTS700025: Client is public so neither "
                                                      "'client_assertion' nor 'client_secret' should be presented.")
        return None

    def exchange_code(self, form):
        code = self.codes.pop(form.get("code", ""), None)  # single use, even when the rest is wrong
        if code is None or time.time() > code["expires"]:
            return invalid_grant("the code is unknown, used or expired")
        if form.get("redirect_uri") != code["redirect_uri"]:
            return invalid_grant("redirect_uri differs from the authorization request's")
        verifier = form.get("code_verifier", "")
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        if not VERIFIER.fullmatch(verifier) or not hmac.compare_digest(digest, code["challenge"]):
            return invalid_grant("code_verifier does not match the code_challenge")
        grant = len(self.grants) + 1
        self.grants[grant] = {"scope": code["scope"], "revoked": False}
        return self.issue(grant, new_refresh=code["refresh"])

    def refresh(self, form):
        grant = self.refresh_tokens.get(form.get("refresh_token", ""))
        if grant is None or self.grants[grant]["revoked"]:
            return invalid_grant("Token has been expired or revoked.")
        if self.provider == "microsoft":
            del self.refresh_tokens[form["refresh_token"]]  # rotated: the old one is spent
        return self.issue(grant, new_refresh=self.provider == "microsoft")

    def issue(self, grant, new_refresh):
        lifetime = self.state.config.token_lifetime
        scope = self.grants[grant]["scope"]
        access = opaque(32)
        self.access_tokens[access] = {"grant": grant, "expires": time.time() + lifetime, "scope": scope}
        body = {"access_token": access, "token_type": "Bearer", "expires_in": lifetime, "scope": scope}
        if new_refresh:
            body["refresh_token"] = opaque(32)
            self.refresh_tokens[body["refresh_token"]] = grant
        if self.provider == "microsoft":
            body["ext_expires_in"] = lifetime
        return Answer(200, body, {"Cache-Control": "no-store", "Pragma": "no-cache"})

    # --- POST /oauth/revoke?token=... (Google): a refresh or access token; either ends the whole grant

    def revoke(self, req):
        form = dict(urllib.parse.parse_qsl(req.body.decode("utf-8", "replace")))
        token = req.arg("token") or form.get("token", "")
        grant = self.refresh_tokens.get(token)
        if grant is None and token in self.access_tokens:
            grant = self.access_tokens[token]["grant"]
        if grant is None or self.grants[grant]["revoked"]:
            return oauth_error(400, "invalid_token", "Token expired or revoked")
        self.grants[grant]["revoked"] = True
        return Answer(200, {})
