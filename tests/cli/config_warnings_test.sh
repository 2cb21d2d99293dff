#!/usr/bin/env bash
# File: config_warnings_test.sh
# `check` warns, without failing, about a config file holding secrets that others may read and about a
# source reached over plain http:// beyond loopback (issue 16); it never prints the secret itself.
#   config_warnings_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u
bin=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/sh/run_fixtures.sh"
test_name=warnings
fail_logs="err"
init_work

config() { # config FILE BASE_URL TOKEN_LINE
    printf '[sources.eb]\ntype = "events"\nbase_url = "%s"\n%s\n\n[feeds.a]\nsource = "eb"\nselect = "organizer"\n' \
        "$2" "$3" >"$1"
}
check() { # check FILE: exit status must be 0; stderr in $work/err
    "$bin" check --config "$1" >/dev/null 2>"$work/err" || fail "check $1 exited $?"
}

# An inline token in a world-readable file: warned, with the fix, never the value.
config "$work/c.toml" "https://events.example.com" 'token = "warn-test-secret-42"'
chmod 644 "$work/c.toml"
check "$work/c.toml"
grep -q "warning: .*c.toml holds secrets .* readable by everyone (mode 0644): chmod 600" "$work/err" ||
    fail "no warning for a world-readable file with a token"
grep -q "warn-test-secret-42" "$work/err" && fail "the warning shows the secret"
chmod 640 "$work/c.toml"
check "$work/c.toml"
grep -q "readable by its group (mode 0640)" "$work/err" || fail "no warning for a group-readable file"
chmod 600 "$work/c.toml"
check "$work/c.toml"
[ -s "$work/err" ] && fail "a 0600 file was warned about"

# The token from the environment: the file holds no secret, so its mode does not matter.
export WARN_TEST_TOKEN=warn-test-secret-42
config "$work/env.toml" "https://events.example.com" 'token_env = "WARN_TEST_TOKEN"'
chmod 644 "$work/env.toml"
check "$work/env.toml"
[ -s "$work/err" ] && fail "a file without secrets was warned about"

# Plain http:// to another host: warned; to loopback: not.
for url in http://events.example.com http://10.1.2.3:8080 "http://[2001:db8::1]"; do
    config "$work/h.toml" "$url" 'token_env = "WARN_TEST_TOKEN"'
    check "$work/h.toml"
    grep -q "warning: \[sources.eb\] base_url is plain http:// to .*: its token crosses the network unencrypted" \
        "$work/err" || fail "no warning for $url"
done
for url in http://127.0.0.1:9000 http://localhost:9000 "http://[::1]:9000" https://events.example.com; do
    config "$work/h.toml" "$url" 'token_env = "WARN_TEST_TOKEN"'
    check "$work/h.toml"
    [ -s "$work/err" ] && fail "$url was warned about"
done
# A feed whose last calendar in storage.dir is over 1 MB: Google Calendar would drop it (issue 28).
write_snapshot() { # write_snapshot DIR NAME EVENTS: a valid snapshot file of that many small events
    /usr/bin/python3 - "$@" <<'PY'
import hashlib, json, os, sys
d, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
body = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
for i in range(n):
    body += ("BEGIN:VEVENT\r\nUID:%d@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20270102T100000Z\r\n"
             "SUMMARY:Event %d\r\nDESCRIPTION:%s\r\nEND:VEVENT\r\n") % (i, i, "x" * 60)
body += "END:VCALENDAR\r\n"
raw = body.encode()
head = {"format": 1, "etag": '"%s"' % hashlib.sha256(raw).hexdigest(), "last_modified": 1767225600,
        "fetched_at": 1767225600, "items": n, "bytes": len(raw)}
os.makedirs(d, exist_ok=True)
with open(os.path.join(d, name + ".snapshot"), "wb") as f:
    f.write(json.dumps(head).encode() + b"\n" + raw)
PY
}
config "$work/g.toml" "https://events.example.com" 'token_env = "WARN_TEST_TOKEN"'
printf '\n[feeds.b]\nsource = "eb"\nselect = "search"\n\n[storage]\ndir = "%s/state"\n' "$work" >>"$work/g.toml"
write_snapshot "$work/state" a 8000
write_snapshot "$work/state" b 100
check "$work/g.toml"
grep -q "warning: \[feeds.a\]: the calendar is 1\.[0-9] MB: Google Calendar drops subscribed calendars over about 1 MB" \
    "$work/err" || fail "no warning for a feed over 1 MB"
grep -q "feeds.b" "$work/err" && fail "a small feed was warned about"

echo "ok [warnings]"
