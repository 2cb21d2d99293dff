#!/usr/bin/env bash
# File: command_secrets_test.sh
# Every command needs only the secrets of what it touches (issue 40, item 1), on the README's own config
# (config/example.toml, its upstreams replaced by the fake one): `export` the sources of its feed, `categories`
# its source, `connect` its target, `push` its targets and their feeds' sources; `check` and `serve` name every
# missing secret at once (FILE:LINE:COL and the variable), say how the service gets them and exit 2.
#   command_secrets_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
test_name=command_secrets
fail_logs="out err"
init_work

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream" --events-token ev-secret-2c9d --jobs-api-key jobs-secret-77e1
cfg="$work/config.toml"
sed -e "s#https://events.example.com#$upstream#; s#https://jobs.example.com#$upstream#" \
    -e "s#^dir = \"var/icsbridge\"#dir = \"$work/state\"#" "$src/config/example.toml" >"$cfg"
cat >>"$cfg" <<TOML

[targets.family]
type = "caldav"
url = "http://127.0.0.1:1/dav/"
username = "alice"
password_file = "$work/dav-password"

[targets.work]
type = "google"
client_id = "1234-abc.apps.googleusercontent.com"
client_secret_env = "GOOGLE_CLIENT_SECRET"
calendar = "Events"

[feeds.mirrored]
source = "eb"
select = "organizer"
push = ["family"]
TOML

# at KEY VAR: "CONFIG:LINE:COL" of the line setting KEY = "VAR" (COL: where its value starts).
at() {
    local line
    line=$(grep -n "^$1 = \"$2\"" "$cfg" | head -1 | cut -d: -f1)
    [ -n "$line" ] || fail "no $1 = \"$2\" in the config"
    echo "$cfg:$line:$(awk -v n="$line" 'NR == n { print index($0, "\"") }' "$cfg")"
}
jobs_at=$(at api_key_env JOBS_API_KEY)
events_at=$(at token_env EVENTS_TOKEN)
google_at=$(at client_secret_env GOOGLE_CLIENT_SECRET)
dav_at=$(at password_file "$work/dav-password")

# run STATUS VAR=VALUE... -- ARGS...: icsbridge ARGS with only PATH and the VARs in its environment.
run() {
    local want=$1 vars=()
    shift
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    env -i PATH="$PATH" "${vars[@]}" "$bin" "$@" >"$work/out" 2>"$work/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "icsbridge $* (with ${vars[*]:-no variables}) exited $got, expected $want"
}
expect_err() { grep -qF -- "$1" "$work/err" || fail "stderr lacks '$1'"; }
no_err() { grep -qF -- "$1" "$work/err" && fail "stderr names '$1'"; true; }

# The README's own example: the events token alone exports my-events.
run 0 EVENTS_TOKEN=ev-secret-2c9d -- export --config "$cfg" --feed my-events --output "$work/my-events.ics"
grep -q "^BEGIN:VCALENDAR" "$work/my-events.ics" || fail "export wrote no calendar"
# categories of the jobs source needs its key alone.
run 0 JOBS_API_KEY=jobs-secret-77e1 -- categories --config "$cfg" --source jobs
[ -s "$work/out" ] || fail "categories printed nothing"
# A feed of the jobs source without its key: that variable, at its FILE:LINE:COL; nothing else.
run 2 EVENTS_TOKEN=ev-secret-2c9d -- export --config "$cfg" --feed design-jobs
expect_err "$jobs_at: environment variable JOBS_API_KEY (api_key_env of [sources.jobs]) is not set"
[ "$(wc -l <"$work/err")" -eq 1 ] || fail "export printed more than the missing secret"
# A merged feed needs each part's source.
run 2 JOBS_API_KEY=jobs-secret-77e1 -- export --config "$cfg" --feed everything
expect_err "$events_at: environment variable EVENTS_TOKEN (token_env of [sources.eb]) is not set"
no_err JOBS_API_KEY
# push needs its target's password (a file not here) and its feeds' sources, not the other target's secret.
run 2 EVENTS_TOKEN=ev-secret-2c9d JOBS_API_KEY=jobs-secret-77e1 -- push --config "$cfg" --target family
expect_err "$dav_at: password_file \"$work/dav-password\" of [targets.family] cannot be read"
no_err GOOGLE_CLIENT_SECRET
run 2 JOBS_API_KEY=jobs-secret-77e1 -- push --config "$cfg" --target family --dry-run
expect_err "$events_at: environment variable EVENTS_TOKEN"
# connect needs its target's client secret; with it, it goes on to the sign-in (and times out here).
run 2 -- connect --config "$cfg" work --timeout 1
expect_err "$google_at: environment variable GOOGLE_CLIENT_SECRET (client_secret_env of [targets.work]) is not set"
no_err EVENTS_TOKEN
run 1 GOOGLE_CLIENT_SECRET=g-secret-31 -- connect --config "$cfg" work --timeout 1
grep -q "accounts.google.com" "$work/out" || fail "connect printed no sign-in URL"
no_err EVENTS_TOKEN

# check (and serve) answer for the whole service: every missing secret, how the service gets them, exit 2.
for cmd in check serve; do
    run 2 EVENTS_TOKEN=ev-secret-2c9d -- "$cmd" --config "$cfg"
    expect_err "$jobs_at: environment variable JOBS_API_KEY (api_key_env of [sources.jobs]) is not set"
    expect_err "$google_at: environment variable GOOGLE_CLIENT_SECRET"
    expect_err "$dav_at: password_file"
    expect_err "3 secrets are missing"
    expect_err "/etc/icsbridge/secrets.env"
    no_err EVENTS_TOKEN
    [ -s "$work/out" ] && fail "$cmd printed to stdout with secrets missing"
done
echo jobs-dav-pw-1 >"$work/dav-password"
run 0 EVENTS_TOKEN=ev-secret-2c9d JOBS_API_KEY=jobs-secret-77e1 GOOGLE_CLIENT_SECRET=g-secret-31 -- check --config "$cfg"
grep -q "OK (2 sources, 6 feeds)" "$work/out" || fail "check with every secret: $(head -1 "$work/out")"
# A structural mistake still fails every command, whatever secrets it needs.
echo 'tilte = "x"' >>"$cfg"
run 2 EVENTS_TOKEN=ev-secret-2c9d -- export --config "$cfg" --feed my-events
expect_err "unknown key 'tilte' in [feeds.mirrored]"
for s in ev-secret-2c9d jobs-secret-77e1 g-secret-31 jobs-dav-pw-1; do
    grep -qF "$s" "$work/out" "$work/err" && fail "a secret was printed"
done
echo "command_secrets: ok"
