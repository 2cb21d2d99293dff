#!/usr/bin/env bash
# File: connect_calendars_test.sh
# Two self-serve connections of one feed in one Google account (issue 35, defect 3), against the suite's
# fake Google and a real `icsbridge serve`:
#   own calendars  ana connects the feed's next 20 days (A), then the whole feed (B): each gets its own
#                  calendar, "Club nights — next 20 days" and "Club nights", holding its own view's events;
#                  a publication later neither deletes the other's events (before: A deleted B's 29 events
#                  and B wrote them back on every change)
#   shared         a third connection C of the same 20 days finds A's calendar by its name (as connections
#                  of an earlier version found a calendar): disconnecting A with "Also delete the calendar"
#                  deletes nothing, and the page says why (another connection writes into it)
#   own delete     disconnecting B with "Also delete the calendar" deletes B's calendar and says so; then
#                  C, asked the same, leaves the calendar it did not create, and says why
#   connect_calendars_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u
bin=$1
fake=$2
src=$3
provider=google
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
test_name=push.connect_calendars
fail_logs="serve.log fake-$provider.log fake-$provider.err"
fail_skip="info GET \|info POST "
init_work
cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
port=$(free_port)
public=http://127.0.0.1:$port
secret=fake-client-secret-$RANDOM$RANDOM
start_fake_calendar_api "$provider" --client-secret "$secret" --redirect-uri "$public/connect/callback"
export TEST_CLIENT_SECRET=$secret
export TEST_HOOK_SECRET=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
ana=club-token-ana-$RANDOM$RANDOM
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:$port" "public_url = \"$public\"")

$(events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')

$(organizer_feed_toml club 'title = "Club nights"' "tokens = { ana = \"$ana\" }")

[connect]
key_file = "$work/connect.key"
google = { client_id = "test-client", client_secret_env = "TEST_CLIENT_SECRET", api_base = "$api_base", auth_url = "$auth_url", token_url = "$token_url", revoke_url = "$fake_api_url/oauth/revoke" }
TOML
openssl rand -hex 32 >"$work/connect.key"
chmod 600 "$work/connect.key"
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds "club.ics?token=$ana"
. "$src/tests/push/fakeapi/connect_steps.sh"

long="Club nights — next 20 days"
# events_in NAME: our live events in ana's calendar NAME (0 when there is none).
events_in() {
    fake_state "len(ours(cal('$1'))) if any(c['name'] == '$1' for c in d['calendars']) else 0" account=ana@example.org
}
# calendars_named NAME: how many calendars of ana's have that name.
calendars_named() { fake_state "sum(1 for c in d['calendars'] if c['name'] == '$1')" account=ana@example.org; }
# disconnect PAGE DELETE: Disconnect from PAGE, deleting the calendar when DELETE is 1; the page in $work/bye.html.
disconnect() {
    local csrf
    csrf=$(curl -s "$1" | grep -o 'name="csrf" value="[^"]*"' | sed 's/.*value="//; s/"$//')
    curl -s -X POST -H "Origin: $public" --data "csrf=$csrf${2:+&delete_calendar=$2}" "$1" >"$work/bye.html"
    grep -q Disconnected "$work/bye.html" || fail "Disconnect did not say so: $(cat "$work/bye.html")"
}

# 1. Own calendars.
connect_as ana@example.org "$ana" days=20
a_page=$page_url
page_says "$a_page" "In sync" 30
connect_as ana@example.org "$ana"
b_page=$page_url
page_says "$b_page" "In sync" 30
want_a=$(view_uids "$ana" days=20)
want_b=$(view_uids "$ana")
[ "$want_a" != "$want_b" ] || fail "the 20-day view is the whole feed ($want_a): the test would prove nothing"
[ "$(calendars_named "$long")" = 1 ] && [ "$(calendars_named "Club nights")" = 1 ] ||
    fail "ana's calendars: $(fake_state "[c['name'] for c in d['calendars']]" account=ana@example.org)"
# A publication (an upstream change, its webhook): both push again; neither touches the other's events.
changed_fixtures "$src" "$work/data"
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=788216780592&to=$public/hooks/eb/$TEST_HOOK_SECRET" >/dev/null
for _ in $(seq 1 100); do
    [ "$(fake_state "sum(1 for e in ours(cal('Club nights')) if 'MOVED' in e.get('summary', ''))" account=ana@example.org)" = 1 ] && break
    sleep 0.1
done
sleep 2
want_a=$(view_uids "$ana" days=20)
want_b=$(view_uids "$ana")
[ "$(events_in "$long")" = "$want_a" ] || fail "\"$long\" holds $(events_in "$long") of our events, not its view's $want_a"
[ "$(events_in "Club nights")" = "$want_b" ] || fail "\"Club nights\" holds $(events_in "Club nights"), not the feed's $want_b"
deleted=$(fake_state "sum(1 for c in d['calendars'] for e in c['events'] if e['deleted'])" account=ana@example.org)
[ "$deleted" = 0 ] || fail "$deleted of ana's events were deleted: the two connections undo each other"
echo "own calendars: \"$long\" $want_a events, \"Club nights\" $want_b, none deleted"

# 2. Shared: C finds A's calendar by its name; deleting it on A's disconnect is refused, and said why.
connect_as ana@example.org "$ana" days=20
c_page=$page_url
page_says "$c_page" "In sync" 30
[ "$(calendars_named "$long")" = 1 ] || fail "C did not find A's calendar by its name"
disconnect "$a_page" 1
[ "$(calendars_named "$long")" = 1 ] || fail "A's disconnect deleted a calendar C writes into"
grep -q "was not deleted: another connection writes into it too" "$work/bye.html" ||
    fail "A's page does not say why the calendar stays: $(cat "$work/bye.html")"
grep -q "was deleted from" "$work/bye.html" && fail "A's page says the calendar was deleted"
echo "shared: $(grep -o 'The calendar [^.]*\.' "$work/bye.html" | head -1)"

# 3. Own delete: B's calendar goes, and the page says so; C's (A's) stays.
disconnect "$b_page" 1
[ "$(calendars_named "Club nights")" = 0 ] || fail "B's calendar was not deleted"
grep -q "The calendar &quot;Club nights&quot; was deleted from your Google Calendar" "$work/bye.html" ||
    fail "B's page: $(cat "$work/bye.html")"
[ "$(calendars_named "$long")" = 1 ] || fail "B's disconnect deleted another connection's calendar"
# C did not create the calendar it writes into: asked to delete it, it says so and leaves it.
disconnect "$c_page" 1
[ "$(calendars_named "$long")" = 1 ] || fail "C's disconnect deleted a calendar it did not create"
grep -q "was not deleted: it was there before this connection" "$work/bye.html" ||
    fail "C's page does not say why the calendar stays: $(cat "$work/bye.html")"
echo "own delete: B's calendar deleted; the calendar C found stays"
echo "$test_name: ok"
