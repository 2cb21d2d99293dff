# File: fake_api.sh
# Shell pieces for the tests that push into the fake Google Calendar API / Microsoft Graph
# (tests/push/fake_calendar_api.py): start one on a free port, read and change it through its admin endpoints.
# Source it after run_fixtures.sh (it uses work, extra_pids and fail). Not a test itself: this folder is not
# registered by script_tests.cmake.

fake_api_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fake_api_python=/usr/bin/python3

# start_fake_calendar_api PROVIDER [ARGS...]: the fake for PROVIDER (google|microsoft) with its log in
# $work/fake-PROVIDER.log and stderr in $work/fake-PROVIDER.err. Sets fake_api_url (http://127.0.0.1:PORT),
# api_base (…/calendar/v3 or …/v1.0), auth_url, token_url and fake_api_pid (also in extra_pids), or fails.
start_fake_calendar_api() {
    local provider=$1 port_file="$work/fake-$1.port" port=
    shift
    rm -f "$port_file"
    $fake_api_python "$fake_api_dir/fake_calendar_api.py" --provider "$provider" --port 0 --port-file "$port_file" \
        --log "$work/fake-$provider.log" "$@" >"$work/fake-$provider.out" 2>"$work/fake-$provider.err" &
    fake_api_pid=$!
    extra_pids+=("$fake_api_pid")
    for _ in $(seq 1 100); do
        [ -s "$port_file" ] && port=$(cat "$port_file") && break
        kill -0 "$fake_api_pid" 2>/dev/null || fail "the fake $provider API exited: $(tail -3 "$work/fake-$provider.err")"
        sleep 0.05
    done
    [ -n "$port" ] || fail "the fake $provider API did not start within 5 s"
    fake_api_url=http://127.0.0.1:$port
    case "$provider" in google) api_base=$fake_api_url/calendar/v3 ;; *) api_base=$fake_api_url/v1.0 ;; esac
    auth_url=$fake_api_url/oauth/authorize
    token_url=$fake_api_url/oauth/token
}

# start_connect_fake PROVIDER: the fake PROVIDER for a `serve` with [connect] on a port chosen here. Sets port and
# public (http://127.0.0.1:PORT; the fake sends sign-ins back to its /connect/callback), exports
# TEST_CLIENT_SECRET (the client secret both sides know), writes the key file $work/connect.key, and sets what
# start_fake_calendar_api sets.
start_connect_fake() {
    port=$(free_port)
    public=http://127.0.0.1:$port
    export TEST_CLIENT_SECRET=fake-client-secret-$RANDOM$RANDOM
    start_fake_calendar_api "$1" --client-secret "$TEST_CLIENT_SECRET" --redirect-uri "$public/connect/callback"
    openssl rand -hex 32 >"$work/connect.key"
    chmod 600 "$work/connect.key"
}

# fake_admin NAME [JSON] [ACCOUNT]: POST /_fake/NAME with the JSON body (default {}), for ACCOUNT (an e-mail; default
# the fake's default account; revoke, expire and forget_sync: every account); prints the answer, fails unless 200.
fake_admin() {
    local body=${2:-} account=${3:-} out
    [ -n "$body" ] || body='{}'
    out=$(curl -s -f -X POST -H 'Content-Type: application/json' --data-binary "$body" \
        "$fake_api_url/_fake/$1${account:+?account=$account}") || fail "the fake's /_fake/$1 refused $body${account:+ for $account}"
    printf '%s\n' "$out"
}

# fake_state EXPR [QUERY]: a Python expression over GET /_fake/state[?QUERY] (as `d`), printed; QUERY may name
# the account (account=E-MAIL; default the default account). Helpers in scope: cal(NAME_OR_ID) is that calendar,
# ours(c) its live events carrying our extended property, live(c) its events not deleted.
fake_state() {
    curl -s -f "$fake_api_url/_fake/state${2:+?$2}" >"$work/fake-state.json" || fail "GET /_fake/state failed"
    $fake_api_python - "$work/fake-state.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def cal(key):
    return next(c for c in d["calendars"] if key in (c["id"], c["name"]))
def live(c):
    return [e for e in c["events"] if not e["deleted"]]
def is_ours(e):
    google = bool(e.get("extendedProperties", {}).get("private", {}).get("icsbridge"))
    graph = any(p["id"].endswith("Name icsbridge") for p in e.get("singleValueExtendedProperties", []))
    return google or graph
def ours(c):
    return [e for e in live(c) if is_ours(e)]
print(eval(sys.argv[2]))
PY
}

# fake_requests KEY...: a request counter from /_fake/state: `fake_requests writes`, `fake_requests by_kind insert`.
fake_requests() {
    local expr="d['requests']" k
    for k in "$@"; do expr="${expr}['$k']"; done
    fake_state "$expr"
}

# fake_accounts EXPR: a Python expression over GET /_fake/accounts (as `d`), printed. In scope: account(E) is that
# account's entry ({"account", "calendars": [{"id", "name", "main", "app_created", "events", "deleted"}], "grants",
# "requests", "user_quota_refused", "max_per_second"}), cal(E, NAME_OR_ID) one of its calendars.
fake_accounts() {
    curl -s -f "$fake_api_url/_fake/accounts" >"$work/fake-accounts.json" || fail "GET /_fake/accounts failed"
    $fake_api_python - "$work/fake-accounts.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def account(email):
    return next(a for a in d["accounts"] if a["account"] == email)
def cal(email, key):
    return next(c for c in account(email)["calendars"] if key in (c["id"], c["name"]))
print(eval(sys.argv[2]))
PY
}

# fake_requests_per_second [ACCOUNT]: the most API requests the fake saw in one wall-clock second since the last
# reset_counts (of every account, or of ACCOUNT).
fake_requests_per_second() {
    curl -s -f "$fake_api_url/_fake/requests_per_second${1:+?account=$1}" >"$work/fake-rps.json" ||
        fail "GET /_fake/requests_per_second failed"
    $fake_api_python -c 'import json, sys; print(json.load(open(sys.argv[1]))["max"])' "$work/fake-rps.json"
}

# connect_with BIN CONFIG TARGET: `BIN connect` with the printed URL followed as a browser would (curl: the fake
# approves at once); its stdout in $work/connect.out, stderr in $work/connect.err, the URL in connect_url. Fails
# unless it prints a URL of the fake's authorization endpoint and exits 0.
connect_with() {
    : >"$work/connect.out" # now, so the loop below cannot read a previous connect's URL
    "$1" connect --config "$2" "$3" --timeout 60 >"$work/connect.out" 2>"$work/connect.err" &
    local pid=$!
    connect_url=
    for _ in $(seq 1 100); do
        connect_url=$(grep -m1 -E '^https?://' "$work/connect.out" 2>/dev/null) && break
        sleep 0.1
    done
    [ -n "$connect_url" ] || fail "connect printed no URL: $(cat "$work/connect.out" "$work/connect.err")"
    case "$connect_url" in "$auth_url"*) ;; *) fail "connect's URL is not the authorization endpoint: $connect_url" ;; esac
    curl -sS -L -o "$work/browser.html" "$connect_url" 2>"$work/browser.err" ||
        fail "following the authorization URL failed (curl exit $?: $(cat "$work/browser.err")); connect: $(cat "$work/connect.err")"
    wait "$pid" || fail "connect exited $?: $(cat "$work/connect.err")"
}
