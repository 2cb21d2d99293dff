"""The Google Calendar API v3 subset of docs push-apis.md, under /calendar/v3.

Deleted events stay as status "cancelled" (listed with showDeleted=true and in every incremental list; their
id stays taken: inserting it again is a 409). ETags are "<digits>", new on every change. A full list remembers
the sequence number at its first page; the nextSyncToken of its last page lists what changed after that.
Scopes as the real API: calendar.app.created reaches only calendars made through the API (and lists only those),
calendar.events reaches events everywhere but not the calendar list. Each account's primary calendar has the
account's e-mail as its id; another account's calendars are not found (404), as for real without an ACL.
"""
import re

from . import timecheck
from .common import Answer, BASE32HEX, if_match_fails, now_rfc3339, opaque, parse_instant, random_id

EVENT_ID = re.compile(r"[0-9a-v]{5,1024}")
SYNC_FORBIDDEN = ("iCalUID", "orderBy", "privateExtendedProperty", "q", "sharedExtendedProperty", "timeMin",
                  "timeMax", "updatedMin")
WRITABLE = ("summary", "description", "location", "start", "end", "transparency", "visibility", "colorId",
            "extendedProperties", "reminders", "source", "recurrence", "attendees", "sequence", "status")
SCOPE = "https://www.googleapis.com/auth/"
ROUTES = (
    ("GET", ("users", "me", "calendarList"), "calendar", "calendar_list"),
    ("GET", ("users", "me", "calendarList", "*"), "calendar", "get_calendar"),
    ("POST", ("calendars",), "calendar", "create_calendar"),
    ("GET", ("calendars", "*"), "calendar", "get_calendar"),
    ("DELETE", ("calendars", "*"), "calendar", "delete_calendar"),
    ("GET", ("calendars", "*", "events"), "list", "list_events"),
    ("POST", ("calendars", "*", "events"), "insert", "insert"),
    ("GET", ("calendars", "*", "events", "*"), "get", "get_event"),
    ("PUT", ("calendars", "*", "events", "*"), "update", "update"),
    ("PATCH", ("calendars", "*", "events", "*"), "update", "patch"),
    ("DELETE", ("calendars", "*", "events", "*"), "delete", "delete"),
)


def error(code, reason, message, domain="global", headers=None):
    return Answer(code, {"error": {"code": code, "message": message,
                                   "errors": [{"domain": domain, "reason": reason, "message": message}]}}, headers)


def bad(message):
    return error(400, "invalid", message)


def view(ev):
    return {k: v for k, v in ev.items() if not k.startswith("_")}


class Google:
    prefix = ("calendar", "v3")
    routes = ROUTES

    def __init__(self, state):
        self.state = state
        state.seed_account = self.seed

    def seed(self, account):
        """A new account's primary calendar: its id is the account's e-mail, as Google's is."""
        self.state.add_calendar(account.email, account.email, main=True).etag = self.etag(0)

    # --- answers the server gives for every provider

    def not_found(self):
        return error(404, "notFound", "Not Found")

    def unauthorized(self, why):
        return error(401, "authError", "Request had invalid authentication credentials (%s access token)." % why,
                     headers={"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"'})

    def throttled(self, verdict):
        """The account's quota: 403 userRateLimitExceeded. The project's (or injected): 403 rateLimitExceeded and
        userRateLimitExceeded in turn, one refusal in four a 429."""
        if verdict == "user":
            return error(403, "userRateLimitExceeded", "User Rate Limit Exceeded", "usageLimits")
        if self.state.rng.random() < 0.25:
            return error(429, "rateLimitExceeded", "Rate Limit Exceeded", "usageLimits")
        reason = ("rateLimitExceeded", "userRateLimitExceeded")[self.state.refusals % 2]
        message = "Rate Limit Exceeded" if reason == "rateLimitExceeded" else "User Rate Limit Exceeded"
        return error(403, reason, message, "usageLimits")

    # --- access

    def etag(self, seq):
        return '"%d"' % (3180000000000000 + seq * 1000)

    def calendar(self, req, cid, write):
        cal = self.state.main_calendar() if cid == "primary" else self.state.calendars.get(cid)
        if cal is None:
            raise self.not_found()
        s = req.scopes
        full = {"calendar", "calendar.events", "calendar.events.owned"} | (set() if write else {
            "calendar.readonly", "calendar.events.readonly", "calendar.events.owned.readonly"})
        if not any(SCOPE + x in s for x in full) and not (SCOPE + "calendar.app.created" in s and cal.app_created):
            raise error(403, "insufficientPermissions", "Request had insufficient authentication scopes.")
        return cal

    def event(self, req, cid, eid, write):
        cal = self.calendar(req, cid, write)
        if eid not in cal.events:
            raise self.not_found()
        return cal, cal.events[eid]

    def touch(self, ev):
        ev["_seq"] = self.state.next_seq()
        ev["etag"] = self.etag(ev["_seq"])
        ev["updated"] = now_rfc3339()

    # --- calendars

    def calendar_list(self, req):
        s = req.scopes
        if not any(SCOPE + x in s for x in ("calendar", "calendar.readonly", "calendar.calendarlist",
                                           "calendar.calendarlist.readonly", "calendar.app.created")):
            raise error(403, "insufficientPermissions", "Request had insufficient authentication scopes.")
        only_app = not any(SCOPE + x in s for x in ("calendar", "calendar.readonly", "calendar.calendarlist",
                                                    "calendar.calendarlist.readonly"))
        cals = [c.id for c in self.state.calendars.values() if c.app_created or not only_app]
        limit = self.max_results(req, 100, 250)
        ids, more, _ = self.take_page(req, "calendarList", cals, limit)
        body = {"kind": "calendar#calendarList", "etag": self.etag(self.state.seq),
                "items": [self.list_entry(self.state.calendars[c]) for c in ids]}
        if more:
            body["nextPageToken"] = more
        return Answer(200, body)

    def list_entry(self, cal):
        entry = {"kind": "calendar#calendarListEntry", "etag": cal.etag, "id": cal.id, "summary": cal.name,
                 "timeZone": "UTC", "accessRole": "owner", "defaultReminders": [], "selected": True}
        if cal.main:
            entry["primary"] = True
        return entry

    def get_calendar(self, req, cid):
        cal = self.calendar(req, cid, write=False)
        return Answer(200, {"kind": "calendar#calendar", "etag": cal.etag, "id": cal.id, "summary": cal.name,
                            "timeZone": "UTC"})

    def create_calendar(self, req):
        if not any(SCOPE + x in req.scopes for x in ("calendar", "calendar.calendars", "calendar.app.created")):
            raise error(403, "insufficientPermissions", "Request had insufficient authentication scopes.")
        summary = req.json(bad).get("summary")
        if not isinstance(summary, str) or not summary.strip():
            raise error(400, "required", "Missing title.")
        cal = self.new_calendar(summary)
        cal.app_created = True
        return self.get_calendar(req, cal.id)

    def delete_calendar(self, req, cid):
        """calendars.delete: a secondary calendar and its events (the primary one can only be cleared)."""
        cal = self.state.main_calendar() if cid == "primary" else self.state.calendars.get(cid)
        if cal is None:
            raise self.not_found()
        if not any(SCOPE + x in req.scopes for x in ("calendar", "calendar.calendars")) and \
                not (SCOPE + "calendar.app.created" in req.scopes and cal.app_created):
            raise error(403, "insufficientPermissions", "Request had insufficient authentication scopes.")
        if cal.main:
            raise error(403, "cannotDeletePrimaryCalendar", "Cannot delete primary calendar.")
        del self.state.calendars[cal.id]
        return Answer(204)

    def new_calendar(self, name):
        cal = self.state.add_calendar(random_id(BASE32HEX, 26) + "@group.calendar.google.com", name)
        cal.etag = self.etag(self.state.next_seq())
        return cal

    # --- listing events

    def max_results(self, req, default, most):
        text = req.arg("maxResults", str(default))
        if not text.isdigit() or int(text) < 1:
            raise bad("Invalid value for maxResults: %s" % text)
        return min(int(text), most)

    def take_page(self, req, what, ids, limit, snapshot=None):
        """(ids of this page, token of the next page or None on the last, the listing's snapshot). A first page
        keeps the whole listing (ids, snapshot: the sequence number it started at) under its page tokens;
        pageToken continues one."""
        token = req.arg("pageToken")
        offset = 0
        if token:
            page = self.state.pages.get(token)
            if page is None or page["what"] != what:
                raise bad("Invalid pageToken value.")
            ids, offset, snapshot = page["ids"], page["offset"], page["snapshot"]
        if self.state.config.repeat_page_token:
            # A broken API: every page names the same token, which answers that page again, for ever.
            self.state.pages["same-page-again"] = {"what": what, "ids": ids, "offset": offset, "snapshot": snapshot}
            return ids[offset:offset + limit], "same-page-again", snapshot
        end = offset + limit
        if end >= len(ids):
            return ids[offset:], None, snapshot
        more = opaque(18)
        self.state.pages[more] = {"what": what, "ids": ids, "offset": end, "snapshot": snapshot}
        return ids[offset:end], more, snapshot

    def list_events(self, req, cid):
        cal = self.calendar(req, cid, write=False)
        limit = self.max_results(req, 250, 2500)
        ids = [] if req.arg("pageToken") else self.matching(req, cal)
        here, more, snapshot = self.take_page(req, "events " + cal.id, ids, limit, self.state.seq)
        body = {"kind": "calendar#events", "etag": self.etag(self.state.seq), "summary": cal.name,
                "updated": now_rfc3339(), "timeZone": "UTC", "accessRole": "owner", "defaultReminders": [],
                "items": [view(cal.events[i]) for i in here]}
        if more:
            body["nextPageToken"] = more
        else:
            body["nextSyncToken"] = token = opaque(24)
            self.state.sync[token] = (cal.id, snapshot, None)
        return Answer(200, body)

    def matching(self, req, cal):
        """The ids a listing returns, in its order: changes since a syncToken, or the events the filters keep."""
        token = req.arg("syncToken")
        if token is not None:
            mixed = [p for p in SYNC_FORBIDDEN if p in req.query]
            if mixed:
                raise bad("The syncToken parameter cannot be combined with: %s" % ", ".join(mixed))
            known = self.state.sync.get(token)
            if known is None or known[0] != cal.id:
                raise error(410, "fullSyncRequired", "Sync token is no longer valid, a full sync is required.")
            changed = [e for e in cal.events.values() if e["_seq"] > known[1]]
            return [e["id"] for e in sorted(changed, key=lambda e: e["_seq"])]
        keep = self.filters(req)
        events = [e for e in cal.events.values() if all(f(e) for f in keep)]
        order = req.arg("orderBy")
        if order == "startTime":
            if req.arg("singleEvents", "").lower() != "true":
                raise bad("The requested ordering is not available for the particular query.")
            events.sort(key=lambda e: timecheck.google_instant(e["start"], "start"))
        elif order == "updated":
            events.sort(key=lambda e: e["updated"])
        elif order is not None:
            raise bad("Invalid value for orderBy: %s" % order)
        return [e["id"] for e in events]

    def filters(self, req):
        """Predicates for showDeleted, privateExtendedProperty, iCalUID, q, timeMin, timeMax and updatedMin."""
        keep = []
        if req.arg("showDeleted", "").lower() != "true":
            keep.append(lambda e: e["status"] != "cancelled")
        for prop in req.query.get("privateExtendedProperty", []):
            name, eq, value = prop.partition("=")
            if not eq:
                raise bad("Invalid value for privateExtendedProperty: %s" % prop)
            keep.append(lambda e, n=name, v=value: e.get("extendedProperties", {}).get("private", {}).get(n) == v)
        if req.arg("iCalUID") is not None:
            keep.append(lambda e, u=req.arg("iCalUID"): e.get("iCalUID") == u)
        if req.arg("q"):
            q = req.arg("q").lower()
            keep.append(lambda e: any(q in str(e.get(f, "")).lower() for f in ("summary", "description", "location")))
        bounds = {}
        for name in ("timeMin", "timeMax", "updatedMin"):
            text = req.arg(name)
            if text is not None:
                bounds[name] = parse_instant(text) if re.search(r"(Z|[+-]\d\d:\d\d)$", text) else None
                if bounds[name] is None:
                    raise bad("Invalid value for %s: %s (RFC 3339 with an offset)" % (name, text))
        if "timeMin" in bounds:
            keep.append(lambda e: timecheck.google_instant(e["end"], "end") > bounds["timeMin"])
        if "timeMax" in bounds:
            keep.append(lambda e: timecheck.google_instant(e["start"], "start") < bounds["timeMax"])
        if "updatedMin" in bounds:
            keep.append(lambda e: parse_instant(e["updated"]) >= bounds["updatedMin"])
        return keep

    # --- one event

    def get_event(self, req, cid, eid):
        return Answer(200, view(self.event(req, cid, eid, write=False)[1]))

    def insert(self, req, cid):
        cal = self.calendar(req, cid, write=True)
        body = req.json(bad)
        eid = body.get("id")
        if eid is None:
            eid = random_id(BASE32HEX, 26)
        elif not isinstance(eid, str) or not EVENT_ID.fullmatch(eid):
            raise bad("Invalid resource id value.")
        if eid in cal.events:
            raise error(409, "duplicate", "The requested identifier already exists.")
        ev = {"kind": "calendar#event", "id": eid, "status": "confirmed", "htmlLink":
              "https://www.google.com/calendar/event?eid=" + eid, "created": now_rfc3339(),
              "iCalUID": body.get("iCalUID") or eid + "@google.com", "sequence": 0, "creator": {"email": self.state.account.email},
              "organizer": {"email": cal.id, "displayName": cal.name, "self": True},
              "reminders": {"useDefault": True}, "eventType": "default"}
        ev.update({k: body[k] for k in WRITABLE if k in body})
        self.check(ev)
        self.touch(ev)
        cal.events[eid] = ev
        return Answer(200, view(ev))

    def update(self, req, cid, eid, merge=False):
        _, ev = self.event(req, cid, eid, write=True)
        if if_match_fails(req, ev["etag"]):
            raise error(412, "conditionNotMet", "Precondition Failed")
        body = req.json(bad)
        new = dict(ev) if merge else {k: v for k, v in ev.items() if k not in WRITABLE or k == "status"}
        for k in WRITABLE:
            if k in body and merge and k == "extendedProperties" and isinstance(body[k], dict):
                new[k] = {**new.get(k, {}), **{s: {**new.get(k, {}).get(s, {}), **p} for s, p in body[k].items()}}
            elif k in body:
                new[k] = body[k]
        new.setdefault("reminders", {"useDefault": True})  # what a PUT leaves out is reset, not kept
        new.setdefault("sequence", ev.get("sequence", 0))
        self.check(new)
        ev.clear()
        ev.update(new)
        self.touch(ev)
        return Answer(200, view(ev))

    def patch(self, req, cid, eid):
        return self.update(req, cid, eid, merge=True)

    def delete(self, req, cid, eid):
        _, ev = self.event(req, cid, eid, write=True)
        if ev["status"] == "cancelled":
            raise error(410, "deleted", "Resource has been deleted")
        if if_match_fails(req, ev["etag"]):
            raise error(412, "conditionNotMet", "Precondition Failed")
        ev["status"] = "cancelled"
        self.touch(ev)
        return Answer(204)

    def check(self, ev):
        if ev.get("status") not in ("confirmed", "tentative", "cancelled"):
            raise bad("Invalid value for status: %s" % ev.get("status"))
        problem = timecheck.google_times(ev.get("start"), ev.get("end"))
        if problem:
            raise error(400, problem[0], problem[1])

    # --- the admin endpoints' side

    def admin_view(self, cal, ev):
        return dict(view(ev), deleted=ev["status"] == "cancelled", calendarId=cal.id)

    def add_foreign(self, cal, summary, start, end):
        ev = {"kind": "calendar#event", "id": random_id(BASE32HEX, 26), "status": "confirmed",
              "created": now_rfc3339(), "sequence": 0, "summary": summary, "eventType": "default",
              "start": {"date": start} if len(start) == 10 else {"dateTime": start},
              "end": {"date": end} if len(end) == 10 else {"dateTime": end}}
        ev["iCalUID"] = ev["id"] + "@google.com"
        self.check(ev)
        self.touch(ev)
        cal.events[ev["id"]] = ev
        return ev

    def edit(self, ev, summary):
        ev["summary"] = summary
        ev["sequence"] = ev.get("sequence", 0) + 1
        self.touch(ev)

    def remove(self, cal, ev):
        ev["status"] = "cancelled"
        self.touch(ev)
