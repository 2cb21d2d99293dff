#!/usr/bin/env bash
# File: connect_caps_test.sh
# The sign-in caps of the self-serve connect routes (issue 35) over real HTTP, each client a loopback address
# of its own (curl --interface 127.0.0.N):
#   nocode   a callback with neither `code` nor `error` is refused (400) without using up the state: the same
#            state then answers error=access_denied (200), and only then is it used (a replay: 400)
#   begun    one address begins 30 sign-ins (302 each); the 31st is 429 with a Retry-After of at most
#            600 s; another address goes on; the feed answers 200 all along
#   claims   one address finishes 30 sign-ins (error=access_denied: 200 each); the 31st is 429, before
#            its state is looked at (the same state from another address: 200)
#   proxy    behind the trusted proxy 127.0.0.2, each X-Forwarded-For client has caps of its own (the
#            proxy's address is not capped as one client); from an untrusted peer the header is ignored
#   connect_caps_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
fake=$2
src=$3
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=push.connect_caps
fail_logs="serve.log"
fail_skip="info GET \|info POST "
init_work

. "$src/tests/push/fakeapi/signin_serve.sh"
start_signin_serve 'trusted_proxies = ["127.0.0.2"]'

# begin FROM [CURL ARGS...]: a sign-in begun from 127.0.0.FROM; prints "STATUS STATE" (STATE from the
# redirect to the provider, "-" without one).
begin() {
    local out
    out=$(curl -s --interface "127.0.0.$1" -o /dev/null -w '%{http_code} %{redirect_url}' "${@:2}" \
        "$public/connect/google?feed=pub")
    local state=${out#* }
    state=${state#*state=}
    state=${state%%&*}
    echo "${out%% *} ${state:--}"
}
# finish FROM STATE [QUERY]: the callback from 127.0.0.FROM; prints its status.
finish() {
    curl -s --interface "127.0.0.$1" -o "$work/finish.html" -D "$work/finish.headers" -w '%{http_code}' \
        "${@:4}" "$public/connect/callback?state=$2${3:+&$3}"
}
# begin_all N FROM [CURL ARGS...]: N sign-ins begun from 127.0.0.FROM, each of which must be a 302.
begin_all() {
    local i b
    for i in $(seq 1 "$1"); do
        b=$(begin "${@:2}")
        [ "${b%% *}" = 302 ] || fail "sign-in $i of $1 from 127.0.0.$2 ${*:3} was refused: $b"
    done
}

feed_ok() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$public/feeds/pub.ics")" = 200 ] || fail "the feed did not answer 200 ($1)"; }
# retry_after_ok HEADERS WHAT: the Retry-After in the saved HEADERS must be 1..600 seconds.
retry_after_ok() {
    local r
    r=$(tr -d '\r' <"$1" | sed -n 's/^[Rr]etry-[Aa]fter: *//p')
    [ -n "$r" ] && [ "$r" -ge 1 ] && [ "$r" -le 600 ] || fail "$2: Retry-After is '$r'"
}

step_nocode() {
    local b state
    b=$(begin 10)
    state=${b#* }
    [ "${b%% *}" = 302 ] || fail "a sign-in did not begin: $b"
    [ "$(finish 11 "$state")" = 400 ] || fail "a callback without code was not refused"
    grep -q "holds no code" "$work/finish.html" || fail "the refusal does not say why: $(cat "$work/finish.html")"
    [ "$(finish 11 "$state" error=access_denied)" = 200 ] ||
        fail "the state was used up by a callback without code: $(cat "$work/finish.html")"
    grep -q "You did not allow access" "$work/finish.html" || fail "the refusal page: $(cat "$work/finish.html")"
    [ "$(finish 11 "$state" error=access_denied)" = 400 ] || fail "error=access_denied did not use up the state"
    grep -q "used already" "$work/finish.html" || fail "a replay is not refused as used"
}

step_begun() {
    local b
    begin_all 30 20
    b=$(begin 20 -D "$work/begin.headers")
    [ "${b%% *}" = 429 ] || fail "the 31st sign-in of one address in 10 minutes was not refused: $b"
    retry_after_ok "$work/begin.headers" "the 31st sign-in"
    b=$(begin 21)
    [ "${b%% *}" = 302 ] || fail "another address was refused with the first: $b"
    feed_ok "after 31 sign-ins from one address"
}

step_claims() {
    local i b states=()
    # The states from addresses of their own: only the claims are of one address.
    for i in $(seq 1 31); do
        b=$(begin $((30 + i % 3)))
        [ "${b%% *}" = 302 ] || fail "a sign-in for the claims was refused: $b"
        states+=("${b#* }")
    done
    for i in $(seq 0 29); do
        [ "$(finish 40 "${states[$i]}" error=access_denied)" = 200 ] || fail "claim $((i + 1)) of one address was refused"
    done
    [ "$(finish 40 "${states[30]}" error=access_denied)" = 429 ] || fail "the 31st claim of one address was not refused"
    retry_after_ok "$work/finish.headers" "the 31st claim"
    [ "$(finish 41 "${states[30]}" error=access_denied)" = 200 ] || fail "the refused claim used up its state"
    feed_ok "after 31 claims from one address"
}

step_proxy() {
    local b
    begin_all 30 2 -H "X-Forwarded-For: 203.0.113.9, 198.51.100.7"
    b=$(begin 2 -H "X-Forwarded-For: 198.51.100.7")
    [ "${b%% *}" = 429 ] || fail "the 31st sign-in of one client behind the proxy was not refused: $b"
    b=$(begin 2 -H "X-Forwarded-For: 198.51.100.8")
    [ "${b%% *}" = 302 ] || fail "another client behind the proxy was refused with the first: $b"
    # An untrusted peer cannot pick its client address: whatever the header says, all count for 127.0.0.50.
    begin_all 30 50 -H "X-Forwarded-For: 198.51.100.101"
    b=$(begin 50 -H "X-Forwarded-For: 198.51.100.250")
    [ "${b%% *}" = 429 ] || fail "an untrusted peer escaped its cap with X-Forwarded-For: $b"
}

for step in nocode begun claims proxy; do
    "step_$step"
    echo "$step: ok"
done
echo "$test_name: ok"
