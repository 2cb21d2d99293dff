"""The Microsoft Graph v1.0 subset of docs push-apis.md, under /v1.0.

Events have global ids (/me/events/{id}); a deleted one is gone for the API (404) but stays in the state as a
tombstone, so the next delta round can report it as {"id", "@removed": {"reason": "deleted"}}. Every change
gives a new changeKey (@odata.etag W/"changeKey"). A transactionId is remembered forever: the same one again
answers 201 with the event it made (even one deleted since). Extended properties are returned only when
$expand asks for them, as Graph does; delta answers never carry them. Each account (mailbox) has its own
default calendar "Calendar" and its own transactionIds; another mailbox's ids are not found (404).
"""
import base64
import datetime
import re
import secrets
import urllib.parse

from . import timecheck
from .common import Answer, if_match_fails, now_rfc3339, opaque, parse_instant

PROP_FILTER = re.compile(r"singleValueExtendedProperties/any\(\s*(\w+)\s*:\s*\1/id\s+eq\s+'([^']+)'\s+and\s+"
                         r"\1/value\s+ne\s+null\s*\)", re.I)
PROP_EXPAND = re.compile(r"singleValueExtendedProperties\(\s*\$filter\s*=\s*id\s+eq\s+'([^']+)'\s*\)", re.I)
MAX_PAGE = re.compile(r"odata\.maxpagesize\s*=\s*(\d+)", re.I)
WRITABLE = ("subject", "body", "start", "end", "isAllDay", "location", "showAs", "categories", "sensitivity",
            "importance", "isReminderOn", "reminderMinutesBeforeStart")
SHOW_AS = ("free", "tentative", "busy", "oof", "workingElsewhere", "unknown")
NOT_WITH_DELTA = ("$orderby", "$filter", "$select", "$expand", "$search", "$top")
ROUTES = (
    ("GET", ("me", "calendars"), "calendar", "calendar_list"),
    ("POST", ("me", "calendars"), "calendar", "create_calendar"),
    ("GET", ("me", "calendar"), "calendar", "get_calendar"),
    ("GET", ("me", "calendars", "*"), "calendar", "get_calendar"),
    ("DELETE", ("me", "calendars", "*"), "calendar", "delete_calendar"),
    ("GET", ("me", "calendar", "events"), "list", "list_events"),
    ("GET", ("me", "calendars", "*", "events"), "list", "list_events"),
    ("POST", ("me", "events"), "insert", "insert"),
    ("POST", ("me", "calendar", "events"), "insert", "insert"),
    ("POST", ("me", "calendars", "*", "events"), "insert", "insert"),
    ("GET", ("me", "calendar", "calendarView", "delta"), "delta", "delta"),
    ("GET", ("me", "calendars", "*", "calendarView", "delta"), "delta", "delta"),
    ("GET", ("me", "events", "*"), "get", "get_event"),
    ("GET", ("me", "calendars", "*", "events", "*"), "get", "get_event"),
    ("PATCH", ("me", "events", "*"), "update", "update"),
    ("PATCH", ("me", "calendars", "*", "events", "*"), "update", "update"),
    ("DELETE", ("me", "events", "*"), "delete", "delete"),
    ("DELETE", ("me", "calendars", "*", "events", "*"), "delete", "delete"),
)


def error(status, code, message, headers=None):
    return Answer(status, {"error": {"code": code, "message": message,
                                     "innerError": {"date": now_rfc3339()[:19], "request-id": opaque(12)}}}, headers)


def bad(message):
    return error(400, "ErrorInvalidRequest", message)


def graph_id():
    return "AAMkAGVmMDEz" + opaque(24) + "AAA="


def has_prop(ev, prop):
    return any(p.get("id", "").lower() == prop.lower() and p.get("value") is not None
               for p in ev.get("singleValueExtendedProperties", []))


class Graph:
    prefix = ("v1.0",)
    routes = ROUTES

    def __init__(self, state):
        self.state = state
        self.listed = (None, [])  # (calendar id, filter, seq) of the last listing and its events
        state.seed_account = self.seed

    def seed(self, account):
        """A new mailbox's default calendar."""
        self.state.add_calendar(graph_id(), "Calendar", main=True).etag = self.change_key()

    # --- answers the server gives for every provider

    def not_found(self):
        return error(404, "ErrorItemNotFound", "The specified object was not found in the store.")

    def unauthorized(self, why):
        return error(401, "InvalidAuthenticationToken", "Access token is %s." % why,
                     {"WWW-Authenticate": 'Bearer realm="", error="invalid_token"'})

    def throttled(self, verdict):
        """429 ApplicationThrottled with Retry-After: the app's limits, or (verdict "user") the mailbox's."""
        if verdict == "user":
            return error(429, "ApplicationThrottled", "Application is over its MailboxRequests limit for this "
                                                      "mailbox.", {"Retry-After": "2"})
        return error(429, "ApplicationThrottled", "Application is over its MailboxConcurrency limit.",
                     {"Retry-After": str(self.state.rng.randint(1, 3))})

    # --- access

    def change_key(self):
        return base64.b64encode(secrets.token_bytes(16)).decode()

    def allowed(self, req, write):
        wanted = ("Calendars.ReadWrite", "Calendars.ReadWrite.Shared") + (
            () if write else ("Calendars.Read", "Calendars.Read.Shared"))
        if not req.scopes & set(wanted):
            raise error(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")

    def calendar(self, req, cid, write):
        """A calendar by id, the default one for None."""
        self.allowed(req, write)
        cal = self.state.calendars.get(cid) if cid else self.state.main_calendar()
        if cal is None:
            raise self.not_found()
        return cal

    def event(self, req, path, write):
        """(calendar, event) of /me/events/{id} or /me/calendars/{cid}/events/{id}; 404 when gone."""
        self.allowed(req, write)
        cal = self.calendar(req, path[0], write) if len(path) == 2 else None
        cal, ev = self.state.find_event(path[-1], cal)
        if ev is None or ev["_deleted"]:
            raise self.not_found()
        return cal, ev

    def touch(self, ev):
        ev["_seq"] = self.state.next_seq()
        ev["changeKey"] = self.change_key()
        ev["lastModifiedDateTime"] = now_rfc3339()[:-1] + "0000Z"

    def view(self, ev, select=None, expand=None):
        """The event as Graph answers: only the $select fields (plus @odata.etag, id and changeKey) when
        selected, the extended property $expand names when expanded."""
        out = {"@odata.etag": 'W/"%s"' % ev["changeKey"], "id": ev["id"], "changeKey": ev["changeKey"]}
        full = {k: v for k, v in ev.items() if not k.startswith("_") and k != "singleValueExtendedProperties"}
        full["start"] = timecheck.graph_out(ev["start"], ev.get("isAllDay"))
        full["end"] = timecheck.graph_out(ev["end"], ev.get("isAllDay"))
        full["bodyPreview"] = ev.get("body", {}).get("content", "")[:255]
        out.update({k: v for k, v in full.items() if select is None or k in select})
        if expand:
            out["singleValueExtendedProperties"] = [
                p for p in ev.get("singleValueExtendedProperties", []) if p.get("id", "").lower() == expand.lower()]
        return out

    # --- calendars

    def calendar_view(self, cal):
        return {"id": cal.id, "name": cal.name, "color": "auto", "hexColor": "", "isDefaultCalendar": cal.main,
                "changeKey": cal.etag, "canShare": True, "canViewPrivateItems": True, "canEdit": True,
                "isRemovable": not cal.main, "owner": {"name": self.state.account.email.split("@")[0],
                                                      "address": self.state.account.email}}

    def calendar_list(self, req):
        self.calendar(req, None, write=False)
        cals = list(self.state.calendars.values())
        return self.skip_page(req, "$metadata#users('me')/calendars", cals, self.calendar_view)

    def skip_page(self, req, context, items, render):
        """One page of items by $top (default 10, at most 1000) and $skip, each render(item), with the nextLink of
        the next page. Only the page is rendered: a listing of 10,000 events is 100 pages."""
        top, skip = req.arg("$top", "10"), req.arg("$skip", "0")
        if not top.isdigit() or int(top) < 1 or not skip.isdigit():
            raise error(400, "ErrorInvalidUrlQuery", "$top and $skip must be positive integers")
        top, skip = min(int(top), 1000), int(skip)
        body = {"@odata.context": req.base_url + "/v1.0/" + context,
                "value": [render(x) for x in items[skip:skip + top]]}
        if self.state.config.repeat_page_token:  # a broken API: the next page is this one, for ever
            body["@odata.nextLink"] = req.base_url + req.target
        elif skip + top < len(items):
            query = dict(req.query, **{"$skip": [str(skip + top)]})
            body["@odata.nextLink"] = req.base_url + req.path + "?" + urllib.parse.urlencode(
                query, doseq=True, quote_via=urllib.parse.quote, safe="$")
        return Answer(200, body)

    def get_calendar(self, req, cid=None):
        return Answer(200, self.calendar_view(self.calendar(req, cid, write=False)))

    def create_calendar(self, req):
        self.calendar(req, None, write=True)
        name = req.json(bad).get("name")
        if not isinstance(name, str) or not name.strip():
            raise bad("name is required")
        if any(c.name.lower() == name.lower() for c in self.state.calendars.values()):
            raise error(409, "ErrorFolderExists", "A folder with the specified name already exists.")
        return Answer(201, self.calendar_view(self.new_calendar(name)))

    def delete_calendar(self, req, cid):
        """A calendar other than the default one (a distinguished folder), its events with it."""
        cal = self.calendar(req, cid, write=True)
        if cal.main:
            raise error(400, "ErrorDeleteDistinguishedFolder", "Distinguished folders cannot be deleted.")
        del self.state.calendars[cal.id]
        txns = self.state.account.transactions
        for txn in [t for t, (made_in, _) in txns.items() if made_in == cal.id]:
            del txns[txn]
        return Answer(204)

    def new_calendar(self, name):
        cal = self.state.add_calendar(graph_id(), name)
        cal.etag = self.change_key()
        return cal

    # --- listing events

    def list_events(self, req, cid=None):
        cal = self.calendar(req, cid, write=False)
        prop = None
        if req.arg("$filter") is not None:
            m = PROP_FILTER.fullmatch(req.arg("$filter").strip())
            if m is None:
                raise error(400, "ErrorInvalidUrlQueryFilter", "The query filter contains one or more invalid nodes.")
            prop = m.group(2)
        select, expand = self.select_expand(req)
        key = (cal.id, prop, self.state.seq)  # the pages of one listing filter the same events: once is enough
        if self.listed[0] != key:
            self.listed = (key, [e for e in cal.events.values()
                                 if not e["_deleted"] and (prop is None or has_prop(e, prop))])
        events = self.listed[1]
        return self.skip_page(req, "$metadata#users('me')/calendars('%s')/events" % cal.id, events,
                              lambda e: self.view(e, select, expand))

    def select_expand(self, req):
        select = req.arg("$select")
        select = {s.strip() for s in select.split(",")} if select is not None else None
        expand = req.arg("$expand")
        if expand is not None:
            m = PROP_EXPAND.fullmatch(expand.strip())
            if m is None:
                raise error(400, "BadRequest", "Parsing OData Select and Expand failed: only "
                                               "singleValueExtendedProperties($filter=id eq '...') is known")
            expand = m.group(1)
        return select, expand

    def delta(self, req, cid=None):
        cal = self.calendar(req, cid, write=False)
        refused = [p for p in NOT_WITH_DELTA if p in req.query]
        if refused:
            raise error(400, "ErrorInvalidUrlQuery", "The following parameters are not supported with change "
                                                     "tracking over the 'CalendarView' resource: " + ", ".join(refused))
        m = MAX_PAGE.search(req.headers.get("Prefer", ""))
        size = max(1, int(m.group(1))) if m else 100
        ids, offset, window, snapshot = self.delta_round(req, cal)
        here, rest = ids[offset:offset + size], offset + size < len(ids)
        items = [self.delta_item(cal.events[i], window) for i in here]
        body = {"@odata.context": req.base_url + "/v1.0/$metadata#Collection(event)", "value": items}
        link = req.base_url + req.path + "?"
        if self.state.config.repeat_page_token:  # a broken API: the next page is this one, for ever
            body["@odata.nextLink"] = req.base_url + req.target
        elif rest:
            token = opaque(24)
            self.state.pages[token] = {"what": "delta " + cal.id, "ids": ids, "offset": offset + size,
                                       "window": window, "snapshot": snapshot}
            body["@odata.nextLink"] = link + "$skiptoken=" + token
        else:
            token = opaque(24)
            self.state.sync[token] = (cal.id, snapshot, window)
            body["@odata.deltaLink"] = link + "$deltatoken=" + token
        return Answer(200, body, {"Preference-Applied": "odata.maxpagesize=%d" % size} if m else None)

    def delta_round(self, req, cal):
        """(ids of the round, offset of this page, window, snapshot): a new round, the next page of one
        ($skiptoken), or the changes since a deltaLink ($deltatoken)."""
        skip, since = req.arg("$skiptoken"), req.arg("$deltatoken")
        gone = error(410, "SyncStateNotFound", "The sync state generation is not found or expired; "
                                               "a full synchronization is required.")
        if skip is not None:
            page = self.state.pages.get(skip)
            if page is None or page["what"] != "delta " + cal.id:
                raise gone
            return page["ids"], page["offset"], page["window"], page["snapshot"]
        if since is not None:
            known = self.state.sync.get(since)
            if known is None or known[0] != cal.id:
                raise gone
            changed = sorted((e for e in cal.events.values() if e["_seq"] > known[1]), key=lambda e: e["_seq"])
            return [e["id"] for e in changed], 0, known[2], self.state.seq
        window = []
        for name in ("startDateTime", "endDateTime"):
            moment = parse_instant(req.arg(name) or "")
            if moment is None:
                raise error(400, "ErrorInvalidParameter", "This request requires a time window specified by the "
                                                          "query string parameters StartDateTime and EndDateTime.")
            window.append(moment)
        inside = [e["id"] for e in cal.events.values()
                  if not e["_deleted"] and timecheck.graph_window_overlaps(e, *window)]
        return inside, 0, tuple(window), self.state.seq

    def delta_item(self, ev, window):
        if ev["_deleted"] or not timecheck.graph_window_overlaps(ev, *window):
            return {"@odata.type": "#microsoft.graph.event", "id": ev["id"], "@removed": {"reason": "deleted"}}
        return dict(self.view(ev), **{"@odata.type": "#microsoft.graph.event"})

    # --- one event

    def get_event(self, req, *path):
        select, expand = self.select_expand(req)
        return Answer(200, self.view(self.event(req, path, write=False)[1], select, expand))

    def insert(self, req, cid=None):
        cal = self.calendar(req, cid, write=True)
        body = req.json(bad)
        txn = body.get("transactionId")
        txns = self.state.account.transactions
        if txn is not None and txn in txns:
            made_in, eid = txns[txn]
            return Answer(201, self.view(self.state.calendars[made_in].events[eid]))
        now = now_rfc3339()[:-1] + "0000Z"
        ev = {"id": graph_id(), "createdDateTime": now, "transactionId": txn, "categories": [],
              "originalStartTimeZone": "UTC", "originalEndTimeZone": "UTC", "subject": "", "importance": "normal",
              "sensitivity": "normal", "isAllDay": False, "isCancelled": False, "isOrganizer": True,
              "showAs": "busy", "type": "singleInstance", "body": {"contentType": "text", "content": ""},
              "location": {"displayName": ""}, "isReminderOn": True, "reminderMinutesBeforeStart": 15,
              "iCalUId": "040000008200E00074C5B7101A82E008" + secrets.token_hex(28).upper(),
              "singleValueExtendedProperties": [], "_deleted": False}
        self.apply(ev, body)
        self.touch(ev)
        cal.events[ev["id"]] = ev
        if txn is not None:
            txns[txn] = (cal.id, ev["id"])
        return Answer(201, self.view(ev), {"Location": "%s/v1.0/me/events('%s')" % (req.base_url, ev["id"])})

    def apply(self, ev, body):
        """Sets the writable fields of body on ev (extended properties merged by id), or raises a 400."""
        new = dict(ev)
        new.update({k: body[k] for k in WRITABLE if k in body})
        props = body.get("singleValueExtendedProperties", [])
        if not isinstance(props, list) or not all(isinstance(p, dict) and isinstance(p.get("id"), str) and
                                                  isinstance(p.get("value"), str) for p in props):
            raise bad("singleValueExtendedProperties must be a list of {\"id\", \"value\"} strings")
        merged = {p["id"].lower(): p for p in ev.get("singleValueExtendedProperties", [])}
        merged.update({p["id"].lower(): {"id": p["id"], "value": p["value"]} for p in props})
        new["singleValueExtendedProperties"] = list(merged.values())
        if new.get("showAs") not in SHOW_AS:
            raise error(400, "RequestBodyRead", "Requested value '%s' was not found." % new.get("showAs"))
        problem = timecheck.graph_times(new)
        if problem:
            raise error(400, problem[0], problem[1])
        ev.update(new)

    def update(self, req, *path):
        _, ev = self.event(req, path, write=True)
        if if_match_fails(req, 'W/"%s"' % ev["changeKey"]):
            raise error(412, "ErrorIrresolvableConflict", "The change key passed in the request does not match "
                                                          "the current change key for the item.")
        self.apply(ev, req.json(bad))
        self.touch(ev)
        return Answer(200, self.view(ev))

    def delete(self, req, *path):
        _, ev = self.event(req, path, write=True)
        if if_match_fails(req, 'W/"%s"' % ev["changeKey"]):
            raise error(412, "ErrorIrresolvableConflict", "The change key passed in the request does not match "
                                                          "the current change key for the item.")
        self.remove(None, ev)
        return Answer(204)

    # --- the admin endpoints' side

    def admin_view(self, cal, ev):
        out = self.view(ev)
        out.update(singleValueExtendedProperties=ev["singleValueExtendedProperties"], deleted=ev["_deleted"],
                   calendarId=cal.id)
        return out

    def add_foreign(self, cal, summary, start, end):
        all_day = len(start) == 10
        ev = {"id": graph_id(), "createdDateTime": now_rfc3339(), "subject": summary, "isAllDay": all_day,
              "showAs": "busy", "body": {"contentType": "text", "content": ""}, "location": {"displayName": ""},
              "transactionId": None, "singleValueExtendedProperties": [], "_deleted": False}
        for key, text in (("start", start), ("end", end)):
            moment = parse_instant(text + "T00:00:00" if all_day else text)
            if moment is None:
                raise bad("cannot read %s %r" % (key, text))
            ev[key] = {"dateTime": moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
                       "timeZone": "UTC"}
        self.apply(ev, {})
        self.touch(ev)
        cal.events[ev["id"]] = ev
        return ev

    def edit(self, ev, summary):
        ev["subject"] = summary
        self.touch(ev)

    def remove(self, cal, ev):
        ev["_deleted"] = True
        self.touch(ev)
