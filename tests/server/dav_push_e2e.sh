#!/usr/bin/env bash
# File: dav_push_e2e.sh
# WebDAV-Push registration over real sockets (issue 37), with a client as DAVx⁵ behaves
# (tests/support/dav_push_client.py: an XML parser, a real P-256 key from python3-cryptography): the
# collection advertises transports (the VAPID key, a P-256 point), supported-triggers and a topic, OPTIONS
# says webdav-push; a registration is 201 with Location and Expires (at most 7 days), the same push resource
# again 204 at the same Location; a token feed takes only its subscriber's Basic login; malformed XML 400, a
# loopback, private or localhost push resource and plain http 403 invalid-subscription (and the server serves
# on), accepted with [dav] push_allow_private = true (step 7). /healthz (admin) and /metrics
# count them; a restart keeps them (the 0600 journal under storage.dir/webpush/), a reload that rotates the
# subscriber's token ends theirs, DELETE of the Location ends one (then 404). With [dav] push = false: no
# advertisement, and a registration is 403 push-not-available.
#   dav_push_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
init_work
need_python_module cryptography python3-cryptography

admin=adm-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
config() { # config ALICE_TOKEN [DAV_LINE...]
    cat <<TOML
$(server_toml "$work/state" "127.0.0.1:0" "admin_token = \"$admin\"")

[dav]
push_subject = "mailto:ops@example.org"
${*:2}

$(events_source_toml "$upstream" 'timeout = "5s"')

$(organizer_feed_toml pub 'title = "Public meetups"')

$(organizer_feed_toml team "tokens = { alice = \"$1\", bob = \"bob-tok-2\" }" 'title = "Team meetups"')
TOML
}
config alice-tok-1 >"$work/serve.toml"
client() { /usr/bin/python3 "$src/tests/support/dav_push_client.py" "$@" 2>>"$work/client.log"; }
admin_count() { # admin_count [FEED]: registrations /healthz shows to the admin (in all, or the feed's)
    curl -s -H "Authorization: Bearer $admin" "$base/healthz" | /usr/bin/python3 -c '
import json, sys
push = json.load(sys.stdin).get("push", {})
print(push.get("feeds", {}).get(sys.argv[1], 0) if len(sys.argv) > 1 else push.get("registrations", "none"))' "$@"
}

start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics "team.ics?token=alice-tok-1"

# 1. The advertisement, read with an XML parser.
ad=$(client advertise "$base/dav/feeds/pub/") || fail "advertise: $(tail -5 "$work/client.log")"
/usr/bin/python3 - "$ad" <<'PY' || fail "the advertisement is wrong: $ad"
import base64, json, sys
ad = json.loads(sys.argv[1])
assert "webdav-push" in ad["dav"], ad
point = base64.urlsafe_b64decode(ad["vapid"] + "=" * (-len(ad["vapid"]) % 4))
assert len(point) == 65 and point[0] == 4, "the VAPID key is no uncompressed P-256 point"
from cryptography.hazmat.primitives.asymmetric import ec
ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
assert ad["vapid_type"] == "p256ecdsa" and ad["depth"] == "1", ad
assert len(base64.urlsafe_b64decode(ad["topic"] + "==")) == 16, ad
PY
team_ad=$(client advertise "$base/dav/feeds/team/" alice alice-tok-1)
[ "$(echo "$ad" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["topic"])')" != \
  "$(echo "$team_ad" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["topic"])')" ] ||
    fail "two collections have one topic"
echo "advertised: $ad"

# 2. Register, then the same push resource again.
read -r status location expires <<<"$(client register "$base/dav/feeds/pub/" https://push.example.net/wpush/v2/abc)"
[ "$status" = 201 ] || fail "a registration answered $status, not 201"
case $location in /dav/push/*) ;; *) fail "Location is $location" ;; esac
/usr/bin/python3 - "$(client register "$base/dav/feeds/pub/" https://push.example.net/wpush/v2/abc)" "$location" <<'PY' || fail "registering again is not an update"
import sys
status, location, expires = sys.argv[1].split(" ", 2)
assert status == "204" and location == sys.argv[2], sys.argv[1]
from email.utils import parsedate_to_datetime
import datetime
left = parsedate_to_datetime(expires) - datetime.datetime.now(datetime.timezone.utc)
assert datetime.timedelta(days=6, hours=23) < left <= datetime.timedelta(days=7, seconds=5), left
PY
[ "$(admin_count pub)" = 1 ] || fail "/healthz counts $(admin_count pub) registrations on pub, not 1"

# 3. A token feed: only its subscriber's login registers.
read -r status _ <<<"$(client register "$base/dav/feeds/team/" https://push.example.net/t)"
[ "$status" = 401 ] || fail "an anonymous registration on a token feed answered $status, not 401"
read -r status _ <<<"$(client register "$base/dav/feeds/team/" https://push.example.net/t alice wrong)"
[ "$status" = 401 ] || fail "a wrong password answered $status, not 401"
read -r status _ <<<"$(client register "$base/dav/feeds/team/" https://push.example.net/t alice alice-tok-1)"
[ "$status" = 201 ] || fail "alice's registration answered $status, not 201"
read -r status _ <<<"$(client register "$base/dav/feeds/team/" https://push.example.net/b bob bob-tok-2)"
[ "$status" = 201 ] || fail "bob's registration answered $status, not 201"

# 4. Refusals.
printf '<push-register xmlns="https://bitfire.at/webdav-push"><subscription>' >"$work/malformed.xml"
[ "$(client post "$base/dav/feeds/pub/" "$work/malformed.xml")" = "400 -" ] || fail "malformed XML is not 400"
# Without push_allow_private: loopback (our own port too), private, link-local, CGNAT, unique-local and
# IPv4-mapped addresses, localhost and plain http are 403 with the draft's precondition, and nothing else
# changes: the feed still serves and the count stays.
refused_resources="https://127.0.0.1:${base##*:}/dav/feeds/pub/ https://127.0.0.1:9/x https://[::1]/x
    https://10.0.0.1/x https://10.1.2.3/x https://192.168.1.1/x https://169.254.169.254/x https://100.64.0.1/x
    https://[fd00::1]/x https://[fe80::1]/x https://[::ffff:127.0.0.1]/x https://[::ffff:10.0.0.1]/x
    https://localhost/x https://LocalHost./x http://push.example.net/x"
for resource in $refused_resources; do
    answer=$(client refusal "$base/dav/feeds/pub/" "$resource")
    [ "$answer" = "403 invalid-subscription" ] || fail "$resource answered $answer, not 403 invalid-subscription"
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/feeds/pub.ics")" = 200 ] || fail "pub.ics is not served after the refusals"
[ "$(admin_count)" = 3 ] || fail "/healthz counts $(admin_count) registrations, not 3"
curl -s "$base/metrics" | grep -q '^icsbridge_dav_push_registrations 3$' || fail "/metrics does not count 3 registrations"
curl -s "$base/metrics" | grep -q 'icsbridge_dav_push_feed_registrations{feed="team"}' &&
    fail "/metrics names a token feed to anyone"
echo "registered: 201 then 204, token feed by its subscriber only, refusals 400/401/403"

# 5. A restart keeps them; a reload that rotates alice's token ends hers; DELETE ends one.
stop_icsbridge
journal="$work/state/webpush/registrations"
[ "$(stat -c %a "$journal")" = 600 ] || fail "the registrations file is not owner-only"
grep -q alice-tok-1 "$journal" && fail "a token is in the registrations file"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve2.log"
[ "$(admin_count)" = 3 ] || fail "after a restart /healthz counts $(admin_count) registrations, not 3"
config alice-tok-NEW >"$work/serve.toml"
kill -HUP "$serve_pid"
for _ in $(seq 1 50); do [ "$(admin_count team)" = 1 ] && break; sleep 0.1; done
[ "$(admin_count team)" = 1 ] || fail "after alice's token changed, team has $(admin_count team) registrations, not bob's alone"
[ "$(client delete "$base$location")" = 204 ] || fail "DELETE of the registration is not 204"
[ "$(client delete "$base$location")" = 404 ] || fail "DELETE again is not 404"
[ "$(admin_count pub)" = 0 ] || fail "the deleted registration is still counted"
stop_icsbridge
echo "kept across a restart, ended by a token's rotation and by DELETE"

# 6. [dav] push = false: nothing advertised, a registration 403 push-not-available.
config alice-tok-1 'push = false' >"$work/serve.toml"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve3.log"
wait_for_feeds pub.ics
client advertise "$base/dav/feeds/pub/" | grep -q '"vapid": null' || fail "push = false still advertises"
/usr/bin/python3 - "$src" >"$work/ok.xml" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/tests/support")
import dav_push_client
sys.stdout.write(dav_push_client.register_body("https://push.example.net/x").decode())
PY
[ "$(client post "$base/dav/feeds/pub/" "$work/ok.xml")" = "403 push-not-available" ] ||
    fail "with push = false a registration is not 403 push-not-available"
stop_icsbridge

# 7. With the test switch ([dav] push_allow_private = true) the same push resources are accepted, and serve says
# in its log that this is for tests only.
config alice-tok-1 'push_allow_private = true' >"$work/serve.toml"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve4.log"
wait_for_feeds pub.ics
for resource in $refused_resources; do
    read -r status _ <<<"$(client register "$base/dav/feeds/pub/" "$resource")"
    [ "$status" = 201 ] || fail "with push_allow_private, $resource answered $status, not 201"
done
grep -q 'push_allow_private = true.*for tests only' "$work/serve4.log" || fail "the test switch is not warned of"
stop_icsbridge
grep -q -e "$admin" -e alice-tok -e 'BEGIN PRIVATE' "$work"/serve*.log && fail "a secret is in the log"
echo ok
