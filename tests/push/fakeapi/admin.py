"""The admin endpoints under /_fake/ (no auth, not counted): what a test reads and changes behind the client's back.

Every endpoint takes account=E-MAIL (in the query, or "account" in a POST's JSON body): the account it acts on,
default the default account (default@example.org), so a test of one account never names it. An account is made
when a person signs in with it, or by POST calendar/foreign naming it (the person existed before connecting);
other endpoints answer 404 for an unknown one. revoke, expire and forget_sync without account= act on every
account; reset_counts and config are the whole fake's.

    GET  /_fake/state[?calendar=NAME_OR_ID][&events=0][&account=E]
         {"provider", "account", "calendars": [{"id", "name", "main", "app_created", "events": [...]}], "requests":
          {"total", "by_kind", "by_status", "quota_refused", "injected", "user_quota_refused", "writes",
          "writes_ok"}, "config": {...}, "tokens": {"grants", "refresh_tokens", "access_tokens"} (the account's
          live counts, never a value)}
         Events are the full stored events with "deleted" (google: cancelled; graph: removed) and "calendarId";
         graph ones always carry their singleValueExtendedProperties. requests counts the whole fake.
    GET  /_fake/accounts
         {"accounts": [{"account", "calendars": [{"id", "name", "main", "app_created", "events" (live),
          "deleted"}], "grants" (live), "requests", "user_quota_refused", "max_per_second"}]} in creation order
    GET  /_fake/requests_per_second[?account=E]
         {"max", "total", "seconds": [[UNIX_SECOND, COUNT], ...]}: the API requests (served or refused) in each
         wall-clock second since the last reset_counts (of every account, or of account=E), max the busiest second
    POST /_fake/reset_counts                     the request counters (and per-second counts) back to zero
    POST /_fake/calendar {"name"}                a calendar of the person's own (not made by the app) -> {"id", "name"}
    POST /_fake/foreign {"calendar", "summary", "start", "end"}
         a person's own event (no extended property) in that calendar (name or id; default: the primary/default
         one); start/end "YYYY-MM-DD" (all-day) or a date-time with offset; -> the event
    POST /_fake/edit {"id", "summary"[, "calendar"]}   renames an event (new etag/changeKey) -> the event
         with "when": "before_write": not now but just before the next update or delete of it is served (after
         its auth and quota checks), as a person's edit landing between the client's read and its write
         -> {"armed": ID}
    POST /_fake/delete {"id"[, "calendar"]}            deletes one (google: cancelled) -> the event
    POST /_fake/revoke        every grant (of account=E) revoked: refresh -> invalid_grant, access tokens -> 401
    POST /_fake/expire        every access token (of account=E) expired now (refresh tokens still good)
    POST /_fake/forget_sync   every sync token, delta link and page token (of account=E) forgotten (-> 410 / 400)
    POST /_fake/config {latency_ms, quota_per_minute, user_quota_per_minute, error_rate, token_lifetime,
         reject_tokens, repeat_page_token} (any of them) -> the config; setting a quota (even to its value) starts
         its 60 s windows empty; reject_tokens true: every API request answered 401, even with an access token
         just refreshed; repeat_page_token true: every listing page (google: calendarList, events; microsoft: a
         nextLink page, a delta round) names a next page that is itself again, for ever
"""
import json

from .accounts import DEFAULT, login
from .common import Answer, default_times

CREATE = ("calendar", "foreign")  # the endpoints that make the account they name
EVERY = ("revoke", "expire", "forget_sync")  # without account=: every account


def refused(status, message):
    return Answer(status, {"error": message})


class Admin:
    def __init__(self, state, api, oauth):
        self.state = state
        self.api = api
        self.oauth = oauth

    def handle(self, req):
        name = "/".join(req.segments[1:])
        if req.method == "GET" and name in ("accounts", "requests_per_second"):
            return self.accounts() if name == "accounts" else self.per_second(req.arg("account"))
        if req.method not in ("GET", "POST") or req.method == "GET" and name != "state":
            return refused(404, "unknown admin endpoint %s %s" % (req.method, req.path))
        try:
            body = json.loads(req.body.decode("utf-8") or "{}") if req.method == "POST" else {}
        except ValueError as e:
            return refused(400, "the body is not JSON: %s" % e)
        if not isinstance(body, dict):
            return refused(400, "the body is not a JSON object")
        named = req.arg("account") or body.get("account")
        if named is not None and login(named) is None:
            return refused(400, "account %r is not an e-mail address" % named)
        account = self.state.get_account(named or DEFAULT, create=name in CREATE)
        if account is None:
            return refused(404, "no account %r (nobody signed in with it)" % named)
        self.state.account = account
        if req.method == "GET":
            return self.dump(req)
        return self.act(name, body, account.email if named or name not in EVERY else None)

    def act(self, name, body, only):
        """POST /_fake/NAME on State.account; only: the account an EVERY endpoint is limited to, or None."""
        simple = {"reset_counts": self.reset_counts, "revoke": lambda: self.oauth.revoke_all(only),
                  "expire": lambda: self.oauth.expire_all(only), "forget_sync": lambda: self.forget_sync(only)}
        if name in simple:
            simple[name]()
            return Answer(200, {"ok": True})
        actions = {"calendar": self.calendar, "foreign": self.foreign, "edit": self.edit, "delete": self.delete,
                   "config": self.configure}
        if name not in actions:
            return refused(404, "unknown admin endpoint POST /_fake/%s" % name)
        return actions[name](body)

    def accounts(self):
        # One pass over the grants for all accounts: asking counts() per account was quadratic, and a benchmark
        # polling this every second over 1,000 accounts held the state lock most of the time.
        grants = self.oauth.live_grants()
        return Answer(200, {"accounts": [a.summary(grants.get(a.email, 0)) for a in self.state.accounts.values()]})

    def per_second(self, named):
        if named is None:
            return Answer(200, self.state.counters.per_second.as_json())
        account = self.state.get_account(named) if login(named) else None
        if account is None:
            return refused(404, "no account %r" % named)
        return Answer(200, account.per_second.as_json())

    def reset_counts(self):
        self.state.counters.reset()
        for account in self.state.accounts.values():
            account.reset_counts()

    def dump(self, req):
        only = req.arg("calendar")
        cals = []
        for cal in self.state.calendars.values():
            if only and only not in (cal.id, cal.name):
                continue
            entry = {"id": cal.id, "name": cal.name, "main": cal.main, "app_created": cal.app_created}
            if req.arg("events") != "0":
                entry["events"] = [self.api.admin_view(cal, ev) for ev in cal.events.values()]
            cals.append(entry)
        return Answer(200, {"provider": self.state.provider, "account": self.state.account.email, "calendars": cals,
                            "requests": self.state.counters.as_json(), "config": self.state.config.as_json(),
                            "tokens": self.oauth.counts(self.state.account.email)})

    def forget_sync(self, only):
        for account in self.state.accounts.values():
            if only in (None, account.email):
                account.sync.clear()
                account.pages.clear()

    def configure(self, body):
        try:
            self.state.config.update(body)
        except (TypeError, ValueError) as e:
            return refused(400, "bad config value: %s" % e)
        if "quota_per_minute" in body:  # a new quota starts with an empty minute, so tests can count on it
            self.state.window.clear()
        if "user_quota_per_minute" in body:
            for account in self.state.accounts.values():
                account.window.clear()
        return Answer(200, self.state.config.as_json())

    def calendar(self, body):
        if not isinstance(body.get("name"), str) or not body["name"]:
            return refused(400, "name is required")
        cal = self.api.new_calendar(body["name"])
        return Answer(200, {"id": cal.id, "name": cal.name})

    def foreign(self, body):
        key = body.get("calendar")
        cal = self.state.find_calendar(key) if key else self.state.main_calendar()
        if cal is None:
            return refused(404, "no calendar %r" % key)
        start, end = default_times(body.get("start"), body.get("end"))
        try:
            ev = self.api.add_foreign(cal, body.get("summary", "Dentist"), start, end)
        except Answer as a:
            return a
        return Answer(200, self.api.admin_view(cal, ev))

    def event(self, body):
        key = body.get("calendar")
        within = self.state.find_calendar(key) if key else None
        if key and within is None:
            raise refused(404, "no calendar %r" % key)
        cal, ev = self.state.find_event(body.get("id", ""), within)
        if ev is None or ev.get("_deleted"):
            raise refused(404, "no event %r" % body.get("id"))
        return cal, ev

    def edit(self, body):
        try:
            cal, ev = self.event(body)
        except Answer as a:
            return a
        summary = body.get("summary", "edited behind your back")
        if body.get("when") == "before_write":
            self.state.armed[ev["id"]] = summary
            return Answer(200, {"armed": ev["id"]})
        if body.get("when") is not None:
            return refused(400, "when is before_write or absent")
        self.api.edit(ev, summary)
        return Answer(200, self.api.admin_view(cal, ev))

    def delete(self, body):
        try:
            cal, ev = self.event(body)
        except Answer as a:
            return a
        self.api.remove(cal, ev)
        return Answer(200, self.api.admin_view(cal, ev))
