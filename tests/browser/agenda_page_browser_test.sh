#!/usr/bin/env bash
# File: agenda_page_browser_test.sh
# /feeds/NAME.html of `icsbridge serve` (fed by the fake upstream) in headless Chromium: every coming event's
# title exactly once (coming: computed here from the .ics with python3-icalendar), only the page's own
# tags (no upstream HTML), no script, the subscribe links, job posts with "due", ?tz= (and its 400), the
# token rule with its uniform 404 and no other feed's token. Each item under the heading of its day in the
# page's zone, with its time, its place, and struck through when cancelled; the index page links the
# agenda of public feeds only. A phone-width screenshot goes to BUILD_DIR/screens.
# Exit 77 (CTest skip) without chromium.
#   agenda_page_browser_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
fake=$2
src=$3
out=$4/screens
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=agenda_page
need_chromium
init_work

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" 127.0.0.1:0 'public_url = "https://calendar.example.org"')
$(fake_sources_toml "$upstream")
[feeds.pub]
source = "eb"
select = "organizer"
title = "Our <events>"
[feeds.tok-a]
source = "eb"
select = "organizer"
token = "agenda-token-a"
[feeds.tok-b]
source = "eb"
select = "organizer"
token = "agenda-token-b"
[feeds.jobs]
source = "jobs"
select = "recent"
TOML
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics "tok-a.ics?token=agenda-token-a" jobs.ics
curl -s -o "$work/pub.ics" "$base/feeds/pub.ics"

dom() { # dom PATH -> $work/dom.html
    timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$work/profile" \
        --dump-dom "$base$1" >"$work/dom.html" 2>"$work/chromium.log" || { tail "$work/chromium.log" >&2; fail "chromium failed"; }
}

dom /feeds/pub.html
"$python" - "$work/pub.ics" "$work/dom.html" <<'PY' || fail "the agenda does not list the coming events as it should"
import datetime as dt, html.parser, sys
import icalendar

cal = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
now = dt.datetime.now(dt.timezone.utc)
def instant(v):
    v = v.dt
    return v if isinstance(v, dt.datetime) else dt.datetime(v.year, v.month, v.day, tzinfo=dt.timezone.utc)
coming = [str(e["SUMMARY"]) for e in cal.walk("VEVENT")
          if instant(e["DTEND"] if "DTEND" in e else e["DTSTART"]) >= now]
allowed = {"html", "head", "meta", "title", "style", "body", "main", "section", "div", "h1", "h2", "h3", "ul", "li", "a", "span", "p", "code", "br"}

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.titles, self.tags, self.current = [], set(), None
    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if "title" in (dict(attrs).get("class") or "").split():
            self.current = ""
    def handle_data(self, data):
        if self.current is not None:
            self.current += data
    def handle_endtag(self, tag):
        if self.current is not None and tag in ("a", "span"):
            self.titles.append(self.current)
            self.current = None

p = Page()
p.feed(open(sys.argv[2], encoding="utf-8").read())
problems = []
for t in set(coming):
    if p.titles.count(t) != coming.count(t):
        problems.append("%r shown %d times, coming %d times" % (t, p.titles.count(t), coming.count(t)))
if len(p.titles) != len(coming):
    problems.append("%d items shown, %d coming" % (len(p.titles), len(coming)))
if p.tags - allowed:
    problems.append("tags the page does not make: %s" % sorted(p.tags - allowed))
if not coming:
    problems.append("no coming events in the fixture: the test proves nothing")
print("\n".join(problems) if problems else "agenda: %d coming events, each once" % len(coming))
sys.exit(1 if problems else 0)
PY
# Grouped by day in the zone the page names, each item with its time, place and cancelled mark: the
# page's sections against the same grouping computed here from the .ics.
"$python" - "$work/pub.ics" "$work/dom.html" <<'PY' || fail "the agenda's days, times, places or cancelled marks are wrong"
import datetime as dt, html.parser, re, sys, zoneinfo
import icalendar

page = open(sys.argv[2], encoding="utf-8").read()
zone = zoneinfo.ZoneInfo(re.search(r"Times in ([A-Za-z_/+-]+)\.", page).group(1))
now = dt.datetime.now(dt.timezone.utc)
today = now.astimezone(zone).date()
days = {}
for e in icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read()).walk("VEVENT"):
    start = e["DTSTART"].dt
    if isinstance(start, dt.datetime):
        end = e["DTEND"].dt if "DTEND" in e else start
        if max(start, end) < now:
            continue
        day = start.astimezone(zone).date()
    else:
        end = e["DTEND"].dt if "DTEND" in e else start + dt.timedelta(days=1)
        if end <= today:
            continue
        day = max(start, today)
    item = (str(e["SUMMARY"]), str(e.get("STATUS", "")) == "CANCELLED", str(e.get("LOCATION", "")))
    days.setdefault(day, []).append(item)
want = [sorted(days[d]) for d in sorted(days)]

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.item, self.field = [], None, None
    def handle_starttag(self, tag, attrs):
        cls = (dict(attrs).get("class") or "").split()
        if tag == "h2" and "day" in cls:
            self.sections.append([])
        elif tag == "li" and self.sections:
            self.item = {"cancelled": "cancelled" in cls, "when": "", "title": "", "muted": []}
            self.sections[-1].append(self.item)
        elif self.item is not None and tag in ("a", "span"):
            self.field = next((c for c in ("when", "title", "muted") if c in cls), None)
            if self.field == "muted":
                self.item["muted"].append("")
    def handle_data(self, data):
        if self.item is None or self.field is None:
            return
        if self.field == "muted":
            self.item["muted"][-1] += data
        else:
            self.item[self.field] += data
    def handle_endtag(self, tag):
        if tag in ("a", "span"):
            self.field = None
        elif tag == "li":
            self.item = None

p = Page()
p.feed(page)
got = [sorted((i["title"], i["cancelled"], next((m for m in i["muted"] if m != "(cancelled)"), ""))
              for i in s) for s in p.sections]
problems = []
if got != want:
    problems.append("sections %s\nwant %s" % (got, want))
if any(not i["when"].strip() for s in p.sections for i in s):
    problems.append("an item without its time")
if not any(c for d in want for (_, c, _) in d):
    problems.append("no coming cancelled event in the fixture: the strike-through is not tested")
if not re.search(r"\.cancelled\{[^}]*line-through", page):
    problems.append("cancelled items are not struck through")
print("\n".join(problems) if problems else "agenda: %d days, every item under its own" % len(want))
sys.exit(1 if problems else 0)
PY
# The index page links the agenda of public feeds, never of token feeds.
curl -s -o "$work/index.html" "$base/"
grep -q 'href="https://calendar.example.org/feeds/pub.html"' "$work/index.html" ||
    grep -q 'href="/feeds/pub.html"' "$work/index.html" || fail "the index page does not link the agenda"
grep -q 'tok-a.html\|tok-b.html' "$work/index.html" && fail "the index page links a token feed's agenda"
grep -q 'Our &lt;events&gt;' "$work/dom.html" || fail "title not escaped"
grep -q 'href="webcal://calendar.example.org/feeds/pub.ics"' "$work/dom.html" || fail "no webcal link"
grep -q 'href="https://calendar.example.org/feeds/pub.ics"' "$work/dom.html" || fail "no https link"
grep -q 'href="https://calendar.google.com/calendar/r?cid=webcal%3A%2F%2Fcalendar.example.org%2Ffeeds%2Fpub.ics%3Ffor%3Dgoogle"' "$work/dom.html" ||
    fail "no Google add-by-URL link"
grep -qi '<script' "$work/dom.html" && fail "the page has a script"
mkdir -p "$out"
timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars --user-data-dir="$work/profile" \
    --window-size=390,1400 --screenshot="$out/agenda_phone.png" "$base/feeds/pub.html" >/dev/null 2>&1 || fail "no screenshot"

# Another zone, and a wrong one.
dom "/feeds/pub.html?tz=Asia/Tokyo"
grep -q 'Times in Asia/Tokyo' "$work/dom.html" || fail "?tz= not applied"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/feeds/pub.html?tz=Mars/Olympus")" = 400 ] || fail "unknown tz is not 400"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/feeds/pub.html?tz=../../etc/passwd")" = 400 ] || fail "a path as tz is not 400"

# Job posts with their due dates.
dom /feeds/jobs.html
grep -q 'class="when">due<' "$work/dom.html" || fail "job posts without due"

# Token feeds: the token rule of the .ics, the same 404, and no other feed's token on the page.
for q in "" "?token=wrong" "?token=agenda-token-b"; do
    [ "$(curl -s -o "$work/404.txt" -w '%{http_code}' "$base/feeds/tok-a.html$q")" = 404 ] || fail "tok-a.html$q is not 404"
    cmp -s "$work/404.txt" <(curl -s "$base/feeds/nope.html") || fail "tok-a.html$q differs from an unknown feed's 404"
done
dom "/feeds/tok-a.html?token=agenda-token-a"
grep -q 'href="https://calendar.example.org/feeds/tok-a.ics?token=agenda-token-a"' "$work/dom.html" || fail "token feed link"
grep -q 'agenda-token-b' "$work/dom.html" && fail "another feed's token on the page"
grep -q 'agenda-token' "$work/serve.log" && fail "a token in the log"
echo "agenda_page: ok ($out/agenda_phone.png)"
