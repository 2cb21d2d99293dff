#!/usr/bin/env bash
# File: check_connect_test.sh
# `check` with [connect] (issue 27): the providers and the shared rate are listed, the key file is said to be
# missing (with the command that makes one), readable, or readable by others; the client secret and the
# key's bytes are never printed; a config mistake in [connect] exits 2.
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

check
grep -qx "  google:    client g-client.apps.googleusercontent.com (client secret set)" "$work/out" ||
    fail "no google line"
grep -qx "  microsoft: client m-client (no client secret), tenant organizations" "$work/out" || fail "no microsoft line"
grep -qx "  rate:      100 requests per 1m for all connections, at most 4 at once per connection" "$work/out" ||
    fail "no rate line"
grep -qF "key file:  $work/connect.key (missing; make one with: openssl rand -hex 32 > $work/connect.key && chmod 600" \
    "$work/out" || fail "a missing key file is not said to be missing"
grep -qF "warning: [connect] key_file $work/connect.key: missing" "$work/err" || fail "no warning for a missing key file"

openssl rand -hex 32 >"$work/connect.key"
chmod 644 "$work/connect.key"
check
grep -qF "key file:  $work/connect.key (readable by others: chmod 600 $work/connect.key)" "$work/out" ||
    fail "a key file others may read is not said to be"
chmod 600 "$work/connect.key"
check
grep -qF "key file:  $work/connect.key (readable)" "$work/out" || fail "a good key file is not said to be readable"
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
