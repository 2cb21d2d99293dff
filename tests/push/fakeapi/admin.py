"""The admin endpoints under /_fake/ (no auth, not counted): what a test reads and changes behind the client's back.

    GET  /_fake/state[?calendar=NAME_OR_ID][&events=0]
         {"provider", "calendars": [{"id", "name", "main", "app_created", "events": [...]}], "requests": {"total",
          "by_kind", "by_status", "quota_refused", "injected", "writes", "writes_ok"}, "config": {...},
          "tokens": {"grants", "refresh_tokens", "access_tokens"} (live counts, never a value)}
         Events are the full stored events with "deleted" (google: cancelled; graph: removed) and "calendarId";
         graph ones always carry their singleValueExtendedProperties.
    POST /_fake/reset_counts                     the request counters back to zero
    POST /_fake/calendar {"name"}                a calendar of the person's own (not made by the app) -> {"id", "name"}
    POST /_fake/foreign {"calendar", "summary", "start", "end"}
         a person's own event (no extended property) in that calendar (name or id; default: the primary/default
         one); start/end "YYYY-MM-DD" (all-day) or a date-time with offset; -> the event
    POST /_fake/edit {"id", "summary"[, "calendar"]}   renames an event (new etag/changeKey) -> the event
    POST /_fake/delete {"id"[, "calendar"]}            deletes one (google: cancelled) -> the event
    POST /_fake/revoke        every grant revoked: refresh -> invalid_grant, access tokens -> 401
    POST /_fake/expire        every access token expired now (refresh tokens still good)
    POST /_fake/forget_sync   every sync token, delta link and page token forgotten (-> 410 / 400)
    POST /_fake/config {latency_ms, quota_per_minute, error_rate, token_lifetime} (any of them) -> the config;
         setting quota_per_minute (even to its value) starts its 60 s window empty
"""
import json

from .common import Answer, default_times


def refused(status, message):
    return Answer(status, {"error": message})


class Admin:
    def __init__(self, state, api, oauth):
        self.state = state
        self.api = api
        self.oauth = oauth

    def handle(self, req):
        name = "/".join(req.segments[1:])
        if req.method == "GET" and name == "state":
            return self.dump(req)
        if req.method != "POST":
            return refused(404, "unknown admin endpoint %s %s" % (req.method, req.path))
        try:
            body = json.loads(req.body.decode("utf-8") or "{}")
        except ValueError as e:
            return refused(400, "the body is not JSON: %s" % e)
        simple = {"reset_counts": self.state.counters.reset, "revoke": self.oauth.revoke_all,
                  "expire": self.oauth.expire_all, "forget_sync": self.forget_sync}
        if name in simple:
            simple[name]()
            return Answer(200, {"ok": True})
        actions = {"calendar": self.calendar, "foreign": self.foreign, "edit": self.edit, "delete": self.delete,
                   "config": self.configure}
        if name not in actions or not isinstance(body, dict):
            return refused(404, "unknown admin endpoint POST %s" % req.path)
        return actions[name](body)

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
        return Answer(200, {"provider": self.state.provider, "calendars": cals,
                            "requests": self.state.counters.as_json(), "config": self.state.config.as_json(),
                            "tokens": self.oauth.counts()})

    def forget_sync(self):
        self.state.sync.clear()
        self.state.pages.clear()

    def configure(self, body):
        try:
            self.state.config.update(body)
        except (TypeError, ValueError) as e:
            return refused(400, "bad config value: %s" % e)
        if "quota_per_minute" in body:  # a new quota starts with an empty minute, so tests can count on it
            self.state.window.clear()
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
        self.api.edit(ev, body.get("summary", "edited behind your back"))
        return Answer(200, self.api.admin_view(cal, ev))

    def delete(self, body):
        try:
            cal, ev = self.event(body)
        except Answer as a:
            return a
        self.api.remove(cal, ev)
        return Answer(200, self.api.admin_view(cal, ev))
