#!/usr/bin/env bash
# File: views_e2e.sh
# Subscriber views served by the real `icsbridge serve` (fed by the fake upstream binary): every view
# parameter, their combinations with a token, 304 per view (If-None-Match and If-Modified-Since), HEAD,
# gzip, the 400s, unknown parameters ignored, the cache in /metrics, and a feed-level `filter` giving the
# same items as the matching category view. Expected counts are computed here
# from the plain feed with python3-icalendar, independently of the C++ view builder.
#   views_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=views_e2e
init_work

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"

cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" 127.0.0.1:0)

$(events_source_toml "$upstream" 'timeout = "5s"')

[feeds.pub]
source = "eb"
select = "organizer"
alarm = "1h"
refresh = "1h"

[feeds.music]
source = "eb"
select = "organizer"
refresh = "1h"
filter = { categories = ["music"], exclude_keywords = ["NO-SUCH-WORD"] }

[feeds.tok]
source = "eb"
select = "organizer"
refresh = "1h"
token = "view-secret-token-1"
TOML

start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
for feed in "pub.ics" "tok.ics?token=view-secret-token-1"; do
    wait_for_url "$base/feeds/$feed" || fail "feed $feed not served (last status $last_status)"
done
curl -s -o "$work/plain.ics" "$base/feeds/pub.ics"

# The feed-level filter (config) publishes what the category view selects, as its own feed.
for _ in $(seq 1 100); do
    [ "$(curl -s -o "$work/music.ics" -w '%{http_code}' "$base/feeds/music.ics")" = 200 ] && break
    sleep 0.1
done
curl -s -o "$work/music_view.ics" "$base/feeds/pub.ics?category=Music"
[ "$(grep -c '^UID:' "$work/music.ics")" -gt 0 ] || fail "the filtered feed is empty"
cmp -s <(grep '^UID:' "$work/music.ics") <(grep '^UID:' "$work/music_view.ics") ||
    fail "filter = { categories = [\"music\"] } publishes other items than ?category=Music"

# get NAME QUERY: fetches /feeds/NAME.ics?QUERY into $work/out.ics (headers in $work/out.h); prints the status
get() {
    curl -s -D "$work/out.h" -o "$work/out.ics" -w '%{http_code}' "$base/feeds/$1.ics?$2"
}
header() { grep -i "^$1:" "$work/out.h" | head -1 | cut -d' ' -f2- | tr -d '\r'; }

# check QUERY: the view of pub for QUERY parses with both parsers and holds exactly what the plain feed
# says it must (the oracle below reads the plain feed, not the view builder's index).
check() {
    local code
    code=$(get pub "$1")
    [ "$code" = 200 ] || fail "?$1 answered $code"
    "$python" "$src/tests/python/check_ics.py" "$work/out.ics" >"$work/check.out" 2>&1 ||
        { cat "$work/check.out" >&2; fail "?$1 does not parse"; }
    "$python" - "$work/plain.ics" "$work/out.ics" "$1" <<'PY' || fail "?$1 has the wrong contents"
import datetime as dt, sys, urllib.parse
import icalendar

plain, view, query = sys.argv[1:]
q = urllib.parse.parse_qs(query)
def items(path):
    cal = icalendar.Calendar.from_ical(open(path, "rb").read())
    return [c for c in cal.walk() if c.name in ("VEVENT", "VTODO")]
def wall(v):  # the wall-clock time in the item's own zone
    v = v.dt
    return v.replace(tzinfo=None) if isinstance(v, dt.datetime) else dt.datetime(v.year, v.month, v.day)
def cats(c):
    raw = c.get("CATEGORIES")
    raw = raw if isinstance(raw, list) else [raw] if raw is not None else []
    return {str(x).lower() for r in raw for x in r.cats}
lo = hi = None
if "days" in q:
    lo = dt.datetime.combine(dt.datetime.now(dt.timezone.utc).date(), dt.time())
    hi = lo + dt.timedelta(days=int(q["days"][0]))
if "from" in q:
    lo = dt.datetime.fromisoformat(q["from"][0])
if "to" in q:
    hi = dt.datetime.fromisoformat(q["to"][0]) + dt.timedelta(days=1)
busy = q.get("detail") == ["busy"]
want = []
for c in items(plain):
    s = wall(c["DTSTART"])
    e = max(wall(c["DTEND"]), s) if "DTEND" in c else s
    if lo and not (e > lo or s >= lo):
        continue
    if hi and not s < hi:
        continue
    if "category" in q and not cats(c) & {x.lower() for x in q["category"]}:
        continue
    if busy and str(c.get("STATUS")) == "CANCELLED":
        continue
    want.append(str(c["UID"]))
got = items(view)
problems = []
if sorted(want) != sorted(str(c["UID"]) for c in got):
    problems.append("items %d, expected %d" % (len(got), len(want)))
alarms = [a for c in got for a in c.subcomponents if a.name == "VALARM"]
if q.get("alarm") == ["none"] or busy:
    if alarms:
        problems.append("%d reminders left" % len(alarms))
elif "alarm" in q:
    live = [c for c in got if str(c.get("STATUS")) != "CANCELLED"]
    if len(alarms) != len(live) or any(a["TRIGGER"].to_ical().decode() != "-PT30M" for a in alarms):
        problems.append("reminders are not one -PT30M per event")
if busy:
    for c in got:
        extra = set(c.keys()) - {"UID", "DTSTAMP", "DTSTART", "DTEND", "DUE", "TRANSP", "SUMMARY"}
        if extra or str(c["SUMMARY"]) != "Busy":
            problems.append("busy item %s keeps %s" % (c["UID"], sorted(extra)))
        # Its times, UID and TRANSP stay: a busy calendar still blocks the right hours.
        kept = {"UID", "DTSTART", "TRANSP"} | ({"DTEND"} if c.name == "VEVENT" else {"DUE"})
        source = next(p for p in items(plain) if str(p["UID"]) == str(c["UID"]))
        for k in kept & set(source.keys()):
            if c.get(k) is None or c[k].to_ical() != source[k].to_ical():
                problems.append("busy item %s lost or changed %s" % (c["UID"], k))
if problems:
    print("?%s: %s" % (query, "; ".join(problems)))
    sys.exit(1)
print("?%s: %d items ok" % (query, len(got)))
PY
}

# Each parameter alone, then together.
check "alarm=none"
check "alarm=30m"
check "days=30"
check "from=2026-12-01&to=2026-12-31"
check "from=2027-01-01"
check "category=Music"
check "category=music&category=Arts"
check "detail=busy"
check "detail=busy&category=Music&days=365"
check "alarm=30m&from=2026-12-01&to=2027-02-28&category=Science%20%26%20Technology"

# Every view has its own strong ETag; equal parameters in another order are the same view.
get pub "" >/dev/null
plain_etag=$(header ETag)
[ "$(get pub "alarm=none&days=30")" = 200 ] || fail "view not served"
etag_a=$(header ETag)
lm_a=$(header Last-Modified)
case $etag_a in \"*\") ;; *) fail "view ETag $etag_a is not strong" ;; esac
[ "$etag_a" != "$plain_etag" ] || fail "the view has the feed's ETag"
get pub "days=30&alarm=none&utm_source=app" >/dev/null
[ "$(header ETag)" = "$etag_a" ] || fail "the same view in another order has another ETag"
get pub "detail=busy" >/dev/null
etag_b=$(header ETag)
[ "$etag_b" != "$etag_a" ] || fail "two views share an ETag"

# 304 per view: its own ETag or Last-Modified; another view's ETag does not match.
code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag_a" "$base/feeds/pub.ics?alarm=none&days=30")
[ "$code" = 304 ] || fail "If-None-Match on the view answered $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag_a" "$base/feeds/pub.ics?detail=busy")
[ "$code" = 200 ] || fail "another view's ETag answered $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-Modified-Since: $lm_a" "$base/feeds/pub.ics?alarm=none&days=30")
[ "$code" = 304 ] || fail "If-Modified-Since on the view answered $code"

# HEAD: the headers of GET, no body. gzip: the same calendar compressed.
get pub "alarm=none" >/dev/null
len=$(header Content-Length)
curl -s -I -o "$work/head.h" "$base/feeds/pub.ics?alarm=none"
grep -qi "^Content-Length: $len" "$work/head.h" || fail "HEAD has another Content-Length"
grep -qi "^ETag: $(header ETag)" "$work/head.h" || fail "HEAD has another ETag"
curl -s -H 'Accept-Encoding: gzip' -D "$work/gz.h" -o "$work/view.gz" "$base/feeds/pub.ics?alarm=none"
grep -qi '^Content-Encoding: gzip' "$work/gz.h" || fail "the view is not gzipped for a client that asks"
gzip -dc "$work/view.gz" | cmp -s - "$work/out.ics" || fail "the gzip view is another calendar"

# Token feeds: views need the token like the feed; without it or with a wrong one, the same 404.
[ "$(get tok "token=view-secret-token-1&alarm=none&days=30")" = 200 ] || fail "token + view not served"
grep -q "BEGIN:VALARM" "$work/out.ics" && fail "token view kept reminders"
[ "$(get tok "token=view-secret-token-1&detail=busy")" = 200 ] || fail "token + busy not served"
grep -q "SUMMARY:Busy" "$work/out.ics" || fail "token + busy is not busy-only"
[ "$(get tok "alarm=none")" = 404 ] || fail "a view of a token feed without the token is not 404"
[ "$(get tok "token=wrong&alarm=none")" = 404 ] || fail "a view with a wrong token is not 404"
[ "$(get tok "token=wrong&alarm=soon")" = 404 ] || fail "a bad view with a wrong token is not 404"
grep -q "view-secret-token-1" "$work/serve.log" && fail "the token appears in the log"

# Invalid values: 400 with one line; unknown parameters alone are the plain feed.
for q in "alarm=soon" "from=yesterday" "detail=x" "days=0" "to=2026-13-01" "from=2026-12-02&to=2026-12-01"; do
    [ "$(get pub "$q")" = 400 ] || fail "?$q is not 400"
    [ "$(wc -l <"$work/out.ics")" = 1 ] || fail "?$q: the 400 is not one line"
done
[ "$(get tok "token=view-secret-token-1&alarm=soon")" = 400 ] || fail "a bad view with the token is not 400"
get pub "foo=bar&X-Calendar-App=1" >/dev/null
[ "$(header ETag)" = "$plain_etag" ] || fail "unknown parameters changed the feed"

# The cache in /metrics, and no token there.
curl -s "$base/metrics" >"$work/metrics"
for m in entries bytes hits_total misses_total evictions_total; do
    grep -q "^icsbridge_view_cache_$m " "$work/metrics" || fail "/metrics lacks icsbridge_view_cache_$m"
done
awk '$1 == "icsbridge_view_cache_entries" {exit !($2 >= 10)}' "$work/metrics" || fail "fewer cached views than asked for"
awk '$1 == "icsbridge_view_cache_hits_total" {exit !($2 >= 3)}' "$work/metrics" || fail "no cache hits counted"
grep -q "view-secret-token-1" "$work/metrics" && fail "the token appears in /metrics"
echo "views_e2e: ok"
