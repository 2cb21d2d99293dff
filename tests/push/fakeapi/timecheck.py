"""Event start and end checked as the real APIs check them, and Graph's times written as Graph writes them.

Google: start/end are {"date": "YYYY-MM-DD"} or {"dateTime": RFC 3339, "timeZone"?}; a dateTime without an
offset needs a timeZone; both ends of one kind; the end not before the start (an all-day event lasts a day
at least). Graph: {"dateTime": "YYYY-MM-DDTHH:MM:SS[.fffffff]", "timeZone"}; isAllDay events start and end at
midnight; answers carry UTC with seven fractional digits ("2027-01-05T09:00:00.0000000"), as Graph's do
without a Prefer: outlook.timezone. The fake knows IANA zone names (and UTC), not Windows ones.
"""
import datetime
import re

from .common import parse_date, parse_instant, utc_of_date, zone


class Problem(Exception):
    pass


def google_moment(t, which):
    """(aware instant, all-day?) of a Google start or end; raises Problem(reason, message)."""
    if not isinstance(t, dict) or not (t.get("date") or t.get("dateTime")):
        raise Problem("required", "Missing %s time." % which)
    if t.get("date") and t.get("dateTime"):
        raise Problem("invalid", "Invalid %s time: both date and dateTime." % which)
    if t.get("date"):
        d = parse_date(t["date"])
        if d is None:
            raise Problem("invalid", "Invalid %s time." % which)
        return utc_of_date(d), True
    tz = t.get("timeZone")
    if tz is not None and zone(tz) is None:
        raise Problem("invalid", "Invalid time zone definition for %s time." % which)
    text = t["dateTime"]
    has_offset = isinstance(text, str) and re.search(r"(Z|[+-]\d\d:\d\d)$", text)
    if not has_offset and tz is None:
        raise Problem("required", "Missing time zone definition for %s time." % which)
    moment = parse_instant(text, tz)
    if moment is None:
        raise Problem("invalid", "Invalid %s time." % which)
    return moment, False


def google_instant(t, which):
    return google_moment(t, which)[0]


def google_times(start, end):
    """None, or (reason, message) of the 400 the real API gives for these start and end."""
    try:
        a, a_day = google_moment(start, "start")
        b, b_day = google_moment(end, "end")
    except Problem as p:
        return p.args
    if a_day != b_day:
        return "invalid", "Start and end times must either both be date or both be dateTime."
    if b < a or (a_day and b == a):
        return "timeRangeEmpty", "The specified time range is empty."
    return None


def graph_moment(t, which):
    """The aware instant of a Graph start or end; raises Problem(code, message)."""
    if not isinstance(t, dict) or not isinstance(t.get("dateTime"), str):
        raise Problem("ErrorInvalidRequest", "%s.dateTime is required" % which)
    tz = t.get("timeZone") or "UTC"
    if zone(tz) is None:
        raise Problem("ErrorInvalidTimeZone", "unknown time zone %r (this fake knows IANA names and UTC)" % tz)
    moment = parse_instant(t["dateTime"], tz)
    if moment is None:
        raise Problem("ErrorInvalidRequest", "cannot read %s.dateTime %r" % (which, t["dateTime"]))
    return moment


def graph_times(ev):
    """None, or (code, message) of the 400 for this event's start, end and isAllDay."""
    try:
        a = graph_moment(ev.get("start"), "start")
        b = graph_moment(ev.get("end"), "end")
    except Problem as p:
        return p.args
    if ev.get("isAllDay"):
        if any(m.time() != datetime.time(0) for m in (a, b)):
            return "ErrorInvalidRequest", "the start and end of an all-day event must be at midnight"
        if b <= a:
            return "ErrorInvalidRequest", "an all-day event lasts at least one day"
    elif b < a:
        return "ErrorInvalidRequest", "the end is before the start"
    return None


def graph_out(t, all_day):
    """A stored Graph start or end as Graph answers it: UTC (all-day ones keep their date), 7 fraction digits."""
    moment = graph_moment(t, "time")
    if not all_day:
        moment = moment.astimezone(datetime.timezone.utc)
    return {"dateTime": moment.strftime("%Y-%m-%dT%H:%M:%S.") + "%07d" % (moment.microsecond * 10),
            "timeZone": "UTC" if not all_day else t.get("timeZone") or "UTC"}


def graph_window_overlaps(ev, lo, hi):
    a = graph_moment(ev["start"], "start")
    b = graph_moment(ev["end"], "end")
    if ev.get("isAllDay"):  # all-day dates are floating: read them as UTC days
        a, b = a.replace(tzinfo=datetime.timezone.utc), b.replace(tzinfo=datetime.timezone.utc)
    return a < hi and (b > lo or (a == b and a >= lo))
