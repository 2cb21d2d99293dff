#!/usr/bin/python3
# File: check_ics.py
# Checks an .ics file with two real parsers (python3-icalendar and vobject) plus the wire rules
# (CRLF, 75-octet lines, whole UTF-8 per line, unique UIDs, a VTIMEZONE for every TZID), and optionally
# the items it must contain. Run with Debian's /usr/bin/python3, which has both parsers.
#
#   check_ics.py FILE [--expect EXPECT.json]
#
# EXPECT.json: {"count": N, "valarms": N, "trigger": "-PT30M",
#               "items": [{"uid", "summary", "description_contains", "description_startswith", "location",
#                          "url", "status", "alt_desc_contains": [..], "alt_desc_lacks": [..],
#                          "dtstart_utc": "2026-01-01T10:00:00Z", "dtend_utc"}], "forbidden": ["..."]}
# Every key of an item except "uid" is optional. Exit 0 when all is well, 1 with a list of failures.
import argparse
import datetime as dt
import json
import re
import sys

import icalendar
import vobject

ITEM_KINDS = ("VEVENT", "VTODO")


def check_wire(raw, failures):
    """Line-level rules every client relies on."""
    if not raw.endswith(b"\r\n"):
        failures.append("file does not end with CRLF")
    if re.search(rb"(?<!\r)\n", raw):
        failures.append("a line ends with a bare LF (CRLF required)")
    if re.search(rb"\r(?!\n)", raw):
        failures.append("a bare CR outside CRLF")
    for number, line in enumerate(raw.split(b"\r\n"), start=1):
        if len(line) > 75:
            failures.append("line %d is %d octets (max 75): %r" % (number, len(line), line[:40]))
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            failures.append("line %d is not valid UTF-8 on its own (folded inside a character?)" % number)


def unfolded_lines(text):
    return re.sub(r"\r\n[ \t]", "", text).split("\r\n")


def check_tzids(text, failures):
    lines = unfolded_lines(text)
    defined = {l[len("TZID:"):] for l in lines if l.startswith("TZID:")}
    used = set()
    for l in lines:
        for m in re.finditer(r";TZID=(\"[^\"]*\"|[^;:]*)", l.split(":", 1)[0] + ":"):
            used.add(m.group(1).strip('"'))
    for tzid in sorted(used - defined):
        failures.append("TZID %r has no VTIMEZONE" % tzid)


def as_utc(value):
    """A DTSTART/DTEND value as an aware UTC datetime (DATE values stay dates)."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            return None  # floating: no instant
        return value.astimezone(dt.timezone.utc)
    return value


def parse_utc(text):
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)


def icalendar_items(text, failures):
    try:
        cal = icalendar.Calendar.from_ical(text)
    except Exception as e:  # any parser exception is a finding
        failures.append("icalendar could not parse the file: %s" % e)
        return {}
    items = {}
    for comp in cal.walk():
        if comp.name not in ITEM_KINDS:
            continue
        uid = str(comp.get("UID", ""))
        if not uid:
            failures.append("icalendar: a %s without UID" % comp.name)
            continue
        if uid in items:
            failures.append("UID %s appears more than once" % uid)
        items[uid] = comp
    return items


def vobject_items(text, failures):
    try:
        cal = vobject.readOne(text)
    except Exception as e:
        failures.append("vobject could not parse the file: %s" % e)
        return {}
    items = {}
    for comp in cal.getChildren():
        if comp.name not in ITEM_KINDS:
            continue
        if "uid" not in comp.contents:
            failures.append("vobject: a %s without UID" % comp.name)
            continue
        items.setdefault(comp.uid.value, comp)
    return items


def vobject_value(comp, name):
    lines = comp.contents.get(name.lower())
    return lines[0].value if lines else None


def check_expectations(expect, raw_text, ical_items, vobj_items, failures):
    for forbidden in expect.get("forbidden", []):
        if forbidden and forbidden in raw_text:
            failures.append("forbidden text %r appears in the file" % forbidden)
    if "count" in expect and len(ical_items) != expect["count"]:
        failures.append("expected %d items, icalendar found %d" % (expect["count"], len(ical_items)))
    if "count" in expect and len(vobj_items) != expect["count"]:
        failures.append("expected %d items, vobject found %d" % (expect["count"], len(vobj_items)))
    if "valarms" in expect:
        alarms = [a for c in ical_items.values() for a in c.subcomponents if a.name == "VALARM"]
        if len(alarms) != expect["valarms"]:
            failures.append("expected %d VALARMs, found %d" % (expect["valarms"], len(alarms)))
        for a in alarms:
            if "trigger" in expect and a.get("TRIGGER").to_ical().decode() != expect["trigger"]:
                failures.append("a VALARM's TRIGGER is %s, not %s" % (a.get("TRIGGER").to_ical(), expect["trigger"]))
    for want in expect.get("items", []):
        uid = want["uid"]
        vcomp = vobj_items.get(uid)
        icomp = ical_items.get(uid)
        if vcomp is None or icomp is None:
            failures.append("item %s is missing" % uid)
            continue
        # Text compared through vobject: python3-icalendar 4.0.3 misreads "\\n" (escaped backslash + n).
        for key, prop in (("summary", "SUMMARY"), ("location", "LOCATION"), ("url", "URL")):
            if key in want:
                got = vobject_value(vcomp, prop)
                if got != want[key]:
                    failures.append("%s %s: expected %r, got %r" % (uid, prop, want[key], got))
        if "description_contains" in want:
            got = vobject_value(vcomp, "DESCRIPTION") or ""
            if want["description_contains"] not in got:
                failures.append("%s DESCRIPTION lacks %r" % (uid, want["description_contains"]))
        # The upstream's own text, character for character, through both parsers.
        if "description_startswith" in want:
            for parser, got in (("vobject", vobject_value(vcomp, "DESCRIPTION") or ""),
                                ("icalendar", str(icomp.get("DESCRIPTION", "")))):
                if not got.startswith(want["description_startswith"]):
                    failures.append("%s DESCRIPTION (%s) does not start with %r: %r"
                                    % (uid, parser, want["description_startswith"], got[:200]))
        if "status" in want:
            got = vobject_value(vcomp, "STATUS")
            if got != want["status"] or str(icomp.get("STATUS", "")) != want["status"]:
                failures.append("%s STATUS: expected %r, got %r" % (uid, want["status"], got))
        alt = str(icomp.get("X-ALT-DESC", ""))
        for needle in want.get("alt_desc_contains", []):
            if needle not in alt:
                failures.append("%s X-ALT-DESC lacks %r" % (uid, needle))
        for needle in want.get("alt_desc_lacks", []):
            if needle.lower() in alt.lower():
                failures.append("%s X-ALT-DESC contains %r" % (uid, needle))
        # Instants through both parsers: vobject reads our VTIMEZONE, icalendar the IANA name.
        for key, prop in (("dtstart_utc", "DTSTART"), ("dtend_utc", "DTEND")):
            if key not in want:
                continue
            expected = parse_utc(want[key])
            vgot = as_utc(vobject_value(vcomp, prop))
            igot = as_utc(icomp.decoded(prop)) if prop in icomp else None
            if vgot != expected:
                failures.append("%s %s (vobject): expected %s, got %s" % (uid, prop, expected, vgot))
            if igot != expected:
                failures.append("%s %s (icalendar): expected %s, got %s" % (uid, prop, expected, igot))


def main(argv):
    parser = argparse.ArgumentParser(description="Check an .ics file with real parsers.")
    parser.add_argument("file")
    parser.add_argument("--expect", help="JSON file with the items the calendar must contain")
    args = parser.parse_args(argv)

    failures = []
    with open(args.file, "rb") as f:
        raw = f.read()
    check_wire(raw, failures)
    text = raw.decode("utf-8", errors="replace")
    check_tzids(text, failures)
    ical_items = icalendar_items(text, failures)
    vobj_items = vobject_items(text, failures)
    if set(ical_items) != set(vobj_items) and ical_items and vobj_items:
        failures.append("the parsers disagree on the items: %s" % sorted(set(ical_items) ^ set(vobj_items)))
    if args.expect:
        with open(args.expect, encoding="utf-8") as f:
            expect = json.load(f)
        check_expectations(expect, text, ical_items, vobj_items, failures)

    if failures:
        print("%s: %d problem(s)" % (args.file, len(failures)))
        for f in failures:
            print("  - " + f)
        return 1
    print("%s: ok (%d items)" % (args.file, len(ical_items)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
