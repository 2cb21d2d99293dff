#!/usr/bin/env bash
# File: secrets_test.sh
# No secret leaks: runs `icsbridge check`, `export` and `serve` with recognisable secrets (events token,
# jobs api_key, feed token and tokens) against the fake upstream, through every error path (401/403,
# 500s, a TLS handshake failure), curls every endpoint, then greps all that was captured: stdout, stderr,
# logs, snapshots under storage.dir, feeds and pages. It never prints a secret, only where one leaked.
#   secrets_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=secrets
fail_logs=""
init_work
out="$work/out" # everything icsbridge said or served; the config and the fakes' logs stay outside
mkdir -p "$out"

events_token="evtok-LEAKCHECK-7f3a9c0d"
jobs_key="jobkey-LEAKCHECK-2b8e4155"
feed_token="feedtok-LEAKCHECK-91d0ee"
alice_token="subtok-alice-LEAKCHECK-55aa"
bob_token="subtok-bob-LEAKCHECK-66bb"
admin_token="admtok-LEAKCHECK-3c4d5e"
secrets=("$events_token" "$jobs_key" "$feed_token" "$alice_token" "$bob_token" "$admin_token")

# start_fake VAR EVENTS_TOKEN JOBS_KEY: a fake upstream (stopped at exit); VAR gets its base URL.
start_fake() {
    mkdir -p "$work/fake-$1"
    start_fake_upstream "$fake" "$work/fake-$1" "$src/tests/fixtures/upstream" --events-token "$2" \
        --jobs-api-key "$3"
    extra_pids+=("$fake_pid")
    fake_pid=
    printf -v "$1" '%s' "$upstream"
}
start_fake good "$events_token" "$jobs_key"
start_fake rejecting "other-events-token" "other-jobs-key" # our secrets get 401 / "stat": "fail"
tls="https://${good#http://}"                             # a plain-HTTP server: the TLS handshake fails

fault() { # fault KIND: every API request of the good fake gets KIND (none to clear)
    curl -s -o /dev/null -X POST "$good/__control/fault?kind=$1" || fail "cannot set fault $1"
}

export JOBS_KEY_ENV="$jobs_key" EVENTS_TOKEN_ENV="$events_token" ADMIN_TOKEN_ENV="$admin_token"
admin=(-H "Authorization: Bearer $admin_token") # /healthz shows token feeds only to the admin
cat >"$work/secrets.toml" <<TOML
$(server_toml "$out/state" 127.0.0.1:0 'admin_token_env = "ADMIN_TOKEN_ENV"')

[sources.eb]
type = "events"
base_url = "$good"
token = "$events_token"
timeout = "3s"

[sources.jobs]
type = "jobs"
base_url = "$good"
api_key_env = "JOBS_KEY_ENV"
timeout = "3s"

[sources.eb_rejected]
type = "events"
base_url = "$rejecting"
token_env = "EVENTS_TOKEN_ENV"
timeout = "3s"

[sources.jobs_rejected]
type = "jobs"
base_url = "$rejecting"
api_key = "$jobs_key"
timeout = "3s"

[sources.eb_tls]
type = "events"
base_url = "$tls"
token = "$events_token"
timeout = "3s"

[sources.jobs_tls]
type = "jobs"
base_url = "$tls"
api_key = "$jobs_key"
timeout = "3s"

[feeds.mine]
source = "eb"
select = "organizer"
token = "$feed_token"

[feeds.team]
source = "jobs"
select = "search"
params = { keywords = "designer" }
tokens = { alice = "$alice_token", bob = "$bob_token" }

[feeds.recent]
source = "jobs"
select = "recent"

[feeds.events-rejected]
source = "eb_rejected"
select = "organizer"

[feeds.jobs-rejected]
source = "jobs_rejected"
select = "recent"
token = "$feed_token"

[feeds.events-tls]
source = "eb_tls"
select = "organizer"

[feeds.jobs-tls]
source = "jobs_tls"
select = "recent"
tokens = { alice = "$alice_token" }
TOML
feeds=(mine team recent events-rejected jobs-rejected events-tls jobs-tls)

# --- check
"$bin" check --config "$work/secrets.toml" >"$out/check.stdout" 2>"$out/check.stderr" ||
    fail "check rejected the config (see $out/check.stderr)"
grep -q "mine" "$out/check.stdout" || fail "check did not list the feeds"

# --- export: each feed, to a file and to stdout; healthy, rejected, TLS, then with 500s
for feed in "${feeds[@]}"; do
    "$bin" export --config "$work/secrets.toml" --feed "$feed" --output "$out/export-$feed.ics" \
        >"$out/export-$feed.stdout" 2>"$out/export-$feed.stderr"
    echo "export $feed: $?" >>"$out/statuses"
done
for feed in mine team; do # the calendar on stdout
    "$bin" export --config "$work/secrets.toml" --feed "$feed" >"$out/export-$feed.to-stdout" \
        2>"$out/export-$feed.stderr2"
done
grep -qx "export mine: 0" "$out/statuses" || fail "export of a healthy feed failed"
grep -qx "export events-rejected: 0" "$out/statuses" && fail "export with a rejected token succeeded"
grep -qx "export events-tls: 0" "$out/statuses" && fail "export over a failed TLS handshake succeeded"
fault status500
for feed in mine team; do
    "$bin" export --config "$work/secrets.toml" --feed "$feed" --output "$out/export500-$feed.ics" \
        >"$out/export500-$feed.stdout" 2>"$out/export500-$feed.stderr" && fail "export $feed succeeded on 500s"
done
fault none

# --- serve: every endpoint with and without the right token, HEAD, 404/405, error paths
serve() { # serve LOG READY: starts the server and waits until /healthz matches READY; sets base
    start_icsbridge "$bin" "$work/secrets.toml" "$out/$1" >"$out/$1.stdout"
    for _ in $(seq 1 300); do
        if curl -s "${admin[@]}" "$base/healthz" >"$work/health" && grep -q "$2" "$work/health"; then
            return 0
        fi
        kill -0 "$serve_pid" 2>/dev/null || fail "serve exited early"
        sleep 0.1
    done
    fail "serve did not get ready ($2) within 30 s"
}
n=0
curls=()
get() { # get ARGS...: one curl in the background, headers and body kept
    n=$((n + 1))
    curl -s -i --max-time 10 "$@" >"$out/curl-$n" 2>&1 &
    curls+=($!)
}
all_tried='"last_success":null,"last_failure":null' # negated below: no feed left untried

fault status500 # the first refresh of the good sources fails
serve serve-500.log '"name":"mine"[^}]*"last_failure":"'
get "$base/healthz"
get "$base/feeds/mine.ics?token=$feed_token"
wait "${curls[@]}"
stop_icsbridge
fault none

serve serve.log '"name":"jobs-tls"[^}]*"last_failure":"'
for _ in $(seq 1 100); do # and every other feed tried too
    curl -s "${admin[@]}" "$base/healthz" | grep -q "$all_tried" || break
    sleep 0.1
done
curls=()
for path in / /healthz /metrics /nope /feeds/ /feeds/nope.ics "/feeds/mine.ics?token=" "/feeds/../etc/passwd"; do
    get "$base$path"
    get -I "$base$path"
    get -X POST "$base$path"
    get -X DELETE "$base$path"
done
for feed in "${feeds[@]}"; do
    get "$base/feeds/$feed.ics"
    get -I "$base/feeds/$feed.ics"
    get -H 'Accept-Encoding: gzip' --compressed "$base/feeds/$feed.ics"
    get "$base/feeds/$feed.ics?token=wrong-guess"
    for t in "$feed_token" "$alice_token" "$bob_token"; do
        get "$base/feeds/$feed.ics?token=$t"
        get "$base/feeds/$feed.ics?tok%65n=$t&TOKEN=$t"
        get -H "Authorization: Bearer $t" "$base/feeds/$feed.ics"
    done
    get -I "$base/feeds/$feed.ics?token=$feed_token"
    get -X POST "$base/feeds/$feed.ics?token=$alice_token"
done
wait "${curls[@]}"
get "$base/metrics"
get "$base/healthz"
get "${admin[@]}" "$base/metrics"
get "${admin[@]}" "$base/healthz"
get -H "Authorization: Bearer ${admin_token}x" "$base/healthz"
get "$base/healthz?token=$admin_token"
wait "${curls[@]}"
grep -l '^HTTP/1.1 200' "$out"/curl-* | xargs grep -l 'BEGIN:VCALENDAR' >/dev/null || fail "no feed was served"
stop_icsbridge

[ -n "$(ls -A "$out/state" 2>/dev/null)" ] || fail "serve stored no snapshot under storage.dir"

# --- the grep: every file icsbridge wrote or said, binary and gzip included
leaks=0
while IFS= read -r -d '' file; do
    for s in "${secrets[@]}"; do
        if grep -qaF -- "$s" "$file" || { gzip -t "$file" 2>/dev/null && gzip -dc "$file" | grep -qaF -- "$s"; }; then
            echo "leak found in ${file#"$work"/}" >&2
            leaks=$((leaks + 1))
            break
        fi
    done
done < <(find "$out" -type f -print0)
[ "$leaks" -eq 0 ] || fail "$leaks file(s) hold a secret"
echo "ok: no secret in $(find "$out" -type f | wc -l) captured files"
