#!/usr/bin/python3
"""Reads a CalDAV calendar back with a real client (Debian's python3-caldav) and prints it as JSON.

    DAV_PASSWORD=... dav_check.py --url SERVER_ROOT --user NAME
        [--calendar DISPLAYNAME | --collection URL] [--compare FEED.ics]...

The calendar is found as a client finds it: the principal (current-user-principal), its calendar-home-set
and the calendars there, by display name (--calendar), or taken as given (--collection). Its items are read
in one calendar-query REPORT. Prints:

  calendars        every calendar of the principal: url, name (display name or null), components
  calendar         the one read (url, name, components), or null when no calendar has that name
  items            each resource: href, name (last path segment), etag, uid, summary, dtstart (the
                   DTSTART line's value and parameters as written), components (VEVENT, VTODO...), tzids
                   (zones the item's times name), vtimezones (zones it carries), ours (icsbridge-<8 hex of the writer>-<32 hex>.ics, or an earlier version's icsbridge-<32 hex>.ics)
  total, ours, foreign, duplicate_uids (UIDs in more than one resource), missing_vtimezone (hrefs whose times
  name a TZID with no VTIMEZONE), bad_names (resources named icsbridge-... but not as ours are)
  compare          with --compare (repeatable): the feeds' items against ours: missing (feed UIDs not in
                   the calendar), extra (our UIDs not in the feeds), different ([uid, property, feed's value,
                   calendar's value] where they differ; properties: SUMMARY DTSTART DTEND DUE DESCRIPTION
                   LOCATION STATUS URL CATEGORIES)
"""
import argparse
import collections
import json
import os
import re
import sys
import urllib.parse

import caldav
import caldav.elements.dav
import icalendar

OURS = re.compile(r"^icsbridge-(?:[0-9a-f]{8}-)?[0-9a-f]{32}\.ics$")
COMPARED = ("SUMMARY", "DTSTART", "DTEND", "DUE", "DESCRIPTION", "LOCATION", "STATUS", "URL", "CATEGORIES")
QUERY = """<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:prop><D:getetag/><C:calendar-data/></D:prop>
  <C:filter><C:comp-filter name="VCALENDAR"/></C:filter>
</C:calendar-query>"""


def prop_text(component, name):
    """A property's value as written in the file (parameters too), so a shifted zone shows as a change."""
    value = component.get(name)
    if value is None:
        return None
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        params = ";".join("%s=%s" % (k, v.params[k]) for k in sorted(v.params)) if hasattr(v, "params") else ""
        raw = v.to_ical()
        out.append((params + ":" if params else "") + (raw.decode() if isinstance(raw, bytes) else str(raw)))
    return "|".join(out)


def item_components(cal):
    """The item's own components (not VTIMEZONE) and the zones the file carries."""
    items, zones = [], []
    for sub in cal.subcomponents:
        if sub.name == "VTIMEZONE":
            zones.append(str(sub.get("TZID")))
        else:
            items.append(sub)
    return items, zones


def tzids_named(component):
    names = set()
    for sub in component.walk():
        for _, value in sub.property_items(recursive=False):
            tzid = getattr(value, "params", {}).get("TZID") if hasattr(value, "params") else None
            if tzid:
                names.add(str(tzid))
    return names


def describe(href, etag, data):
    name = urllib.parse.unquote(href.rstrip("/").rsplit("/", 1)[-1])
    entry = {"href": href, "name": name, "etag": etag, "ours": bool(OURS.match(name))}
    try:
        cal = icalendar.Calendar.from_ical(data)
    except Exception as e:  # a resource a real client cannot parse is a finding, not a crash
        entry.update(uid=None, summary=None, dtstart=None, components=[], tzids=[], vtimezones=[],
                     error="unparsable: %s" % e)
        return entry, []
    comps, zones = item_components(cal)
    first = comps[0] if comps else {}
    named = set()
    for c in comps:
        named |= tzids_named(c)
    entry.update(uid=str(first.get("UID")) if first and first.get("UID") else None,
                 uids=sorted({str(c.get("UID")) for c in comps if c.get("UID")}),
                 summary=str(first.get("SUMMARY")) if first and first.get("SUMMARY") is not None else None,
                 dtstart=prop_text(first, "DTSTART") if first else None,
                 components=[c.name for c in comps], tzids=sorted(named), vtimezones=sorted(zones))
    return entry, comps


def compare(feed_paths, ours):
    """ours: uid -> the item's components in the calendar. A UID in several feeds: the first feed's."""
    wanted = collections.OrderedDict()
    for path in feed_paths:
        with open(path, "rb") as f:
            feed = icalendar.Calendar.from_ical(f.read())
        here = collections.OrderedDict()
        for sub in feed.subcomponents:
            if sub.name != "VTIMEZONE" and sub.get("UID"):
                here.setdefault(str(sub.get("UID")), []).append(sub)
        for uid, subs in here.items():
            wanted.setdefault(uid, subs)
    different = []
    for uid, subs in wanted.items():
        got = ours.get(uid)
        if got is None:
            continue
        for prop in COMPARED:
            want_v = [prop_text(s, prop) for s in subs]
            got_v = [prop_text(s, prop) for s in got]
            if want_v != got_v:
                different.append([uid, prop, want_v[0] if len(want_v) == 1 else want_v,
                                  got_v[0] if len(got_v) == 1 else got_v])
    return {"feed_items": len(wanted),
            "missing": [u for u in wanted if u not in ours],
            "extra": sorted(u for u in ours if u not in wanted),
            "different": different}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--user", required=True)
    ap.add_argument("--calendar")
    ap.add_argument("--collection")
    ap.add_argument("--compare", action="append", help="a feed the calendar mirrors (repeat for several)")
    args = ap.parse_args()

    client = caldav.DAVClient(url=args.url, username=args.user, password=os.environ.get("DAV_PASSWORD", ""))
    principal = client.principal()
    calendars = []
    for cal in principal.calendars():
        props = cal.get_properties([caldav.elements.dav.DisplayName()])
        calendars.append({"url": str(cal.url), "name": props.get("{DAV:}displayname"),
                          "components": sorted(cal.get_supported_components()), "cal": cal})
    chosen = None
    if args.collection:
        chosen = {"url": args.collection, "name": None, "components": None,
                  "cal": caldav.Calendar(client=client, url=args.collection)}
        for c in calendars:
            if c["url"].rstrip("/") == urllib.parse.urljoin(args.url, args.collection).rstrip("/"):
                chosen = c
    elif args.calendar is not None:
        named = [c for c in calendars if c["name"] == args.calendar]
        chosen = named[0] if named else None

    out = {"calendars": [{k: v for k, v in c.items() if k != "cal"} for c in calendars],
           "calendar": {k: v for k, v in chosen.items() if k != "cal"} if chosen else None,
           "items": [], "total": 0, "ours": 0, "foreign": 0, "duplicate_uids": [], "missing_vtimezone": [],
           "bad_names": []}
    if chosen:
        by_uid = collections.defaultdict(list)
        ours = {}
        for obj in chosen["cal"].search(xml=QUERY):
            etag = obj.props.get("{DAV:}getetag") if hasattr(obj, "props") else None
            etag = etag.text if hasattr(etag, "text") else etag
            entry, comps = describe(urllib.parse.urlsplit(str(obj.url)).path, etag, obj.data or "")
            out["items"].append(entry)
            if entry["uid"]:
                by_uid[entry["uid"]].append(entry["href"])
            if entry["ours"] and entry["uid"]:
                ours[entry["uid"]] = comps
            if set(entry["tzids"]) - set(entry["vtimezones"]):
                out["missing_vtimezone"].append(entry["href"])
            if entry["name"].startswith("icsbridge-") and not entry["ours"]:
                out["bad_names"].append(entry["href"])
        out["items"].sort(key=lambda e: e["href"])
        out["total"] = len(out["items"])
        out["ours"] = sum(1 for e in out["items"] if e["ours"])
        out["foreign"] = out["total"] - out["ours"]
        out["duplicate_uids"] = sorted(u for u, hrefs in by_uid.items() if len(hrefs) > 1)
        if args.compare:
            out["compare"] = compare(args.compare, ours)
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False, default=str)
    print()


if __name__ == "__main__":
    main()
