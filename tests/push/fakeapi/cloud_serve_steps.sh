# File: cloud_serve_steps.sh
# The steps of push/cloud_test.sh that run `icsbridge serve` (sourced by it: it sets provider, work, bin,
# upstream, the fake's variables, TEST_ADMIN_TOKEN and TEST_HOOK_SECRET, and defines feed_uids,
# foreign_untouched and the fixtures' helpers). Each case renames one event upstream and sends the events
# service's webhook, then reads serve's /healthz and the fake's counters.

# fake_counts: "API TOKEN UNAUTHORIZED UPDATES" since the fake's counts were last reset: API requests, token
# endpoint requests, 401 answers, update requests (PUT or PATCH of an event).
fake_counts() {
    fake_state "d['requests']['total'] - d['requests']['by_kind']['token'] - d['requests']['by_kind']['authorize'], \
d['requests']['by_kind']['token'], d['requests']['by_status'].get('401', 0), d['requests']['by_kind']['update']" | tr -d '(),'
}

# counted_since BEFORE: the four fake_counts since BEFORE (an earlier fake_counts), in count_api, count_token,
# count_401 and count_update.
counted_since() {
    local a b c d
    read -r a b c d <<<"$1"
    read -r count_api count_token count_401 count_update <<<"$(fake_counts)"
    count_api=$((count_api - a)) count_token=$((count_token - b)) count_401=$((count_401 - c))
    count_update=$((count_update - d))
}

# health EXPR: a Python expression over serve's admin /healthz entry of target cal (as t), printed.
health() {
    curl -s -f -H "Authorization: Bearer $TEST_ADMIN_TOKEN" "$base/healthz" >"$work/healthz.json" ||
        fail "GET /healthz (admin) failed"
    $python - "$work/healthz.json" "$1" <<'PY'
import json, sys
t = next(x for x in json.load(open(sys.argv[1]))["targets"] if x["name"] == "cal")
print(eval(sys.argv[2]))
PY
}

# serve_rename NAME: the served fixtures' event renamed "... Night NAME: ...", the upstream reloaded and its
# webhook sent to serve; sets renamed_at (ns) and reconciles (serve's count before it).
serve_rename() {
    reconciles=$(health "t['reconciles']")
    sed -i -E "s/Night [A-Z0-9]+:/Night $1:/" "$work/served/events/events.json"
    curl -s -X POST "$upstream/__control/reload?dir=$work/served" >/dev/null
    renamed_at=$(date +%s%N)
    curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=788216780592&to=$base/hooks/eb/$TEST_HOOK_SECRET" >/dev/null
}

# reconciled WHAT: waits (15 s at most) for the end of the reconcile serve_rename set off (serve's count of them
# grows: its outcome is recorded, every request made).
reconciled() {
    for _ in $(seq 1 150); do
        [ "$(health "t['reconciles']")" -gt "$reconciles" ] && return 0
        sleep 0.1
    done
    fail "$1: no reconcile within 15 s of the webhook: $(tail -5 "$work/serve.log")"
}

# renamed WHAT NAME: waits until the calendar holds the event renamed NAME (15 s at most); sets seen_ms (since the
# rename).
renamed() {
    seen_ms=
    for _ in $(seq 1 150); do
        fake_state "sum(1 for e in ours(cal('Events')) if 'Night $2:' in (e.get('summary') or e.get('subject') or ''))" |
            grep -qx 1 && { seen_ms=$(( ($(date +%s%N) - renamed_at) / 1000000 )); return 0; }
        sleep 0.1
    done
    fail "$1: serve did not push the webhook's change within 15 s: $(tail -5 "$work/serve.log")"
}

# feed_etag: the ETag serve gives the feed pub now.
feed_etag() { curl -s -D - -o /dev/null "$base/feeds/pub.ics" | tr -d '\r' | grep -i '^etag:' | cut -d' ' -f2; }

# start_serve: serve from push.toml, once its first reconcile (at start) is over.
start_serve() {
    start_icsbridge "$bin" "$work/push.toml" "$work/serve.log"
    wait_for_feeds pub.ics
    for _ in $(seq 1 150); do
        [ "$(health "t['reconciles']")" -ge 1 ] && return 0
        sleep 0.1
    done
    fail "serve made no reconcile within 15 s of starting: $(tail -5 "$work/serve.log")"
}

step_serve() {
    # serve pushes on its own: an event renamed upstream and its webhook reach the calendar in seconds.
    fake_admin reset_counts >/dev/null
    start_serve
    rm -rf "$work/served"
    cp -r "$work/removed" "$work/served"
    serve_expired
    serve_health
    serve_ahead
    serve_unauthorized
    stop_icsbridge
    grep -qF "$secret" "$work/serve.log" && fail "the client secret is in serve's log"
    foreign_untouched "serve"
}

serve_expired() {
    # An event renamed upstream and its webhook reach the calendar in seconds, though the access token serve
    # holds expired at the provider meanwhile: one 401, one refresh, the write made with the new token. The new
    # one lives 3 s (serve refreshes it after half of that): serve_ahead uses it.
    fake_admin config '{"token_lifetime": 3}' >/dev/null
    fake_admin expire >/dev/null
    local before
    before=$(fake_counts)
    serve_rename EXPIRED
    reconciled "access token expired while serving"
    renamed "access token expired while serving" EXPIRED
    expired_seen=$(date +%s%N)
    counted_since "$before"
    [ "$count_401" = 1 ] && [ "$count_token" = 1 ] && [ "$count_update" = 1 ] ||
        fail "the access token expired while serving: $count_401 401s, $count_token token requests, $count_update updates (want 1 each)"
    echo "serve: the webhook's change in the calendar after $seen_ms ms, through one 401 and one refresh ($count_api API requests)"
}

serve_health() {
    # /healthz (admin) and /metrics as the fake saw it: every API request counted, the writes by kind (the
    # one rename so far).
    local want_items api
    want_items=$(feed_uids | wc -l)
    api=$(fake_state "d['requests']['total'] - d['requests']['by_kind']['token'] - d['requests']['by_kind']['authorize']")
    [ "$(health "(t['ok'], t['items'], t['writes'], t['requests'], t['last_error'], t['conflicts'])")" = \
        "(True, $want_items, {'create': 0, 'update': 1, 'delete': 0}, $api, None, 0)" ] ||
        fail "/healthz's target cal: $(health t) (want ok, $want_items items, 1 update, the fake's $api requests)"
    [ "$(health "t['last_success'] is not None")" = True ] || fail "/healthz: no last_success"
    curl -s -f -H "Authorization: Bearer $TEST_ADMIN_TOKEN" "$base/metrics" >"$work/metrics.txt" || fail "GET /metrics failed"
    local m
    for m in 'icsbridge_push_writes_total{target="cal",kind="update"} 1' 'icsbridge_push_writes_total{target="cal",kind="create"} 0' \
        "icsbridge_push_items{target=\"cal\"} $want_items" "icsbridge_push_requests_total{target=\"cal\"} $api" \
        'icsbridge_push_up{target="cal"} 1'; do
        grep -qxF "$m" "$work/metrics.txt" || fail "/metrics has no line $m: $(grep 'target="cal"' "$work/metrics.txt" | head -12)"
    done
    grep -qE '^icsbridge_push_last_success_timestamp_seconds\{target="cal"\} [1-9][0-9]+$' "$work/metrics.txt" ||
        fail "/metrics: no last success time for cal"
    grep -qF "$secret" "$work/metrics.txt" "$work/healthz.json" && fail "a secret in /metrics or /healthz"
    echo "health: $want_items items, 1 update, $api requests, as the fake counted"
}

serve_ahead() {
    # The token serve_expired's refresh got is due (half its life of 3 s is over) before the next write: serve
    # refreshes it first, and the provider never answers 401.
    local before
    while [ $(( ($(date +%s%N) - expired_seen) / 1000000 )) -lt 1600 ]; do sleep 0.1; done
    fake_admin config '{"token_lifetime": 3600}' >/dev/null
    before=$(fake_counts)
    serve_rename AHEAD
    reconciled "a token near its expiry"
    renamed "a token near its expiry" AHEAD
    counted_since "$before"
    [ "$count_401" = 0 ] && [ "$count_token" = 1 ] && [ "$count_update" = 1 ] ||
        fail "a token near its expiry: $count_401 401s, $count_token token requests, $count_update updates (want 0, 1, 1)"
    echo "ahead: the token refreshed before it expired, no 401"
}

# left_alone WHAT NAME: after a reconcile that stopped the target, another rename upstream (NAME) is published
# (the feed's ETag changes) and wakes the target, which sends nothing (it waits for its period): no API or
# token request within a moment of the publication.
left_alone() {
    local before etag
    before=$(fake_counts)
    etag=$(feed_etag)
    serve_rename "$2"
    for _ in $(seq 1 100); do
        [ "$(feed_etag)" != "$etag" ] && break
        sleep 0.1
    done
    [ "$(feed_etag)" != "$etag" ] || fail "$1: serve did not publish the next change within 10 s"
    sleep 0.2 # the target's wake-up comes with the publication: time enough to (wrongly) send something
    counted_since "$before"
    [ "$count_api" = 0 ] && [ "$count_token" = 0 ] ||
        fail "$1: the next publication made $count_api API and $count_token token requests (want none)"
}

serve_unauthorized() {
    # The provider refuses every access token, fresh ones too: one refresh, then the target stops with a reason
    # to act on, and a later publication sends it nothing (no retry loop).
    local before why
    fake_admin config '{"reject_tokens": true}' >/dev/null
    before=$(fake_counts)
    serve_rename REFUSED
    reconciled "every access token refused"
    counted_since "$before"
    why=$(health "t['last_error']")
    [ "$count_401" = 2 ] && [ "$count_token" = 1 ] && [ "$count_api" = 2 ] ||
        fail "every access token refused: $count_api API requests, $count_401 401s, $count_token token requests (want 2, 2, 1)"
    case "$why" in *401*"icsbridge connect"*) ;; *) fail "every access token refused: /healthz's last error: $why" ;; esac
    [ "$(health "t['ok']")" = False ] || fail "every access token refused: /healthz says the target is ok"
    echo "unauthorized: 2 requests and one refresh, then stopped: $why"
    left_alone "every access token refused" REFUSEDTWICE
    fake_admin config '{"reject_tokens": false}' >/dev/null
}

step_serve_revoked() {
    # Consent revoked while serve runs, with an access token cached: the next reconcile meets a 401, the refresh
    # invalid_grant; the target stops in a handful of requests with the command to reconnect in /healthz. (What
    # a later publication does is serve_unauthorized's left_alone; here the refused refresh token is not even
    # sent again until a connect stores another.)
    local before why
    start_serve
    fake_admin revoke >/dev/null
    before=$(fake_counts)
    serve_rename REVOKED
    reconciled "consent revoked while serving"
    counted_since "$before"
    why=$(health "t['last_error']")
    case "$why" in *"icsbridge connect --config $work/push.toml cal"*) ;;
        *) fail "consent revoked while serving: /healthz's last error does not name the reconnect command: $why" ;; esac
    [ "$count_api" -ge 1 ] && [ $((count_api + count_token)) -le 3 ] ||
        fail "consent revoked while serving: $count_api API and $count_token token requests (want 1 to 3 in all)"
    [ "$(health "t['ok']")" = False ] || fail "consent revoked while serving: /healthz says the target is ok"
    echo "serve revoked: $count_api API and $count_token token requests, then stopped: $why"
    stop_icsbridge
}
