#!/usr/bin/env bash
# File: exe_test.sh
# CTest check of the icsbridge-fake-upstream executable: one "listening on" line, control and API
# endpoints over curl, a clean exit on SIGTERM.
#   exe_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -eu
exe=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/sh/run_fixtures.sh"
init_work
# Started by hand, not with start_fake_upstream: the test reads every line it prints on startup.
out="$work/out"
"$exe" --port 0 --page-size 5 >"$out" 2>&1 &
fake_pid=$!

i=0
until grep -q '^listening on http://127.0.0.1:[0-9]*$' "$out"; do
    i=$((i + 1))
    [ "$i" -lt 200 ] || { echo "no 'listening on' line"; cat "$out"; exit 1; }
    sleep 0.05
done
[ "$(wc -l <"$out")" -eq 1 ] || { echo "more than one line on startup"; cat "$out"; exit 1; }
url=$(sed -n 's/^listening on //p' "$out")

status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
expect() { [ "$1" = "$2" ] || { echo "expected $2, got $1 ($3)"; exit 1; }; }

expect "$(status -X POST "$url/__control/fault?kind=status503&retry_after=2&count=1")" 200 "set fault"
expect "$(status "$url/api/categories/?api_key=demo-jobs-key")" 503 "faulted request"
expect "$(status "$url/api/categories/?api_key=demo-jobs-key")" 200 "fault used up"
expect "$(status -H 'Authorization: Bearer demo-events-token' "$url/v3/users/me/events/?status=live")" 200 "events"
curl -s -H 'Authorization: Bearer demo-events-token' "$url/v3/users/me/events/?status=live" | grep -q '"page_size":5' ||
    { echo "--page-size not applied"; exit 1; }
# The recorded requests hold secrets: check them without printing them.
curl -s "$url/__control/requests" | grep -q '"path":"/api/categories/"' || { echo "request not recorded"; exit 1; }
expect "$(status -X POST "$url/__control/fault?kind=bogus")" 400 "unknown fault kind"

kill -TERM "$fake_pid"
set +e
wait "$fake_pid"
rc=$?
set -e
fake_pid=
[ "$rc" -eq 0 ] || { echo "exit status $rc after SIGTERM"; exit 1; }
echo "ok"
