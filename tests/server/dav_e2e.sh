#!/usr/bin/env bash
# File: dav_e2e.sh
# The CalDAV collections with the real `icsbridge serve`, the fake upstream and python3-caldav: discovery from
# /.well-known/caldav, the calendar list (public feeds only), every event equal to the feed's; after an
# upstream change and its webhook, objects_by_sync_token() returns exactly the changed event. A subscriber's
# principal (/dav/users/NAME/, Basic: name and token) shows the token feeds that login opens, events equal;
# a wrong password 401. Then the refusals over real sockets: a token feed and an unknown one 401 to anonymous,
# writes 403, Depth infinity on the home 403, a 10 MB body 413, a 4 KB sync token 403 valid-sync-token,
# PROPFIND / 308 to /dav/. The initial listing of all items streamed (chunked; to HTTP/1.0 up to the close),
# and an item's If-None-Match 304.
#   dav_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/support/sh/dav_fixtures.sh"
init_work

dav_upstream
dav_config "$(organizer_feed_toml pub 'title = "Public meetups"')" \
    "$(organizer_feed_toml priv 'token = "tok-secret-1"' 'title = "Private meetups"')" \
    "$(organizer_feed_toml team 'tokens = { alice = "alice-tok-1", bob = "bob-tok-2" }' 'title = "Team meetups"')"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics "priv.ics?token=tok-secret-1" "team.ics?token=alice-tok-1"
[ -n "$(etag_of "$base")" ] || fail "the feed was not served"
curl -s "$base/feeds/pub.ics" >"$work/pub.ics"

# 1. python3-caldav: discovery, the list, the events, a sync token.
/usr/bin/python3 - "$base" "$work" <<'PY' >"$work/first.out" 2>"$work/caldav.log" || fail "python3-caldav (first pass): $(tail -5 "$work/caldav.log")"
import sys, caldav, icalendar
base, work = sys.argv[1], sys.argv[2]
client = caldav.DAVClient(url=base + "/.well-known/caldav")
cals = client.principal().calendars()
names = sorted(c.name for c in cals)
assert names == ["Public meetups"], names
cal = cals[0]
feed = icalendar.Calendar.from_ical(open(work + "/pub.ics", "rb").read())
want = {str(e["UID"]): e.to_ical() for e in feed.walk("VEVENT")}
got = {}
for ev in cal.events():
    for e in icalendar.Calendar.from_ical(ev.data).walk("VEVENT"):
        got[str(e["UID"])] = e.to_ical()
assert set(got) == set(want), (sorted(set(got) ^ set(want)))
for uid in want:
    assert got[uid] == want[uid], uid
objs = cal.objects_by_sync_token(load_objects=False)
assert len(list(objs)) == len(want), len(list(objs))
print(objs.sync_token)
print(cal.url)
print(len(want))
PY
token=$(sed -n 1p "$work/first.out")
cal_url=$(sed -n 2p "$work/first.out")
echo "python3-caldav: $(sed -n 3p "$work/first.out") events equal to the feed's; token $token"

# 2. Subscribers: python3-caldav at a subscriber's principal (it sends the login only after the 401) lists the
# public feeds and the token feeds that login opens, each event equal to the token feed's; a wrong password,
# another subscriber's token, and anonymous requests for a token feed are refused with 401.
curl -s "$base/feeds/priv.ics?token=tok-secret-1" >"$work/priv.ics"
/usr/bin/python3 - "$base" "$work" <<'PY' >"$work/third.out" 2>>"$work/caldav.log" || fail "python3-caldav (subscribers): $(tail -5 "$work/caldav.log")"
import sys, caldav, icalendar
from caldav.lib.error import AuthorizationError
base, work = sys.argv[1], sys.argv[2]
def calendars(user, password):
    client = caldav.DAVClient(url=base + "/dav/users/%s/" % user, username=user, password=password)
    return {c.name: c for c in client.principal().calendars()}
cals = calendars("subscriber", "tok-secret-1")
assert sorted(cals) == ["Private meetups", "Public meetups"], sorted(cals)
priv = cals["Private meetups"]
assert str(priv.url).endswith("/dav/users/subscriber/feeds/priv/"), priv.url
feed = icalendar.Calendar.from_ical(open(work + "/priv.ics", "rb").read())
want = {str(e["UID"]): e.to_ical() for e in feed.walk("VEVENT")}
got = {}
for ev in priv.events():
    for e in icalendar.Calendar.from_ical(ev.data).walk("VEVENT"):
        got[str(e["UID"])] = e.to_ical()
assert got == want, sorted(set(got) ^ set(want))
assert len(list(priv.objects_by_sync_token(load_objects=False))) == len(want)
alice = calendars("alice", "alice-tok-1")
assert sorted(alice) == ["Public meetups", "Team meetups"], sorted(alice)
for user, password in [("subscriber", "wrong"), ("alice", "bob-tok-2"), ("bob", "alice-tok-1"), ("alice", "tok-secret-1")]:
    try:
        calendars(user, password)
    except AuthorizationError:
        continue
    raise AssertionError("%s got in with a wrong password" % user)
for path in ["/dav/feeds/priv/", "/dav/feeds/team/", "/dav/feeds/nothing/"]:
    cal = caldav.Calendar(client=caldav.DAVClient(url=base + path), url=base + path)
    try:
        cal.events()
    except AuthorizationError:
        continue
    raise AssertionError("anonymous got into " + path)
print(len(want))
PY
echo "python3-caldav: a subscriber's principal shows the token feed ($(cat "$work/third.out") events equal to its .ics)"

# 3. A change upstream and its webhook: the next sync returns exactly that event.
publish_change
/usr/bin/python3 - "$cal_url" "$token" <<'PY' >"$work/second.out" 2>>"$work/caldav.log" || fail "python3-caldav (sync): $(tail -5 "$work/caldav.log")"
import sys, caldav
url, token = sys.argv[1], sys.argv[2]
cal = caldav.Calendar(client=caldav.DAVClient(url=url), url=url)
objs = list(cal.objects_by_sync_token(sync_token=token, load_objects=True))
assert len(objs) == 1, [o.url for o in objs]
assert "MOVED" in objs[0].data, objs[0].data
again = cal.objects_by_sync_token(sync_token=token)
later = cal.objects_by_sync_token(sync_token=again.sync_token)
assert len(list(later)) == 0
print("one changed item:", objs[0].url)
PY
cat "$work/second.out"

# 4. The refusals, over real sockets.
status() { curl -s -o "$work/answer" -w '%{http_code}' "$@"; }
[ "$(status "$base/.well-known/caldav")" = 308 ] || fail "/.well-known/caldav is not a 308"
[ "$(curl -s -o /dev/null -w '%{redirect_url}' "$base/.well-known/caldav")" = "$base/dav/" ] || fail "308 not to /dav/"
for feed in priv nothing; do
    [ "$(status -X PROPFIND -H 'Depth: 0' "$base/dav/feeds/$feed/")" = 401 ] || fail "/dav/feeds/$feed/ is not 401"
done
curl -s -D - -o /dev/null -X PROPFIND "$base/dav/feeds/priv/" | grep -qi '^WWW-Authenticate: Basic realm="icsbridge"' ||
    fail "no Basic challenge"
[ "$(status -X PUT --data-binary x "$base/dav/feeds/pub/x.ics")" = 403 ] || fail "PUT is not 403"
grep -q need-privileges "$work/answer" || fail "PUT's 403 does not say need-privileges"
[ "$(status -X PROPFIND -H 'Depth: infinity' "$base/dav/feeds/")" = 403 ] || fail "Depth infinity on the home is not 403"
head -c 10000000 /dev/zero | tr '\0' ' ' >"$work/big.xml"
[ "$(status -X REPORT -H 'Content-Type: application/xml' --data-binary "@$work/big.xml" "$base/dav/feeds/pub/")" = 413 ] ||
    fail "a 10 MB body is not 413"
long=$(head -c 4096 /dev/zero | tr '\0' 'a')
[ "$(status -X REPORT --data-binary "<sync-collection xmlns=\"DAV:\"><sync-token>$long</sync-token><prop><getetag/></prop></sync-collection>" \
    "$base/dav/feeds/pub/")" = 403 ] || fail "a 4 KB sync token is not 403"
grep -q valid-sync-token "$work/answer" || fail "the 403 does not say valid-sync-token"
[ "$(status -X OPTIONS "$base/dav/feeds/pub/")" = 200 ] || fail "OPTIONS"
for login in "" "-u subscriber:wrong" "-u alice:tok-secret-1"; do
    # shellcheck disable=SC2086 # the login is two words or none
    [ "$(status $login -X PROPFIND -H 'Depth: 0' "$base/dav/users/subscriber/")" = 401 ] ||
        fail "the principal let '${login%%:*}' in"
    grep -q "tok-secret-1\|alice-tok-1" "$work/answer" && fail "a token is in an answer"
done
[ "$(status -u subscriber:tok-secret-1 -X PROPFIND -H 'Depth: 0' "$base/dav/feeds/priv/")" = 207 ] ||
    fail "/dav/feeds/priv/ with the subscriber's login is not 207"
curl -s -D - -o /dev/null -X OPTIONS "$base/dav/" | grep -qi '^DAV: 1, 3, calendar-access' || fail "no DAV header"
[ "$(status -X PROPFIND -H 'Depth: 0' "$base/")" = 308 ] || fail "PROPFIND / is not a 308"
[ "$(curl -s -o /dev/null -w '%{redirect_url}' -X PROPFIND "$base/")" = "$base/dav/" ] || fail "PROPFIND / not to /dav/"

# 5. An item's If-None-Match; the initial listing of all items streamed: HTTP/1.1 chunks, an HTTP/1.0 client
# up to the close, the same bytes.
sync_all='<sync-collection xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><sync-token/><sync-level>1</sync-level><prop><getetag/><C:calendar-data/></prop></sync-collection>'
curl -s -D "$work/chunked.head" -o "$work/chunked.xml" -X REPORT -H 'Depth: 1' --data-binary "$sync_all" "$base/dav/feeds/pub/"
tr -d '\r' <"$work/chunked.head" | grep -qi '^transfer-encoding: chunked' || fail "the initial listing is not streamed in chunks"
tr -d '\r' <"$work/chunked.head" | grep -qi '^content-length' && fail "a streamed listing has a Content-Length"
curl -s --http1.0 -D "$work/old.head" -o "$work/old.xml" -X REPORT -H 'Depth: 1' --data-binary "$sync_all" "$base/dav/feeds/pub/"
tr -d '\r' <"$work/old.head" | grep -qi '^transfer-encoding' && fail "an HTTP/1.0 client was sent chunks"
cmp -s "$work/chunked.xml" "$work/old.xml" || fail "the HTTP/1.0 listing differs from the chunked one"
tail -c 20 "$work/chunked.xml" | grep -q '</multistatus>' || fail "the streamed listing is cut short"
items=$(grep -o '<response>' "$work/chunked.xml" | wc -l)
[ "$items" -gt 32 ] || fail "the fixture's $items items are too few to be streamed"
[ "$items" = "$(tr -d '\r' <"$work/pub.ics" | grep '^UID:' | sort -u | wc -l)" ] || fail "the streamed listing has $items items"
href=$(grep -o '<response><href>[^<]*' "$work/chunked.xml" | head -1 | sed 's/<response><href>//')
item_etag=$(curl -s -D - -o /dev/null "$base$href" | tr -d '\r' | grep -i '^etag:' | cut -d' ' -f2)
[ -n "$item_etag" ] || fail "an item has no ETag"
[ "$(status -H "If-None-Match: $item_etag" "$base$href")" = 304 ] || fail "If-None-Match on an item is not 304"
[ "$(status -H 'If-None-Match: "other"' "$base$href")" = 200 ] || fail "another ETag is not 200"
grep -q '^BEGIN:VCALENDAR' "$work/answer" || fail "GET of an item is not its VCALENDAR"
[ "$(curl -s -o /dev/null -w '%{size_download}' -I "$base$href")" = 0 ] || fail "HEAD of an item sends a body"
echo "streamed: $items items, chunked and to HTTP/1.0 alike; If-None-Match 304"
grep -q "tok-secret-1\|alice-tok-1\|$(printf 'subscriber:tok-secret-1' | base64 -w0)\|$secret" "$work/serve.log" &&
    fail "a secret is in the log"
stop_icsbridge
echo ok
