#!/usr/bin/env bash
# File: check_connect_test.sh
# `check` with [connect] (issue 27): the providers and the shared rate are listed, the key file is said to be
# readable, or readable by others; a missing one, a directory or one holding no key is a config error at
# [connect]'s place for `check` and `serve` (exit 2, the command that makes one named; issue 35); the client
# secret and the key's bytes are never printed; a config mistake in [connect] exits 2.
#   check_connect_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u
bin=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/sh/run_fixtures.sh"
test_name=check_connect
fail_logs="out err"
init_work

export CONNECT_TEST_SECRET=connect-test-secret-42
cat >"$work/c.toml" <<EOF
[server]
public_url = "https://cal.example.org"
[connect]
key_file = "$work/connect.key"
google = { client_id = "g-client.apps.googleusercontent.com", client_secret_env = "CONNECT_TEST_SECRET" }
microsoft = { client_id = "m-client", tenant = "organizations" }
rate = "100/m"
EOF
chmod 600 "$work/c.toml"
check() { # check: exit status must be 0; stdout in $work/out, stderr in $work/err
    "$bin" check --config "$work/c.toml" >"$work/out" 2>"$work/err" || fail "check exited $?"
}

# A key file that cannot be used is a config error at [connect]'s place (issue 35): with a warning only,
# `serve` started and every "Keep … in sync" button led to a 503.
refused() { # refused WHAT: check must exit 2 naming [connect]'s place and WHAT
    "$bin" check --config "$work/c.toml" >"$work/out" 2>"$work/err"
    rc=$?
    [ "$rc" = 2 ] || fail "check with a key file that is $1 exited $rc, not 2"
    grep -qF "$work/c.toml:3:1: [connect] key_file $work/connect.key: $1" "$work/err" ||
        fail "a key file that is $1 is not a config error at [connect]: $(cat "$work/err")"
}
refused "missing; make one with: openssl rand -hex 32 > $work/connect.key && chmod 600 $work/connect.key"
# serve refuses it the same way, before it listens.
timeout 20 "$bin" serve --config "$work/c.toml" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" = 2 ] || fail "serve with a missing key file exited $rc, not 2"
grep -qF "$work/c.toml:3:1: [connect] key_file $work/connect.key: missing" "$work/err" || fail "serve did not say why"

echo "not a key at all" >"$work/connect.key"
chmod 600 "$work/connect.key"
refused "not a key: it must hold 64 hex digits or 32 raw bytes; make one with"
grep -qF "not a key at all" "$work/out" "$work/err" && fail "check printed the key file's content"
mkdir -p "$work/keydir"
sed -i "s#key_file = .*#key_file = \"$work/keydir\"#" "$work/c.toml"
"$bin" check --config "$work/c.toml" >"$work/out" 2>"$work/err"
[ $? = 2 ] && grep -qF "$work/c.toml:3:1: [connect] key_file $work/keydir: not a regular file" "$work/err" ||
    fail "a directory as the key file is not a config error"
sed -i "s#key_file = .*#key_file = \"$work/connect.key\"#" "$work/c.toml"

openssl rand -hex 32 >"$work/connect.key"
chmod 644 "$work/connect.key"
check
grep -qF "key file:  $work/connect.key (readable by others: chmod 600 $work/connect.key)" "$work/out" ||
    fail "a key file others may read is not said to be"
chmod 600 "$work/connect.key"
check
grep -qF "key file:  $work/connect.key (readable)" "$work/out" || fail "a good key file is not said to be readable"
grep -qx "  google:    client g-client.apps.googleusercontent.com (client secret set)" "$work/out" ||
    fail "no google line"
grep -qx "  microsoft: client m-client (no client secret), tenant organizations" "$work/out" || fail "no microsoft line"
grep -qx "  rate:      100 requests per 1m for all connections, at most 4 at once per connection" "$work/out" ||
    fail "no rate line"
[ -s "$work/err" ] && fail "warnings for a good [connect]"
key=$(cat "$work/connect.key")
grep -qF -e "$CONNECT_TEST_SECRET" -e "$key" "$work/out" "$work/err" && fail "check printed a secret"

# A mistake in [connect]: one FILE:LINE:COL line, exit status 2.
sed -i 's/tenant = "organizations"/calendar = "x"/' "$work/c.toml"
"$bin" check --config "$work/c.toml" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" = 2 ] || fail "a [connect] mistake exited $rc, not 2"
grep -qF "$work/c.toml:6:39: 'calendar' is not valid in [connect.microsoft] (each connection's calendar is named after its feed)" \
    "$work/err" || fail "the [connect] mistake is not reported at its place"

echo "ok [check_connect]"
