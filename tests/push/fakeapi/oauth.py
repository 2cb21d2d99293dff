"""The fake authorization server (OAuth 2.0 authorization code + PKCE S256, refresh tokens, revocation).

A program (no text/html in Accept) is approved at once: GET /oauth/authorize answers 302 to the redirect_uri
with a code, for the account of login_hint (default: the default account). A browser (Accept: text/html) gets
the consent page (fakeapi/consent_page.py) first, a form POSTing the same parameters back to /oauth/authorize
with action=allow|cancel and the account typed in: allow -> the code, cancel -> error=access_denied. What a real
server checks is checked here too, so a client that gets it wrong fails against the fake as it would for real:
a known client_id, a redirect_uri that is loopback (http://127.0.0.1:PORT/) or one of the registered web ones
(--redirect-uri, exact match), S256 PKCE, single-use codes that expire after 10 minutes, the same redirect_uri
and client at the token endpoint, the client secret when the fake was given one. A grant belongs to the account
that signed in; the API acts on the account of the access token's grant. Google gives a refresh token only with
access_type=offline (and, after the account's first consent, only with prompt=consent); Microsoft only with the
offline_access scope, and rotates it on every refresh (the old one is then invalid). Google's /oauth/revoke
takes a refresh or access token (query or form body); Microsoft has no revocation endpoint. Secrets are never
logged (the server logs these paths bare).
"""
import base64
import collections
import hashlib
import hmac
import re
import time
import urllib.parse

from . import consent_page
from .accounts import DEFAULT, login
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
PLAIN = {"Content-Type": "text/plain; charset=utf-8"}


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
        self.redirect_uris = list(args.redirect_uri or [])  # the registered web ones (exact match)
        self.codes = {}  # code -> what authorize saw
        self.grants = {}  # grant number -> {"scope", "revoked", "account" (e-mail)}
        self.refresh_tokens = {}  # refresh token -> grant number
        self.access_tokens = {}  # access token -> {"grant", "expires", "scope"}
        self.consented = set()  # google: accounts that consented once (later consents give a refresh token
        # only with prompt=consent)

    # --- the API's side: is this bearer token good?

    def check(self, token):
        """(None, scopes, account) for a good access token; ("missing"|"invalid"|"expired", None, None) otherwise."""
        if not token:
            return "missing", None, None
        at = self.access_tokens.get(token)
        if at is None or self.grants[at["grant"]]["revoked"]:
            return "invalid", None, None
        if time.time() >= at["expires"]:
            return "expired", None, None
        account = self.state.accounts[self.grants[at["grant"]]["account"]]
        return None, {scope_name(s) for s in at["scope"].split()}, account

    def revoke_all(self, account=None):
        for g in self.grants.values():
            if account is None or g["account"] == account:
                g["revoked"] = True

    def expire_all(self, account=None):
        for at in self.access_tokens.values():
            if account is None or self.grants[at["grant"]]["account"] == account:
                at["expires"] = min(at["expires"], time.time())

    def live_grants(self):
        """e-mail -> how many live grants that account has (accounts without one are left out)."""
        return collections.Counter(g["account"] for g in self.grants.values() if not g["revoked"])

    def counts(self, account=None):
        now = time.time()
        live = {g for g, v in self.grants.items() if not v["revoked"] and account in (None, v["account"])}
        return {"grants": len(live),
                "refresh_tokens": sum(1 for g in self.refresh_tokens.values() if g in live),
                "access_tokens": sum(1 for a in self.access_tokens.values() if a["grant"] in live and a["expires"] > now)}

    # --- GET /oauth/authorize (and POST: the consent page's answer)

    def authorize(self, req):
        return self.authorization(req, {k: v[0] for k, v in req.query.items()})

    def consent(self, req):
        """The consent page's form: the authorize parameters again, with action (allow|cancel) and account."""
        if not req.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            return Answer(400, b"the consent form is application/x-www-form-urlencoded\n", PLAIN)
        form = dict(urllib.parse.parse_qsl(req.body.decode("utf-8", "replace"), keep_blank_values=True))
        action, typed = form.pop("action", ""), form.pop("account", "")
        if action not in ("allow", "cancel"):
            return Answer(400, b"action must be allow or cancel\n", PLAIN)
        return self.authorization(req, form, action, typed)

    def authorization(self, req, p, action=None, typed=None):
        """Checks an authorization request (p: its parameters). A browser's (Accept: text/html) without an
        action gets the consent page; else the answer: a redirect with a code (or an error) to the redirect_uri,
        or a 400 page when the client or the redirect_uri is wrong (never redirected to)."""
        browser = "text/html" in req.headers.get("Accept", "")
        redirect = p.get("redirect_uri") or ""
        if p.get("client_id") != self.client_id:
            return consent_page.refusal(browser, "invalid_client", "The OAuth client was not found.")
        if redirect not in self.redirect_uris and not LOOPBACK.fullmatch(redirect):
            return consent_page.refusal(browser, "redirect_uri_mismatch", "want http://127.0.0.1:PORT/ or a "
                                        "registered redirect URI (--redirect-uri), not %s" % redirect)
        error = self.authorize_error(p)
        if error:
            return self.back(p, {"error": error[0], "error_description": error[1]})
        if action == "cancel":
            denied = {"error": "access_denied"}
            if self.provider == "microsoft":
                denied["error_description"] = "AADSTS65004: User declined to consent to access the app."
            return self.back(p, denied)
        account = login(typed) if action else login(p.get("login_hint")) or DEFAULT
        if action is None and browser or account is None:
            problem = "Enter the e-mail address of your account." if action else None
            return consent_page.page(self.provider, p, typed if action else p.get("login_hint", ""), problem)
        self.state.get_account(account, create=True)  # the person signed in: the account exists from now on
        code = opaque(32)
        self.codes[code] = {"client_id": p["client_id"], "redirect_uri": redirect, "scope": p.get("scope"),
                            "challenge": p.get("code_challenge"), "refresh": self.gives_refresh(p, account),
                            "expires": time.time() + CODE_LIFETIME, "account": account}
        return self.back(p, {"code": code})

    def back(self, p, values):
        """The 302 to the redirect_uri with these values and the request's state."""
        if p.get("state") is not None:
            values["state"] = p["state"]
        redirect = p["redirect_uri"]
        return Answer(302, b"", {"Location": redirect + ("&" if "?" in redirect else "?") +
                                 urllib.parse.urlencode(values)})

    def authorize_error(self, p):
        """(error, description) to send back to the redirect_uri, or None."""
        if p.get("response_type") != "code":
            return "unsupported_response_type", "response_type must be code"
        if p.get("code_challenge_method") != "S256" or not CHALLENGE.fullmatch(p.get("code_challenge") or ""):
            return "invalid_request", "PKCE is required: code_challenge (43 base64url characters) with S256"
        scopes = (p.get("scope") or "").split()
        known = GOOGLE_SCOPES if self.provider == "google" else GRAPH_SCOPES
        unknown = [s for s in scopes if scope_name(s) not in known]
        if not scopes or unknown:
            return "invalid_scope", "unknown scope: %s" % " ".join(unknown) if unknown else "scope is required"
        return None

    def gives_refresh(self, p, account):
        if self.provider == "microsoft":
            return "offline_access" in (p.get("scope") or "").split()
        first = account not in self.consented
        self.consented.add(account)
        return p.get("access_type") == "offline" and (first or "consent" in (p.get("prompt") or "").split())

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
        self.grants[grant] = {"scope": code["scope"], "revoked": False, "account": code["account"]}
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
