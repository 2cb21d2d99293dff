"""What both fake providers share: the accounts' state, the answer type, ids, times, quota and counters.

Every handler runs with State.lock held (the server takes it around each request), so nothing here locks
on its own. The state holds accounts (fakeapi/accounts.py); a request acts on one, State.account, set by the
server before the handler runs (the account of the access token's grant, or the admin endpoint's account=),
and State.calendars, sync and pages are that account's. Events live in calendars; each modification takes
the next number of one global sequence (`seq`), which sync tokens and delta links remember: "changed since
token" is "seq greater than the token's".
"""
import base64
import collections
import datetime
import json
import random
import re
import secrets
import threading
import time
import urllib.parse
import zoneinfo

from .accounts import Account, PerSecond


class Answer(Exception):
    """An HTTP answer: returned by a handler, or raised from deep inside one (an error)."""

    def __init__(self, status, body=None, headers=None):
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = dict(headers or {})

    def payload(self):
        if self.body is None:
            return b""
        if isinstance(self.body, bytes):
            return self.body
        self.headers.setdefault("Content-Type", "application/json; charset=UTF-8")
        return json.dumps(self.body, ensure_ascii=False).encode()


class Request:
    """One request as the handlers see it: segments are percent-decoded, the query is a dict of lists."""

    def __init__(self, method, target, headers, body, base_url):
        url = urllib.parse.urlsplit(target)
        self.method = method
        self.target = target
        self.path = url.path
        self.query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        self.headers = headers
        self.body = body
        self.base_url = base_url
        self.segments = [urllib.parse.unquote(s) for s in url.path.split("/") if s]
        self.scopes = set()  # of the access token, once checked

    def arg(self, name, default=None):
        values = self.query.get(name)
        return values[0] if values else default

    def json(self, bad):
        """The body as a JSON object, or raises bad(message) (the provider's 400)."""
        try:
            value = json.loads(self.body.decode("utf-8") or "null")
        except (UnicodeDecodeError, ValueError) as e:
            raise bad("the body is not JSON: %s" % e)
        if not isinstance(value, dict):
            raise bad("the body is not a JSON object")
        return value

    def bearer(self):
        scheme, _, token = self.headers.get("Authorization", "").partition(" ")
        return token.strip() if scheme.lower() == "bearer" else None


class Calendar:
    def __init__(self, cid, name, main=False):
        self.id = cid
        self.name = name
        self.main = main  # google's primary calendar, graph's default one
        self.app_created = False  # made through the API (google's calendar.app.created scope reaches only these)
        self.events = {}  # id -> event dict in the provider's shape, plus "_seq" (and graph's "_deleted")
        self.etag = None


class Config:
    def __init__(self, args):
        self.latency_ms = args.latency_ms
        self.quota_per_minute = args.quota_per_minute
        self.error_rate = args.error_rate
        self.token_lifetime = args.token_lifetime
        self.user_quota_per_minute = args.user_quota_per_minute
        self.reject_tokens = False  # every API request 401, even with a fresh access token
        self.repeat_page_token = False  # every listing page names itself as the next one, for ever

    def update(self, values):
        for key, kind in (("latency_ms", int), ("quota_per_minute", int), ("error_rate", float),
                          ("token_lifetime", int), ("user_quota_per_minute", int), ("reject_tokens", strict_bool),
                          ("repeat_page_token", strict_bool)):
            if key in values:
                setattr(self, key, kind(values[key]))

    def as_json(self):
        return {k: getattr(self, k) for k in ("latency_ms", "quota_per_minute", "error_rate", "token_lifetime",
                                              "user_quota_per_minute", "reject_tokens", "repeat_page_token")}


def strict_bool(value):
    """A JSON true or false (bool("false") would be True)."""
    if not isinstance(value, bool):
        raise TypeError("want true or false, not %r" % (value,))
    return value


KINDS = ("list", "insert", "update", "delete", "get", "calendar", "token", "authorize", "delta")


class Counters:
    def __init__(self):
        self.reset()

    def reset(self):
        self.total = 0
        self.by_kind = {k: 0 for k in KINDS}
        self.by_status = collections.Counter()
        self.quota_refused = 0
        self.injected = 0
        self.writes = 0
        self.writes_ok = 0
        self.user_quota_refused = 0
        self.per_second = PerSecond()  # API requests (served or refused) by wall-clock second

    def count(self, kind, status, write):
        self.total += 1
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
        self.by_status[str(status)] += 1
        if write:
            self.writes += 1
            self.writes_ok += 200 <= status < 300

    def as_json(self):
        return {"total": self.total, "by_kind": dict(self.by_kind), "by_status": dict(self.by_status),
                "quota_refused": self.quota_refused, "injected": self.injected, "writes": self.writes,
                "writes_ok": self.writes_ok, "user_quota_refused": self.user_quota_refused}


class State:
    """The accounts (calendars and events, sync state), config, counters, the project's quota window, the dice."""

    def __init__(self, args):
        self.provider = args.provider
        self.lock = threading.RLock()
        self.config = Config(args)
        self.counters = Counters()
        self.rng = random.Random(args.seed)
        self.seq = 0
        self.accounts = {}  # e-mail -> Account, in creation order
        self.account = None  # the one the request being served acts on
        self.seed_account = None  # the provider's: gives a new account its primary/default calendar
        self.window = collections.deque()  # times of the API requests the project's quota let through
        self.refusals = 0
        self.armed = {}  # event id -> summary: an edit made just before the next write of that event is served

    # --- accounts

    def get_account(self, email, create=False):
        """The account of this login (case-insensitive), made (with its main calendar) when create; else None."""
        email = email.strip().lower()
        if email not in self.accounts and create:
            self.accounts[email] = Account(email)
            saved, self.account = self.account, self.accounts[email]
            self.seed_account(self.account)
            self.account = saved or self.account
        return self.accounts.get(email)

    @property
    def calendars(self):
        return self.account.calendars  # id -> Calendar, in creation order

    @property
    def sync(self):
        return self.account.sync  # google sync token / graph delta token -> (calendar id, seq, extra)

    @property
    def pages(self):
        return self.account.pages  # page token / skip token -> dict of what the next page needs

    def next_seq(self):
        self.seq += 1
        return self.seq

    def add_calendar(self, cid, name, main=False):
        cal = Calendar(cid, name, main)
        self.calendars[cid] = cal
        return cal

    def find_calendar(self, key):
        """A calendar by id, or else by name (the first of that name); None when there is none."""
        if key in self.calendars:
            return self.calendars[key]
        return next((c for c in self.calendars.values() if c.name == key), None)

    def main_calendar(self):
        return next(c for c in self.calendars.values() if c.main)

    def find_event(self, eid, calendar=None):
        """(calendar, event) for an event id (in one calendar when given), or (None, None)."""
        cals = [calendar] if calendar else list(self.calendars.values())
        for cal in cals:
            if eid in cal.events:
                return cal, cal.events[eid]
        return None, None

    # --- quota

    def quota_verdict(self):
        """None to serve an API request of State.account; "quota" (the project's per minute), "user" (the
        account's per minute) or "injected" (--error-rate) to refuse it for quota. Only requests let through
        fill the windows."""
        now, account = time.monotonic(), self.account
        for window in (self.window, account.window):
            while window and now - window[0] >= 60:
                window.popleft()
        self.counters.per_second.count()
        account.per_second.count()
        account.requests += 1
        verdict = None
        if self.config.quota_per_minute and len(self.window) >= self.config.quota_per_minute:
            verdict = "quota"
        elif self.config.user_quota_per_minute and len(account.window) >= self.config.user_quota_per_minute:
            verdict = "user"
        elif self.config.error_rate and self.rng.random() < self.config.error_rate:
            verdict = "injected"
        if verdict:
            self.counters.quota_refused += 1
            self.counters.injected += verdict == "injected"
            self.counters.user_quota_refused += verdict == "user"
            account.user_quota_refused += verdict == "user"
            self.refusals += verdict != "user"
        else:
            self.window.append(now)
            account.window.append(now)
        return verdict


def random_id(alphabet, n):
    return "".join(secrets.choice(alphabet) for _ in range(n))


BASE32HEX = "0123456789abcdefghijklmnopqrstuv"


def opaque(nbytes=24):
    return base64.urlsafe_b64encode(secrets.token_bytes(nbytes)).decode().rstrip("=")


def now_rfc3339():
    """Google's `updated`: UTC with milliseconds."""
    t = datetime.datetime.now(datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def zone(name):
    """A time zone by IANA name, or None."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?")


def parse_instant(text, tz_name=None):
    """An aware datetime from an RFC 3339 / ISO 8601 date-time (naive ones in tz_name, UTC without); None
    when it does not parse or the zone is unknown."""
    if not isinstance(text, str) or not DATE_TIME.fullmatch(text):
        return None
    try:
        t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except (TypeError, ValueError):
        return None
    if t.tzinfo is None:
        tz = zone(tz_name) if tz_name else datetime.timezone.utc
        if tz is None:
            return None
        t = t.replace(tzinfo=tz)
    return t


def parse_date(text):
    """A date from YYYY-MM-DD exactly, or None."""
    try:
        return datetime.date.fromisoformat(text) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) else None
    except (TypeError, ValueError):
        return None


def utc_of_date(d):
    return datetime.datetime(d.year, d.month, d.day, tzinfo=datetime.timezone.utc)


def secret_free(path, query):
    """The request target for the log: the query without the values of anything secret."""
    hidden = {"code", "state", "token", "code_verifier", "code_challenge", "access_token", "refresh_token",
              "client_secret", "id_token"}
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    if not pairs:
        return path
    shown = [(k, "***" if k in hidden else v) for k, v in pairs]
    return path + "?" + urllib.parse.urlencode(shown, safe="$,()'/:@")


def match_route(routes, method, segments):
    """(kind, handler name, wildcard values) of the first route for this method and path, or None; a route is
    (METHOD, (segment or "*", ...), kind, handler name)."""
    for m, pattern, kind, name in routes:
        if m == method and len(pattern) == len(segments) and \
                all(p == "*" or p == s for p, s in zip(pattern, segments)):
            return kind, name, [s for p, s in zip(pattern, segments) if p == "*"]
    return None


def if_match_fails(req, etag):
    """True when the request has an If-Match that this etag does not satisfy."""
    header = req.headers.get("If-Match")
    if header is None:
        return False
    tags = [t.strip() for t in header.split(",")]
    return "*" not in tags and etag not in tags


def default_times(start, end):
    """A foreign event's start and end strings: the given ones, else 2027-01-05 09:00-10:00 UTC (an all-day start
    alone lasts a day, a timed one an hour)."""
    start = start or "2027-01-05T09:00:00Z"
    if end:
        return start, end
    if len(start) == 10:
        return start, (parse_date(start) + datetime.timedelta(days=1)).isoformat()
    t = parse_instant(start) + datetime.timedelta(hours=1)
    return start, t.isoformat().replace("+00:00", "Z")
