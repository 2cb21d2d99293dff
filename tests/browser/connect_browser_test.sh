#!/usr/bin/env bash
# File: connect_browser_test.sh
# The self-serve connect flow (issue 27) driven in headless Chromium, as a subscriber would: the agenda page
# of a token feed → "Keep my Google Calendar in sync" → the fake Google's consent page (Allow, for the
# account ana@example.org) → the person's own page (/connections/ID?key=…) saying "In sync" with the feed's
# events in a calendar named after the feed in that account, within seconds → a change upstream (webhook)
# reaches that calendar within seconds → Disconnect with "also delete the calendar" → the calendar is gone
# and the grant revoked at Google. Then Cancel at the consent page connects nothing. Screenshots at phone
# and desktop width of the agenda page, the consent page and the person's page go to BUILD_DIR/screens.
# Exit 77 (CTest skip) without chromium or python3-websocket, unless ICSBRIDGE_REQUIRE_ALL=1 (deploy/test.sh).
#   connect_browser_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
fake=$2
src=$3
out=$4/screens
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
test_name=connect_browser
fail_logs="serve.log fake-google.log fake-google.err chromium.log flow.out"
need_chromium
need_python_module websocket python3-websocket
init_work
mkdir -p "$out"

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
start_connect_fake google
export TEST_HOOK_SECRET=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:$port" "public_url = \"$public\"")
$(events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')

$(organizer_feed_toml club 'title = "Club nights"' 'tokens = { ana = "club-token-ana-0123456789" }')

[connect]
key_file = "$work/connect.key"
google = { client_id = "test-client", client_secret_env = "TEST_CLIENT_SECRET", api_base = "$api_base", auth_url = "$auth_url", token_url = "$token_url", revoke_url = "$fake_api_url/oauth/revoke" }
TOML
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds "club.ics?token=club-token-ana-0123456789"

# The flow, in the browser. Prints the person's page URL on its last line.
$python - "$src" "$public" "$fake_api_url" "$out" "$work" >"$work/flow.out" 2>&1 <<'PY' || fail "the browser flow failed: $(tail -5 "$work/flow.out")"
import json, sys, time, urllib.request
src, public, fake, out, work = sys.argv[1:6]
sys.path.insert(0, src + "/tests/support")
from cdp import Browser

def shots(b, name):
    b.screenshot(f"{out}/connect_{name}_phone.png", 390, 844, mobile=True)
    b.screenshot(f"{out}/connect_{name}_desktop.png", 1280, 800)

def accounts():
    return json.load(urllib.request.urlopen(fake + "/_fake/accounts"))

with Browser(log_path=work + "/chromium.log") as b:
    b.goto(public + "/feeds/club.html?token=club-token-ana-0123456789&days=3650")
    assert b.status_of_last_navigation() == 200, b.status_of_last_navigation()
    shots(b, "agenda")
    b.click("#connect-google")
    b.wait_for_url(fake + "/oauth/authorize")
    shots(b, "consent")
    b.fill("#account", "ana@example.org")
    b.click("#allow")
    page = b.wait_for_url(public + "/connections/", timeout=30)
    assert "key=" in page, page
    # The first push: the calendar named after the feed, in ana's account, holds the feed's events.
    deadline = time.time() + 30
    while time.time() < deadline:
        b.goto(page)
        if b.text("#status") == "In sync":
            break
        time.sleep(0.5)
    assert b.text("#status") == "In sync", b.text("#status")
    shots(b, "manage")
    print(page)
PY
page=$(tail -1 "$work/flow.out")
case "$page" in "$public/connections/"*) ;; *) fail "no management page URL: $page" ;; esac

# ana's account has the calendar "Club nights" with exactly the feed's events (python3-icalendar's UIDs).
curl -s -o "$work/club.ics" "$public/feeds/club.ics?token=club-token-ana-0123456789"
want=$($python -c '
import sys, icalendar
c = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
print(len({str(e["UID"]) for e in c.walk("VEVENT")}))' "$work/club.ics")
got=$(fake_state 'len(ours(cal("Club nights \u2014 next 3650 days")))' account=ana@example.org)
[ "$got" = "$want" ] || fail "ana's \"Club nights\" holds $got of our events, not the feed's $want"
[ "$(fake_state 'len(d["calendars"])')" = 1 ] || fail "the default account got a calendar too"

# A change upstream, announced by the webhook, is in ana's calendar within seconds.
changed_fixtures "$src" "$work/data"
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=788216780592&to=$public/hooks/eb/$TEST_HOOK_SECRET" >/dev/null
t0=$(date +%s%N)
for _ in $(seq 1 100); do
    n=$(fake_state 'sum(1 for e in ours(cal("Club nights \u2014 next 3650 days")) if "MOVED" in e.get("summary", ""))' account=ana@example.org)
    [ "$n" = 1 ] && break
    sleep 0.1
done
[ "$n" = 1 ] || fail "the renamed event did not reach ana's calendar within 10 s"
echo "webhook to ana's calendar: $(( ($(date +%s%N) - t0) / 1000000 )) ms"

# Disconnect, ticking "also delete the calendar": the calendar is gone, the grant revoked, the page 404.
$python - "$src" "$page" "$work" "$fake_api_url" >>"$work/flow.out" 2>&1 <<'PY' || fail "disconnecting in the browser failed: $(tail -5 "$work/flow.out")"
import sys
src, page, work, fake = sys.argv[1:5]
sys.path.insert(0, src + "/tests/support")
from cdp import Browser
with Browser(log_path=work + "/chromium.log") as b:
    b.goto(page)
    b.click("#delete_calendar")
    b.click("#disconnect")
    b.wait_for(".card, h1")
    assert b.status_of_last_navigation() == 200, b.status_of_last_navigation()
    assert "Disconnected" in b.text("h1"), b.text("h1")
    b.goto(page)
    assert b.status_of_last_navigation() == 404, b.status_of_last_navigation()
PY
[ "$(fake_state 'len([c for c in d["calendars"] if c["name"] == "Club nights \u2014 next 3650 days"])' account=ana@example.org)" = 0 ] ||
    fail "the calendar \"Club nights — next 3650 days\" is still in ana's account after a disconnect asking to delete it"
[ "$(curl -s "$fake_api_url/_fake/accounts" | $python -c 'import json, sys; print(sum(a["grants"] for a in json.load(sys.stdin)["accounts"] if a["account"] == "ana@example.org"))')" = 0 ] ||
    fail "ana's grant is still live after a disconnect"

# Cancel at the consent page: the person is told nothing was connected, and nothing is stored.
$python - "$src" "$public" "$fake_api_url" "$work" >>"$work/flow.out" 2>&1 <<'PY' || fail "the cancelled flow went wrong: $(tail -5 "$work/flow.out")"
import sys
src, public, fake, work = sys.argv[1:5]
sys.path.insert(0, src + "/tests/support")
from cdp import Browser
with Browser(log_path=work + "/chromium.log") as b:
    b.goto(public + "/feeds/club.html?token=club-token-ana-0123456789")
    b.click("#connect-google")
    b.wait_for_url(fake + "/oauth/authorize")
    b.click("#cancel")
    b.wait_for_url(public + "/connect/callback")
    assert "Nothing was connected" in b.text("h1"), b.text("h1")
PY
[ -z "$(ls "$work/state/connections" 2>/dev/null | grep '\.json$')" ] || fail "a cancelled sign-in left a connection"
manage_key=${page#*key=}
for s in club-token-ana "$TEST_CLIENT_SECRET" "$manage_key" ana@example.org; do
    grep -qF -- "$s" "$work/serve.log" && fail "the log holds a secret or the subscriber's account"
done
echo "connect_browser: ok"
