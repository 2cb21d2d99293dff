# File: serve_fixtures.sh
# Shell pieces shared by the scripts that run `icsbridge serve` from pre-made snapshots next to nginx
# (tests/deploy/nginx_proxy_test.sh, deploy/bench-serve.sh). Source it; it defines functions only.
# It brings run_fixtures.sh along: the tests that source it call its fail (without it, fail was an unknown
# command there and a failed check went on to "ok").

. "$(dirname "${BASH_SOURCE[0]}")/run_fixtures.sh"

# offline_source: TOML for the events source "eb" on a dead port, so refreshes fail and the snapshots in
# storage.dir are what is served.
offline_source() {
    cat <<TOML
[sources.eb]
type = "events"
base_url = "http://127.0.0.1:9"
token = "x"
timeout = "1s"
TOML
}

# nginx_temp_paths DIR: http-block lines that keep an unprivileged nginx's temp files in DIR.
nginx_temp_paths() {
    local kind
    for kind in client_body proxy fastcgi uwsgi scgi; do
        echo "    ${kind}_temp_path $1;"
    done
}

# offline_feed NAME SELECT: a feed of the offline source that is served from its snapshot all day.
offline_feed() {
    printf '[feeds.%s]\nsource = "eb"\nselect = "%s"\nrefresh = "1d"\n' "$1" "$2"
}

# wait_listening LOG PID [SECONDS]: waits (up to SECONDS, 30 by default) until `serve` (PID, logging to LOG)
# says where it listens; prints http://127.0.0.1:PORT. Fails (status 1) if it exits or never says.
wait_listening() {
    local base
    for _ in $(seq 1 $((${3:-30} * 10))); do
        base=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$1" | head -1 | sed 's/listening on //')
        [ -n "$base" ] && { echo "$base"; return 0; }
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# sample_snapshot PATH N: a disk snapshot of a calendar with N events, as `serve` writes them (header line
# with the body's SHA-256 ETag, then the body).
sample_snapshot() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import hashlib, json, sys
n = int(sys.argv[2])
body = "".join(["BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//icsbridge//test//EN\r\n"] +
               ["BEGIN:VEVENT\r\nUID:e%d@events.example.com\r\nDTSTAMP:20260101T000000Z\r\n"
                "DTSTART:20260301T180000Z\r\nSUMMARY:Meetup %d\r\nEND:VEVENT\r\n" % (i, i) for i in range(n)] +
               ["END:VCALENDAR\r\n"]).encode()
head = {"format": 1, "etag": '"%s"' % hashlib.sha256(body).hexdigest(), "last_modified": 1767225600,
        "fetched_at": 1767225600, "items": n, "bytes": len(body)}
open(sys.argv[1], "wb").write(json.dumps(head).encode() + b"\n" + body)
PY
}

# test_cert WORK: a self-signed certificate for calendar.example.org, WORK/cert.pem and WORK/key.pem.
test_cert() {
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=calendar.example.org \
        -addext subjectAltName=DNS:calendar.example.org -keyout "$1/key.pem" -out "$1/cert.pem" 2>/dev/null
}

# test_nginx WORK SITE HTTP_PORT HTTPS_PORT [SED_ARG...] [-- INCLUDE...]: deploy/nginx.conf (SITE) made
# runnable by an unprivileged nginx: loopback test ports, test_cert's certificate, the access log in
# WORK/nginx, plus the extra sed arguments; written to WORK/nginx/site.conf, and WORK/nginx/nginx.conf
# including the INCLUDE files, then the site.
test_nginx() {
    local work=$1 site=$2 http=$3 https=$4
    shift 4
    local seds=() includes=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do seds+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    includes=("$@")
    mkdir -p "$work/nginx/tmp"
    sed -e "s|listen 80;|listen 127.0.0.1:$http;|; s|listen 443 ssl http2;|listen 127.0.0.1:$https ssl http2;|" \
        -e '/listen \[::\]/d' \
        -e "s|/etc/letsencrypt/live/calendar.example.org/fullchain.pem|$work/cert.pem|" \
        -e "s|/etc/letsencrypt/live/calendar.example.org/privkey.pem|$work/key.pem|" \
        -e "s|/var/log/nginx/icsbridge.access.log|$work/nginx/access.log|" \
        -e "s|/var/log/nginx/icsbridge.error.log|$work/nginx/site-error.log|" \
        "${seds[@]}" "$site" >"$work/nginx/site.conf"
    {
        printf 'daemon off;\npid %s/nginx/nginx.pid;\nerror_log %s/nginx/error.log;\n' "$work" "$work"
        # Started as root, nginx's workers would be "nobody", who cannot write the request bodies and answers
        # it buffers into WORK/nginx/tmp (mode 0700 like WORK): keep them root, as the master is.
        [ "$(id -u)" = 0 ] && printf 'user root;\n'
        printf 'events { worker_connections 64; }\nhttp {\n'
        nginx_temp_paths "$work/nginx/tmp"
        local f
        for f in "${includes[@]}" "$work/nginx/site.conf"; do printf '    include %s;\n' "$f"; done
        printf '}\n'
    } >"$work/nginx/nginx.conf"
}

# nginx_test_init: exits unless nginx is installed; makes $work, removed at exit after the pids in $pids
# are stopped.
nginx_test_init() {
    command -v nginx >/dev/null || { echo "FAIL: nginx is not installed (deploy/install-deps.sh installs it)" >&2; exit 1; }
    work=$(mktemp -d)
    pids=()
    trap nginx_test_cleanup EXIT
}
nginx_test_cleanup() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$work"
}
