#!/usr/bin/env bash
# File: fake_api_test.sh
# The fake Google Calendar API and fake Microsoft Graph (fake_calendar_api.py, issue 26) answer as
# docs push-apis.md says, driven with curl; the icsbridge push tests trust it, so this proves it first:
#   oauth      the code flow with PKCE S256: bad redirect_uri not redirected to, plain PKCE refused, state sent
#              back, a wrong verifier and a reused code are invalid_grant, the client secret required when set
#              (google), a public client may send none (microsoft); refresh (microsoft rotates, the old one is
#              spent); expiry -> 401 -> refresh; reject_tokens -> 401 even after a refresh; revocation ->
#              invalid_grant and 401
#   google     calendar created by name, scopes (calendar.app.created: not the primary one), client ids (bad
#              ones 400, used ones 409 even when cancelled), paging and nextSyncToken, incremental lists (changes
#              only, cancelled ones too), If-Match 412, delete 204 then 410, revive, 410 fullSyncRequired, 400 for
#              syncToken with a filter, foreign event and edit behind the client's back (also one armed to land
#              just before the next write: 412), If-Match marked in the request log
#   microsoft  calendar created (a second of that name 409), transactionId twice -> one event, the documented
#              $filter/$expand listing paged by nextLink (other filters 400), delta rounds (Prefer page size,
#              changes and @removed, 410 SyncStateNotFound), If-Match 412, delete then 404
#   both       quota per minute and injected refusals in the provider's shape, latency, counters, a log
#              without secrets
#   accounts   (issue 27, both providers) a registered web redirect_uri accepted exactly, others 400; login_hint
#              picks the account; accounts' calendars and events apart (another's calendar 404), admin account=;
#              the consent page for Accept: text/html (prefilled account, scope in words), its form's Allow -> a
#              code for the typed account, Cancel -> access_denied; calendar DELETE (primary/default refused);
#              the per-user quota refuses one account, not another; requests_per_second; revoke per account
#              (google: /oauth/revoke with a form body; microsoft has no revoke endpoint)
#   fake_api_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
test_name=push.fake_api
fail_logs="fake-*.err fake-*.log"
python=/usr/bin/python3
init_work
redirect=http://127.0.0.1:5555/
PROP='String {66f5a359-4659-4830-9070-00047ec6ac6e} Name icsbridge'

# call METHOD URL [CURL_ARGS...]: sets status; the body in $work/body, the headers in $work/headers.
call() {
    status=$(curl -s -o "$work/body" -D "$work/headers" -w '%{http_code}' -X "$1" "${@:3}" "$2")
}
# api METHOD PATH [CURL_ARGS...]: call with the access token, PATH under api_base (or a whole URL).
api() {
    local url=$2
    case "$url" in http*) ;; *) url=$api_base$url ;; esac
    call "$1" "$url" -H "Authorization: Bearer $access" "${@:3}"
}
# send METHOD PATH JSON [CURL_ARGS...]: api with a JSON body.
send() { api "$1" "$2" -H 'Content-Type: application/json' --data-binary "$3" "${@:4}"; }
# want STATUS WHAT: the last answer had STATUS.
want() { [ "$status" = "$1" ] || fail "$2: HTTP $status, want $1: $(head -c 400 "$work/body")"; }
# j EXPR [FILE]: a Python expression over the last body (or FILE) as d (h: the last headers, lower-case names).
j() {
    $python - "${2:-$work/body}" "$work/headers" "$1" <<'PY'
import json, os, re, sys, urllib.parse
raw = open(sys.argv[1], "rb").read()
try:
    d = json.loads(raw) if raw.strip() else None
except ValueError:
    d = raw.decode("utf-8", "replace")
h = {}
for line in open(sys.argv[2], encoding="latin-1") if os.path.exists(sys.argv[2]) else []:
    k, sep, v = line.partition(":")
    if sep:
        h[k.strip().lower()] = v.strip()
print(eval(sys.argv[3]))
PY
}
# check EXPR WHAT: fails unless EXPR (see j) is True.
check() { [ "$(j "bool($1)")" = True ] || fail "$2: not $1 in: $(head -c 600 "$work/body")"; }
# qparam NAME URL: a query parameter of URL.
qparam() { $python -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[2]).query).get(sys.argv[1], [""])[0])' "$1" "$2"; }

# authorize [KEY=VALUE...]: GET /oauth/authorize with a new PKCE pair (verifier, challenge) and state; KEY=VALUE
# replaces a default parameter (KEY= drops it); curl arguments in authorize_headers (e.g. an Accept header) are
# added. Sets status, location, code and back_state (from the redirect).
authorize_headers=()
authorize() {
    verifier=$(head -c 48 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
    challenge=$(printf %s "$verifier" | $python -c 'import base64, hashlib, sys
print(base64.urlsafe_b64encode(hashlib.sha256(sys.stdin.buffer.read()).digest()).decode().rstrip("="))')
    state=st$RANDOM$RANDOM
    declare -A p=([response_type]=code [client_id]=test-client [redirect_uri]=$redirect [scope]=$scope
        [state]=$state [code_challenge]=$challenge [code_challenge_method]=S256 [access_type]=offline [prompt]=consent)
    local kv args=()
    for kv in "$@"; do p[${kv%%=*}]=${kv#*=}; done
    for kv in "${!p[@]}"; do [ -n "${p[$kv]}" ] && args+=(--data-urlencode "$kv=${p[$kv]}"); done
    call GET "$auth_url" --get "${args[@]}" "${authorize_headers[@]}"
    location=$(j 'h.get("location", "")')
    code=$(qparam code "$location")
    back_state=$(qparam state "$location")
}
# token FORM_FIELD...: POST /oauth/token with these form fields (client_id=test-client added).
token() {
    local f args=(--data-urlencode client_id=test-client)
    for f in "$@"; do args+=(--data-urlencode "$f"); done
    call POST "$token_url" "${args[@]}"
}
# connect [TOKEN_FIELD...]: the whole code flow; sets access and refresh.
connect() {
    authorize
    [ "$status" = 302 ] && [ -n "$code" ] || fail "connect: authorize answered $status, $location"
    token grant_type=authorization_code "code=$code" "redirect_uri=$redirect" "code_verifier=$verifier" "$@"
    want 200 "connect: token exchange"
    access=$(j 'd["access_token"]')
    refresh=$(j 'd.get("refresh_token", "")')
}

# oauth_common PROVIDER: the checks both authorization servers share (the fake is started, scope set).
oauth_common() {
    authorize redirect_uri=http://localhost:5555/
    [ "$status" = 400 ] && [ -z "$location" ] || fail "$1: a non-loopback redirect_uri was redirected to: $status $location"
    authorize code_challenge_method=plain
    [ "$status" = 302 ] && [ "$(qparam error "$location")" = invalid_request ] && [ "$back_state" = "$state" ] ||
        fail "$1: plain PKCE was not refused with invalid_request and the state: $status $location"
    authorize code_challenge=
    [ "$(qparam error "$location")" = invalid_request ] || fail "$1: no PKCE was not refused: $location"
    authorize scope=https://example.com/everything
    [ "$(qparam error "$location")" = invalid_scope ] || fail "$1: an unknown scope was not refused: $location"
    authorize
    [ "$status" = 302 ] && [ -n "$code" ] && [ "$back_state" = "$state" ] &&
        [ "${location%%\?*}" = "$redirect" ] || fail "$1: authorize did not redirect with code and state: $location"
    local good_verifier=$verifier
    token grant_type=authorization_code "code=$code" "redirect_uri=$redirect" "code_verifier=${verifier}x" "$@"
    want 400 "$1: a wrong code_verifier"
    check 'd["error"] == "invalid_grant"' "$1: a wrong code_verifier"
    token grant_type=authorization_code "code=$code" "redirect_uri=$redirect" "code_verifier=$good_verifier" "$@"
    want 400 "$1: the code again (single use, spent by the wrong try)"
    check 'd["error"] == "invalid_grant"' "$1: a spent code"
    authorize
    token grant_type=authorization_code "code=$code" "redirect_uri=http://127.0.0.1:5556/" "code_verifier=$verifier" "$@"
    check 'd["error"] == "invalid_grant"' "$1: another redirect_uri at the token endpoint"
    call GET "$api_base/nothing/here"
    want 404 "$1: an unknown API path"
    echo "$1 oauth: loopback redirect only, S256 PKCE required, state sent back, wrong verifier, spent code and other redirect_uri invalid_grant"
}

# refreshed WHAT [TOKEN_FIELD...]: a refresh_token grant that must succeed; sets access (and refresh, rotated by
# microsoft: $p).
refreshed() {
    token grant_type=refresh_token "refresh_token=$refresh" "${@:2}"
    want 200 "$1"
    access=$(j 'd["access_token"]')
    [ "$p" = microsoft ] && refresh=$(j 'd["refresh_token"]')
}

# expiry_and_quota PROVIDER PATH [TOKEN_FIELD...]: expired access token -> 401 -> refresh -> 200; the quota
# per minute and injected refusals in the provider's shape; latency; the log holds no secret.
expiry_and_quota() {
    local p=$1 path=$2 codes i shape
    shift 2
    fake_admin expire >/dev/null
    api GET "$path"
    want 401 "$p: an expired access token"
    if [ "$p" = google ]; then check 'd["error"]["errors"][0]["reason"] == "authError"' "$p: 401"
    else check 'd["error"]["code"] == "InvalidAuthenticationToken"' "$p: 401"; fi
    refreshed "$p: refresh after expiry" "$@"
    api GET "$path"
    want 200 "$p: the refreshed access token"
    fake_admin config '{"reject_tokens": true}' >/dev/null
    api GET "$path"
    want 401 "$p: reject_tokens"
    refreshed "$p: a refresh with reject_tokens" "$@"
    api GET "$path"
    want 401 "$p: a fresh access token with reject_tokens"
    fake_admin config '{"reject_tokens": false}' >/dev/null
    api GET "$path"
    want 200 "$p: the access token once reject_tokens is off"
    fake_admin reset_counts >/dev/null
    fake_admin config '{"quota_per_minute": 4}' >/dev/null
    codes=
    : >"$work/refusals"
    for i in 1 2 3 4 5 6 7 8; do
        api GET "$path"
        codes="$codes $status"
        [ "$status" = 200 ] || { printf '%s ' "$status" >>"$work/refusals"; j "$refusal_expr" >>"$work/refusals"; }
    done
    [ "$(printf "%s" "${codes# }" | cut -d" " -f1-4)" = "200 200 200 200" ] && [ "$(grep -c . "$work/refusals")" = 4 ] ||
        fail "$p: quota 4/min: want 4 answered then 4 refused, got$codes"
    refusals_in_shape "$p: quota"
    [ "$(fake_requests quota_refused)" = 4 ] || fail "$p: quota_refused is $(fake_requests quota_refused), want 4"
    fake_admin config '{"quota_per_minute": 0, "error_rate": 0.5}' >/dev/null
    : >"$work/refusals"
    for _ in $(seq 1 60); do
        api GET "$path"
        [ "$status" = 200 ] || { printf '%s ' "$status" >>"$work/refusals"; j "$refusal_expr" >>"$work/refusals"; }
    done
    fake_admin config '{"error_rate": 0}' >/dev/null
    local n
    n=$(grep -c . "$work/refusals")
    [ "$n" -ge 15 ] && [ "$n" -le 45 ] || fail "$p: error_rate 0.5 refused $n of 60 requests"
    [ "$(fake_requests injected)" = "$n" ] || fail "$p: $n refused, the fake counted $(fake_requests injected)"
    refusals_in_shape "$p: error_rate"
    for shape in "${refusal_shapes[@]}"; do
        grep -q -x "$shape" "$work/refusals" || fail "$p: no refusal was \"$shape\" in $n: $(sort "$work/refusals" | uniq -c)"
    done
    echo "$p quota: 4/min -> 4 answered then 4 refused; error_rate 0.5 -> $n of 60 refused ($(sort "$work/refusals" | uniq -c | tr -s ' \n' ' '))"
    fake_admin config '{"latency_ms": 300}' >/dev/null
    local t0 t1
    t0=$(date +%s%N); api GET "$path"; t1=$(date +%s%N)
    fake_admin config '{"latency_ms": 0}' >/dev/null
    [ $(((t1 - t0) / 1000000)) -ge 300 ] || fail "$p: latency 300 ms, the answer came after $(((t1 - t0) / 1000000)) ms"
    for secret in "$access" "$refresh" "$verifier" "$code"; do
        [ -n "$secret" ] && grep -qF -- "$secret" "$work/fake-$p.log" && fail "$p: a secret is in the request log"
    done
    [ "$(grep -c . "$work/fake-$p.log")" -gt 50 ] || fail "$p: the request log has $(grep -c . "$work/fake-$p.log") lines"
    echo "$p: expired token 401 then refreshed; reject_tokens 401 even when fresh; latency 300 ms held; no token, code or verifier in the log"
}

# refusals_in_shape WHAT: every line of $work/refusals is one of refusal_shapes (set by the provider's checks).
refusals_in_shape() {
    local odd
    odd=$(grep -v -x -F -f <(printf '%s\n' "${refusal_shapes[@]}") "$work/refusals")
    [ -z "$odd" ] || fail "$1: refusals not in the provider's shape: $odd"
}

# revoked PROVIDER PATH [TOKEN_FIELD...]: after /_fake/revoke, refresh -> invalid_grant and the access token -> 401.
revoked() {
    local p=$1 path=$2
    shift 2
    fake_admin revoke >/dev/null
    token grant_type=refresh_token "refresh_token=$refresh" "$@"
    want 400 "$p: refresh after revocation"
    check 'd["error"] == "invalid_grant"' "$p: refresh after revocation"
    api GET "$path"
    want 401 "$p: the access token after revocation"
    [ "$(fake_state 'd["tokens"]["grants"]')" = 0 ] || fail "$p: grants still live after revoke"
    echo "$p: revoked consent -> invalid_grant, 401"
}

. "$src/tests/push/fakeapi/google_checks.sh"
. "$src/tests/push/fakeapi/graph_checks.sh"
. "$src/tests/push/fakeapi/accounts_checks.sh"
google_checks
accounts_checks google
graph_checks
accounts_checks microsoft
echo "PASS [$test_name]"
