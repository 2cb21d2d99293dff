#!/usr/bin/env bash
# File: credentials_test.sh
# A target's password goes only to its own origin (issue 35, defect 1). Two fault proxies in front of one
# Radicale: "proxy" is the target's url, "other" another origin (another port on 127.0.0.1) that would
# forward whatever it gets, Authorization included.
#   redirect     PROPFIND on the calendar answered 302 to the same path on "other": push exits 1 with one
#                line naming both origins; no request with Authorization reaches "other"; nothing written;
#                no state file
#   downgrade    the same from an https target (a TLS proxy trusted through ca_file) to plain http: refused
#   old state    a state file of an earlier version whose collection is on "other" (where an old redirect
#                led): refused with a message naming both origins, never used; "other" sees no request
#   same origin  a redirect within the target's own origin (a relative Location) is followed and the push
#                mirrors the feed
#   credentials_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=push.credentials
fail_logs="push.out push.err proxy.log other.log tls-proxy.log radicale.log"
push_init

start_fake_upstream "$fake" "$work" "$src/tests/fixtures/upstream"
start_radicale
start_dav_proxy other
other_url=$proxy_url
start_dav_proxy
export TEST_DAV_PASSWORD=$dav_password
make_calendar "$dav_user/family/" "Family"
push_feed_config "$work/push.toml" "url = \"${proxy_url}$dav_user/family/\""
origin_of() { sed -E 's#^(https?://[^/]+)/.*#\1#' <<<"$1"; }
home=$(origin_of "$proxy_url")
elsewhere=$(origin_of "$other_url")

# redirect_to PATH URL [PROXY_URL]: PROPFIND on PATH is answered 302 Location: URL (by "proxy", or PROXY_URL;
# -k: the TLS proxy's certificate is our own).
redirect_to() {
    curl -s -f -k -o /dev/null --get --data-urlencode "path=$1" --data-urlencode "location=$2" \
        --data-urlencode "method=PROPFIND" -X POST "${3:-$proxy_url}__proxy/redirect" || fail "could not arm the redirect"
}
# refused WHAT FROM TO: push exited 1 with a line naming the target and both origins, nothing reached
# "other" with credentials, nothing was written anywhere.
refused() {
    [ "$push_rc" = 1 ] || fail "$1: push exited $push_rc (want 1): $(cat "$work/push.out" "$work/push.err")"
    grep family "$work/push.err" | grep -F -- "$2" | grep -q -F -- "$3" ||
        fail "$1: no line naming family, $2 and $3: $(cat "$work/push.err")"
    [ "$(awk '$9 == "auth"' "$work/other.log" | wc -l)" = 0 ] ||
        fail "$1: credentials reached the other origin: $(awk '$9 == "auth"' "$work/other.log")"
    [ "$(grep -c -E '^(PUT|DELETE|MKCALENDAR|PROPPATCH) ' "$work/proxy.log" "$work/other.log" | awk -F: '{ n += $2 } END { print n }')" = 0 ] ||
        fail "$1: something was written"
    grep -q -F "$dav_password" "$work/push.out" "$work/push.err" && fail "$1: the password was printed"
    echo "$1: $(grep family "$work/push.err")"
}

# 1. A redirect to another origin.
redirect_to "/$dav_user/family/" "${other_url}$dav_user/family/"
run_push
refused "redirect" "$home" "$elsewhere"
[ -e "$work/state/push/family.json" ] && fail "redirect: a state file was written: $(cat "$work/state/push/family.json")"
proxy_clear

# 2. https down to http: a TLS target whose server redirects to a plain-http origin.
start_tls_proxy
push_feed_config "$work/tls.toml" "url = \"${tls_url}$dav_user/family/\"" "ca_file = \"$work/tls.pem\""
redirect_to "/$dav_user/family/" "${other_url}$dav_user/family/" "$tls_url"
"$bin" push --config "$work/tls.toml" >"$work/push.out" 2>"$work/push.err"
push_rc=$?
refused "downgrade" "$(origin_of "$tls_url")" "$elsewhere"
grep family "$work/push.err" | grep -q "never down to plain http" ||
    fail "downgrade: the message does not say why: $(cat "$work/push.err")"

# 3. A state file an earlier version wrote after following such a redirect: refused, not used.
mkdir -p "$work/state/push"
printf '{"version":1,"collection":"%s","sync_token":"","todos":true,"items":{},"listing":{}}' \
    "${other_url}$dav_user/family/" >"$work/state/push/family.json"
cp "$work/state/push/family.json" "$work/old-state.json"
run_push
refused "old state" "$home" "$elsewhere"
[ "$(wc -l <"$work/other.log")" = 0 ] || fail "old state: the other origin was asked: $(cat "$work/other.log")"
grep family "$work/push.err" | grep -q "kept push state" || fail "old state: the message does not name the state"
cmp -s "$work/old-state.json" "$work/state/push/family.json" || fail "old state: the state file was changed"
rm "$work/state/push/family.json"

# 4. A redirect within the target's own origin is followed: the user's collection sends us to the calendar.
proxy_reset_log
redirect_to "/$dav_user/" "/$dav_user/family/"
push_feed_config "$work/push.toml" "url = \"${proxy_url}$dav_user/\""
expect_push_ok "same origin"
grep -q "^family: created 34, updated 0, deleted 0, unchanged 0" "$work/push.out" ||
    fail "same origin: $(cat "$work/push.out")"
[ "$(wc -l <"$work/other.log")" = 0 ] || fail "same origin: the other origin was asked"
echo "same origin: $(head -1 "$work/push.out")"
echo "PASS [$test_name]"
