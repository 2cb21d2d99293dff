#!/usr/bin/env bash
# File: nginx_proxy_test.sh
# deploy/nginx.conf as shipped, in front of a real `icsbridge serve`: nginx accepts the file, terminates TLS,
# redirects http to https, passes 304s and gzip through untouched, keeps ?token= out of its access log, and
# passes CalDAV (PROPFIND, REPORT, a subscriber's Basic login, a 1.5 MiB body, /.well-known/caldav's 308).
#   nginx_proxy_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u
bin=$1
src=$3
. "$src/tests/support/sh/serve_fixtures.sh"
fail_logs="nginx/error.log nginx/site-error.log serve.log"
nginx_test_init
token=nginx-test-feed-token-5b1d
hook_secret=nginx-test-hook-secret-77c2

# icsbridge with one token feed, served from a snapshot (its upstream is a dead port).
ib_port=$(free_port)
mkdir -p "$work/state"
sample_snapshot "$work/state/team.snapshot" 300
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:$ib_port" 'public_url = "https://calendar.example.org"' 'threads = 1')
$(offline_source)
webhook_secret = "$hook_secret"
$(offline_feed team organizer)
token = "$token"
TOML

# nginx with the shipped site file, only ports, paths and the certificate swapped for test ones.
test_cert "$work" || fail "openssl could not make a test certificate"
http_port=$(free_port)
https_port=$(free_port)
test_nginx "$work" "$src/deploy/nginx.conf" "$http_port" "$https_port" \
    -e "s|proxy_pass http://127.0.0.1:8080;|proxy_pass http://127.0.0.1:$ib_port;|"
grep -q "proxy_pass http://127.0.0.1:$ib_port;" "$work/nginx/site.conf" || fail "deploy/nginx.conf no longer proxies to 127.0.0.1:8080"
nginx -t -c "$work/nginx/nginx.conf" -p "$work/nginx" 2>"$work/nginx/t.out" || { cat "$work/nginx/t.out" >&2; fail "nginx rejects deploy/nginx.conf"; }
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
nginx_pid=$!
pids+=($nginx_pid)

url="https://calendar.example.org:$https_port/feeds/team.ics?token=$token"
c=(curl -s --cacert "$work/cert.pem" --resolve "calendar.example.org:$https_port:127.0.0.1"
    --resolve "calendar.example.org:$http_port:127.0.0.1")
for _ in $(seq 1 100); do "${c[@]}" -o /dev/null "https://calendar.example.org:$https_port/healthz" && break; sleep 0.1; done

# 0. icsbridge not running yet (a restart, a crash): nginx answers 502, and its error line, which quotes the
# request line, must not reach a log with the token or the hook secret in it (checked in 8).
"${c[@]}" -o /dev/null -w '%{http_code}' "$url" >"$work/s"
[ "$(cat "$work/s")" = 502 ] || fail "a feed with icsbridge down gave $(cat "$work/s"), not 502"
"${c[@]}" -o /dev/null -w '%{http_code}' --data '{}' "https://calendar.example.org:$https_port/hooks/eb/$hook_secret" >"$work/s"
[ "$(cat "$work/s")" = 502 ] || fail "a hook with icsbridge down gave $(cat "$work/s"), not 502"

ICSBRIDGE_LOG=info "$bin" serve --config "$work/serve.toml" 2>"$work/serve.log" &
pids+=($!)
wait_listening "$work/serve.log" "$!" >/dev/null || fail "icsbridge serve did not start"

# 1. A feed through TLS: the same bytes icsbridge serves.
"${c[@]}" -D "$work/h1" -o "$work/b1" "$url" || fail "no answer over TLS"
grep -q "^HTTP/[0-9.]* 200" "$work/h1" || fail "feed over TLS: $(head -1 "$work/h1")"
curl -s -o "$work/direct" "http://127.0.0.1:$ib_port/feeds/team.ics?token=$token"
cmp -s "$work/b1" "$work/direct" || fail "the proxied body differs from icsbridge's"
etag=$(tr -d '\r' <"$work/h1" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
lm=$(tr -d '\r' <"$work/h1" | sed -n 's/^[Ll]ast-[Mm]odified: //p')
[ -n "$etag" ] && [ -n "$lm" ] || fail "ETag or Last-Modified lost on the way"
# 2. Both validators reach icsbridge and its 304 comes back.
"${c[@]}" -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$url" >"$work/s" ; [ "$(cat "$work/s")" = 304 ] || fail "If-None-Match gave $(cat "$work/s")"
"${c[@]}" -o /dev/null -w '%{http_code}' -H "If-Modified-Since: $lm" "$url" >"$work/s" ; [ "$(cat "$work/s")" = 304 ] || fail "If-Modified-Since gave $(cat "$work/s")"
# 3. gzip is icsbridge's, passed through, and decodes to the same calendar.
"${c[@]}" -D "$work/h2" -o "$work/b2.gz" -H 'Accept-Encoding: gzip' "$url"
grep -qi "^content-encoding: gzip" "$work/h2" || fail "gzip did not pass through"
gzip -dc "$work/b2.gz" | cmp -s - "$work/direct" || fail "the gzip body does not decode to the calendar"
# 4. A wrong token: the same 404 as an unknown feed.
"${c[@]}" -o /dev/null -w '%{http_code}' "https://calendar.example.org:$https_port/feeds/team.ics?token=wrong" >"$work/s"
[ "$(cat "$work/s")" = 404 ] || fail "a wrong token gave $(cat "$work/s")"
# Monitoring is not exposed through the proxy, however the path is spelled (issue 16).
for path in /healthz /metrics /%68ealthz //metrics "/healthz?x=1" /./metrics; do
    "${c[@]}" -o "$work/mon" -w '%{http_code}' "https://calendar.example.org:$https_port$path" >"$work/s"
    [ "$(cat "$work/s")" = 404 ] || fail "$path through nginx gave $(cat "$work/s"), not 404"
    grep -q '"feeds"\|icsbridge_' "$work/mon" && fail "$path through nginx shows monitoring data"
done
# 5. Plain http redirects to https, path and query kept.
"${c[@]}" -o /dev/null -w '%{http_code} %{redirect_url}' "http://calendar.example.org:$http_port/feeds/team.ics?token=$token" >"$work/s"
case "$(cat "$work/s")" in
    "301 https://calendar.example.org"*"/feeds/team.ics?token=$token") ;;
    *) fail "http gave '$(sed "s/$token/***/g" "$work/s")', not a 301 to https" ;;
esac
# 6. A webhook goes through, and its secret (the last path segment) is logged as ***.
"${c[@]}" -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    --data '{"api_url": "http://127.0.0.1:9/v3/events/1/", "config": {"action": "event.updated"}}' \
    "https://calendar.example.org:$https_port/hooks/eb/$hook_secret" >"$work/s"
[ "$(cat "$work/s")" = 202 ] || fail "a hook through nginx gave $(cat "$work/s"), not 202"
# 7. CalDAV through the proxy: PROPFIND and REPORT pass, /.well-known/caldav is icsbridge's own 308 (plain http
# gets a 308 to https: a 301 would turn a PROPFIND into a GET), a subscriber's login opens the token feed, and
# a 1.5 MiB multiget (over nginx's default 1m) reaches icsbridge.
h="https://calendar.example.org:$https_port"
"${c[@]}" -o /dev/null -w '%{http_code} %{redirect_url}' -X PROPFIND "$h/.well-known/caldav" >"$work/s"
case "$(cat "$work/s")" in "308 $h/dav/") ;; *) fail "/.well-known/caldav through nginx gave '$(cat "$work/s")'" ;; esac
"${c[@]}" -o /dev/null -w '%{http_code}' -X PROPFIND "http://calendar.example.org:$http_port/dav/" >"$work/s"
[ "$(cat "$work/s")" = 308 ] || fail "PROPFIND over plain http gave $(cat "$work/s"), not 308"
"${c[@]}" -o "$work/dav" -w '%{http_code}' -X PROPFIND -H 'Depth: 1' "$h/dav/users/subscriber/feeds/" >"$work/s"
[ "$(cat "$work/s")" = 401 ] || fail "the subscriber's home without a login gave $(cat "$work/s"), not 401"
"${c[@]}" -o "$work/dav" -w '%{http_code}' -u "subscriber:$token" -X PROPFIND -H 'Depth: 1' \
    "$h/dav/users/subscriber/feeds/" >"$work/s"
[ "$(cat "$work/s")" = 207 ] || fail "the subscriber's home through nginx gave $(cat "$work/s")"
grep -q '<href>/dav/users/subscriber/feeds/team/</href>' "$work/dav" || fail "the home does not list the token feed"
{
    printf '<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>'
    for i in $(seq 1 20000); do printf '<D:href>/dav/users/subscriber/feeds/team/%032d.ics</D:href>' "$i"; done
    printf '</C:calendar-multiget>'
} >"$work/multiget.xml"
[ "$(stat -c %s "$work/multiget.xml")" -gt 1100000 ] || fail "the multiget body is too small to test the limit"
"${c[@]}" -o "$work/dav" -w '%{http_code}' -u "subscriber:$token" -X REPORT -H 'Content-Type: application/xml' \
    --data-binary "@$work/multiget.xml" "$h/dav/users/subscriber/feeds/team/" >"$work/s"
[ "$(cat "$work/s")" = 207 ] || fail "a 1.5 MiB multiget through nginx gave $(cat "$work/s"), not 207"
login=$(printf 'subscriber:%s' "$token" | base64 -w0)
# 8. The token and the hook secret are in no nginx log line (icsbridge's own log redacts them too).
kill -HUP "$nginx_pid" 2>/dev/null; sleep 0.3
[ -s "$work/nginx/access.log" ] || fail "nginx wrote no access log"
grep -q '"GET /feeds/team.ics" 502' "$work/nginx/access.log" || fail "the access log lacks the 502 of icsbridge down"
logs=("$work/nginx/access.log" "$work/nginx/error.log" "$work/serve.log")
[ -e "$work/nginx/site-error.log" ] && logs+=("$work/nginx/site-error.log")
if grep -q "$token\|$login" "${logs[@]}"; then fail "the feed token reached a log"; fi
if grep -q "$hook_secret" "${logs[@]}"; then fail "the hook secret reached a log"; fi
grep -q '"POST /hooks/eb/\*\*\*" 202' "$work/nginx/access.log" || fail "the access log lacks the redacted hook line"
grep -q '"GET /feeds/team.ics" 200' "$work/nginx/access.log" || fail "the access log lacks the request line"
echo "nginx_test: ok"
