#!/usr/bin/env bash
# File: webpush_e2e.sh
# WebDAV-Push delivery with the real `icsbridge serve` ([dav] push_allow_private = true, as the push service is
# on loopback), the fake upstream, and a Web Push service that is not ours (tests/support/webpush_receiver.py:
# it decrypts every message with the subscription's private key and verifies the VAPID JWT). Registered over
# HTTP as DAVx⁵ does (POST push-register on the collection). A webhook → a message that decrypts to the topic
# and the new sync-token, and a sync-collection with the previous token lists exactly the change; a 410 ends
# the registration; a redirect is not followed; a registration asking for a 5 s expiry hears of a change before
# it and of none after it (then DELETE is 404); a burst of 50 hooks → at most one message a second, the last
# with the newest token; /metrics and /healthz count it all; a restart keeps the registrations; no log or
# page shows a key or a JWT.
#   webpush_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
fail_logs="serve.log receiver.log"
init_work
need_python_module jwt python3-jwt
need_python_module caldav python3-caldav

secret=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
admin=admin-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
cp -r "$src/tests/fixtures/upstream" "$work/data"
changed_fixtures "$src" "$work/changed"
start_fake_upstream "$fake" "$work" "$work/data"

start_webpush_receiver "$src" "$work/receiver.out"

export TEST_HOOK_SECRET=$secret
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0" "admin_token = \"$admin\"")

[dav]
push = true
push_subject = "mailto:ops@example.org"
push_allow_private = true

$(events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')

$(organizer_feed_toml pub 'title = "Public meetups"')
TOML
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics

# The client side (tests/support/webpush_client.py): the push service's test endpoints, the registration
# (DAVx⁵'s body), the collection's sync token and a sync-collection (python3-caldav).
cp "$src/tests/support/webpush_client.py" "$work/client.py"

# py NAME: runs the python on stdin with client.py's names; its output to $work/NAME.out.
py() {
    (cd "$work" && /usr/bin/python3 - "$base" "$push" "$work" >"$work/$1.out" 2>"$work/$1.err") ||
        fail "python ($1): $(tail -5 "$work/$1.err")"
}

# 1. Registrations: s1 takes messages, s2's push service answers 410, s3's redirects to s4.
py register <<'PY'
from client import *
subs = [new_sub() for _ in range(4)]
for s in subs[:3]:
    register(s)
answer("s2", "status=410")
answer("s3", "status=307&location=" + subs[3]["push_resource"])
print(sync_token())
for s in subs:
    print(s["p256dh"])
    print(s["auth"])
PY
before=$(sed -n 1p "$work/register.out")
[ -n "$before" ] || fail "no sync token before the change"

# 2. A change upstream and its webhook: one message to s1 that decrypts to the topic and the new token; the
# previous token lists exactly the change; 410 ends s2; the redirect gets no follow.
hook() {
    curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=788216780592&to=$base/hooks/eb/$secret"
}
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
[ "$(hook)" = '{"status":202}' ] || fail "the hook was not accepted"
py first <<PY
from client import *
m = wait_messages("s1", 1)[0]
topic, token = parse(m)
assert m["topic"] == topic and len(topic) == 22, (m["topic"], topic)
assert m["urgency"] == "normal" and m["ttl"] == "86400", m
assert m["claims"]["aud"] == push and m["claims"]["sub"] == "mailto:ops@example.org", m["claims"]
assert token != "$before", token
objs = list(calendar().objects_by_sync_token(sync_token="$before", load_objects=True))
assert len(objs) == 1 and "MOVED" in objs[0].data, [o.url for o in objs]
assert sync_token() == token, (sync_token(), token)
time.sleep(1.5)
assert [r["status"] for r in refused("s2")] == [410], refused("s2")
assert [r["status"] for r in refused("s3")] == [307], refused("s3")
assert messages("s4") == [] and refused("s4") == [], "the redirect was followed"
assert len(messages("s1")) == 1, messages("s1")
print(token)
PY
echo "a change: one message, topic and token $(cat "$work/first.out") check out; 410 and 307 answered once"

# 3. Another change: s1 hears of it, s2 (removed by its 410) gets nothing more, s3 (a redirect only drops the
# message) is tried again.
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
[ "$(hook)" = '{"status":202}' ] || fail "the second hook was not accepted"
py second <<'PY'
from client import *
m = wait_messages("s1", 2)[1]
assert parse(m)[1] == sync_token()
time.sleep(1.5)
assert len(refused("s2")) == 1, refused("s2")
assert len(refused("s3")) == 2, refused("s3")
PY

# 3b. Expiry: s5 asks for 5 s. A change before then reaches it; a change after it reaches s1 alone, and its
# registration is gone (DELETE answers 404).
py expiry_registered <<'PY'
from client import *
s5 = new_sub()
expires = int(time.time()) + 5
print(register(s5, expires=expires), expires, len(messages("s1")))
PY
read -r s5_location s5_expires s1_before <"$work/expiry_registered.out"
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
[ "$(hook)" = '{"status":202}' ] || fail "the hook before the expiry was not accepted"
py expiry_before <<PY
from client import *
m = wait_messages("s5", 1)[0]
assert parse(m)[1] == sync_token(), "s5's message does not carry the newest token"
assert m["at"] < $s5_expires, ("the message came after the expiry", m["at"], $s5_expires)
wait_messages("s1", $s1_before + 1)
PY
while [ "$(date +%s)" -le "$s5_expires" ]; do sleep 0.2; done
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
[ "$(hook)" = '{"status":202}' ] || fail "the hook after the expiry was not accepted"
py expiry_after <<PY
from client import *
m = wait_messages("s1", $s1_before + 2)[-1]
assert parse(m)[1] == sync_token()
time.sleep(1.5)
assert len(messages("s5")) == 1, ("a message after the expiry", messages("s5"))
assert refused("s5") == [], refused("s5")
assert call("DELETE", base + "$s5_location")[0] == 404, "the expired registration can still be deleted"
PY
echo "an expiry of 5 s: a message before it, none after it, DELETE 404"

# 4. A burst of 50 hooks, the upstream changing between them: at most one message a second, the last with the
# collection's newest token.
publications() { grep -c 'feed pub: .* changed' "$work/serve.log"; }
published_before=$(publications)
py burst <<PY
from client import *
import urllib.request
start = len(messages("s1"))
t0 = time.time()
# The calendar flips every 4th hook (about every 0.6 s, past the 500 ms hook delay), so the hooks' event reads
# publish a change several times a second's worth whatever the machine's speed; it starts on, and ends on, the
# changed calendar (the step before left the other). The last message is awaited up to 20 s after the burst.
for i in range(50):
    if i % 4 == 0:
        d = "$work/changed" if (i // 4) % 2 == 0 else "$work/data"
        call("POST", "$upstream/__control/reload?dir=" + d)
    call("POST", "$upstream/__control/send_hook?action=event.updated&event=788216780592&to=$base/hooks/eb/$secret")
    time.sleep(0.15)
burst = time.time() - t0
time.sleep(1)
got = []
while time.time() - t0 < burst + 20:
    got = messages("s1")[start:]
    if got and parse(got[-1])[1] == sync_token():
        break
    time.sleep(0.5)
ats = [m["at"] for m in got]
gaps = [b - a for a, b in zip(ats, ats[1:])]
assert got, "no message after the burst"
assert all(g >= 0.9 for g in gaps), gaps  # so at most one message a second, however many hooks
assert parse(got[-1])[1] == sync_token(), "the last message does not carry the newest token"
print(len(got), round(burst, 1), [round(g, 2) for g in gaps])
PY
published=$(($(publications) - published_before))
[ "$published" -ge 3 ] || fail "the burst made only $published publication(s): nothing to coalesce"
echo "a burst of 50 hooks: $published publications, messages/seconds/gaps: $(cat "$work/burst.out")"

# 5. /metrics and /healthz count it; no log or page shows a key, an auth secret or a JWT.
curl -s -H "Authorization: Bearer $admin" "$base/metrics" >"$work/metrics.txt"
curl -s -H "Authorization: Bearer $admin" "$base/healthz" >"$work/healthz.json"
grep -q '^icsbridge_dav_push_messages_total{outcome="removed"} 1$' "$work/metrics.txt" || fail "removed is not 1"
grep -q '^icsbridge_dav_push_messages_total{outcome="dropped"} [1-9]' "$work/metrics.txt" || fail "nothing dropped"
grep -q '^icsbridge_dav_push_delivery_seconds_count [1-9]' "$work/metrics.txt" || fail "no delivery latency"
/usr/bin/python3 -c "
import json, sys
w = json.load(open('$work/healthz.json'))['webpush']
assert w['sent'] >= 3 and w['removed'] == 1 and w['dropped'] >= 2, w
" || fail "/healthz webpush: $(cat "$work/healthz.json")"
stop_icsbridge
mv "$work/serve.log" "$work/serve1.log"

# 6. A restart keeps the registrations: the next change reaches s1 again (and s2, removed, stays gone).
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds pub.ics
py restarted_before <<'PY'
from client import *
print(len(messages("s1")))
PY
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null # the burst ended on changed
[ "$(hook)" = '{"status":202}' ] || fail "the hook after the restart was not accepted"
py restarted <<PY
from client import *
n = $(cat "$work/restarted_before.out")
m = wait_messages("s1", n + 1)[n]
assert parse(m)[1] == sync_token(), "the message after the restart does not carry the newest token"
assert len(refused("s2")) == 1, refused("s2")
PY
echo "after a restart: the registration is still there and hears of the next change"
stop_icsbridge
cat "$work/serve1.log" >>"$work/serve.log"

for k in $(sed -n '2,$p' "$work/register.out"); do
    grep -qF -- "$k" "$work/serve.log" && fail "a subscription key shows in the log"
done
grep -q 'vapid t=\|eyJ' "$work/serve.log" "$work/metrics.txt" "$work/healthz.json" &&
    fail "a VAPID token shows in the log or a page"
grep -q "push/s1" "$work/serve.log" && fail "a push resource's path shows in the log"
echo "webpush_e2e: ok"
