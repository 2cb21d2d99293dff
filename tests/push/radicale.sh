# File: radicale.sh
# Shell pieces for the push tests and deploy/bench-push.sh: Debian's Radicale (a real CalDAV server) on a
# free loopback port with its own storage and one htpasswd user, the logging fault proxy in front of it
# (dav_proxy.py), the calendar read back by a real client (dav_check.py), and the config of a push target.
# Source it after run_fixtures.sh; call push_init (not init_work): its exit trap stops icsbridge, the fake
# upstream, the proxy and Radicale by pid, then removes the work dir and Radicale's storage.

push_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3

# push_init: init_work, and an exit trap that also stops Radicale (radicale_pid) and removes its storage
# (which may live outside $work). PUSH_KEEP_WORK=1 keeps both files and storage and says where they are.
push_init() {
    init_work
    radicale_store=
    radicale_pid=
    trap push_cleanup EXIT
}
push_cleanup() {
    local pid
    for pid in $serve_pid $fake_pid "${extra_pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    [ -n "$radicale_pid" ] && stop_radicale
    if [ "${PUSH_KEEP_WORK:-0}" = 1 ]; then
        echo "kept: $work $radicale_store" >&2
        return
    fi
    rm -rf "$work"
    [ -n "$radicale_store" ] && rm -rf "$radicale_store"
}

# stop_radicale: SIGTERM, and SIGABRT after 5 s (its threads' stacks then end its log). Radicale waits for
# every request thread before it exits, and one that hangs holds it (as the dateutil deadlock did, see
# radicale_site/sitecustomize.py).
stop_radicale() {
    kill -TERM "$radicale_pid" 2>/dev/null
    for _ in $(seq 1 50); do
        kill -0 "$radicale_pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -ABRT "$radicale_pid" 2>/dev/null; then
        echo "radicale did not stop on SIGTERM within 5 s (a hung request thread): its stacks are in radicale.log" >&2
        sleep 0.5
    fi
    kill -KILL "$radicale_pid" 2>/dev/null
    wait "$radicale_pid" 2>/dev/null
    radicale_pid=
}

# radicale_storage_dir: where Radicale keeps its collections. Radicale fsyncs every write (~25 PUT/s on a
# disk here, ~130/s on tmpfs) and its `_filesystem_fsync` cannot be set from a config file, so /dev/shm when
# it has room (RADICALE_STORE_PARENT overrides), else the work dir.
radicale_storage_dir() {
    local parent=${RADICALE_STORE_PARENT:-}
    if [ -z "$parent" ] && [ -d /dev/shm ] && [ -w /dev/shm ] &&
        [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt 1048576 ]; then
        parent=/dev/shm
    fi
    mktemp -d "${parent:-$work}/icsbridge-radicale-XXXXXX"
}

# start_radicale [USER]: Radicale on 127.0.0.1 (a free port), an htpasswd (APR1-MD5) user with a random
# password, owner_only rights, its log in $work/radicale.log. Sets radicale_url (http://127.0.0.1:PORT/),
# radicale_pid (stopped by the exit trap), dav_user and dav_password, or fails the test.
start_radicale() {
    [ -x /usr/bin/radicale ] || $python -c 'import radicale' 2>/dev/null ||
        fail "radicale is not installed (deploy/install-deps.sh installs it)"
    dav_user=${1:-alice}
    dav_password=dav-pw-$(od -An -N9 -tx1 /dev/urandom | tr -d ' \n')
    radicale_store=$(radicale_storage_dir) || fail "no directory for Radicale's storage"
    DAV_PW=$dav_password $python -c '
import os, sys
from passlib.hash import apr_md5_crypt
print("%s:%s" % (sys.argv[1], apr_md5_crypt.hash(os.environ["DAV_PW"])))' "$dav_user" >"$work/radicale.users" ||
        fail "could not hash the test password (python3-passlib)"
    # Port 0: Radicale logs the port it bound at level info ("Listening on '[127.0.0.1]:PORT'").
    # delay: the pause after a wrong password (default 1 s), kept short for the tests.
    cat >"$work/radicale.conf" <<CONF
[server]
hosts = 127.0.0.1:0
max_connections = 20
[auth]
type = htpasswd
htpasswd_filename = $work/radicale.users
htpasswd_encryption = md5
delay = 0.1
[rights]
type = owner_only
[storage]
filesystem_folder = $radicale_store/collections
[web]
type = none
[logging]
level = ${RADICALE_LOG_LEVEL:-info}
mask_passwords = True
CONF
    # -X faulthandler: a SIGABRT (stop_radicale's last resort) writes every thread's stack to the log.
    # radicale_site/sitecustomize.py: a fix for a dateutil deadlock that hangs Radicale's threads under
    # concurrent PUTs (RADICALE_UNPATCHED=1 leaves it out).
    PYTHONPATH=$push_dir/radicale_site $python -X faulthandler -m radicale --config "$work/radicale.conf" \
        2>"$work/radicale.log" &
    radicale_pid=$!
    local port=
    for _ in $(seq 1 100); do
        port=$(grep -o "Listening on '\[127.0.0.1\]:[0-9]*" "$work/radicale.log" | head -1 | grep -o '[0-9]*$')
        [ -n "$port" ] && grep -q "Radicale server ready" "$work/radicale.log" && break
        kill -0 "$radicale_pid" 2>/dev/null || fail "radicale exited at start: $(tail -3 "$work/radicale.log")"
        sleep 0.1
    done
    [ -n "$port" ] || fail "radicale did not start listening within 10 s"
    radicale_url=http://127.0.0.1:$port/
    (umask 077; printf 'user = "%s:%s"\n' "$dav_user" "$dav_password" >"$work/dav.curlrc")
    # Answering: the principal collection exists once the user has signed in once.
    local code
    code=$(dav_curl -o /dev/null -w '%{http_code}' -X PROPFIND -H 'Depth: 0' "$radicale_url$dav_user/")
    [ "$code" = 207 ] || fail "radicale does not answer PROPFIND for $dav_user (HTTP $code)"
}

# dav_curl ARGS...: curl signed in as the test user (the password in a curl config file, not in argv).
dav_curl() { curl -s -K "$work/dav.curlrc" "$@"; }

# start_dav_proxy [NAME [ARGS...]]: dav_proxy.py in front of Radicale, logging to $work/NAME.log (NAME
# defaults to proxy), with its extra ARGS (--tls CERT KEY). Sets proxy_url (http://127.0.0.1:PORT/, or
# https://) and proxy_pid (also added to extra_pids), or fails the test.
start_dav_proxy() {
    local line name=${1:-proxy}
    rm -f "$work/$name-ready"
    mkfifo "$work/$name-ready"
    : >"$work/$name.log"
    $python "$push_dir/dav_proxy.py" "$radicale_url" "$work/$name.log" "${@:2}" >"$work/$name-ready" 2>"$work/$name.err" &
    proxy_pid=$!
    extra_pids+=("$proxy_pid")
    read -r -t 30 line <"$work/$name-ready" || fail "the DAV proxy did not start: $(tail -3 "$work/$name.err")"
    case "$line" in "listening on http"*"://127.0.0.1:"*) proxy_url="${line#listening on }/" ;;
        *) fail "the DAV proxy said: $line" ;; esac
}

# start_tls_proxy: a second proxy, named tls-proxy, serving HTTPS with a self-signed certificate for 127.0.0.1
# ($work/tls.pem, its key $work/tls.key: trusted only through ca_file). Sets tls_url; proxy_url stays the plain
# proxy's.
start_tls_proxy() {
    local plain=$proxy_url
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 -keyout "$work/tls.key" -out "$work/tls.pem" 2>"$work/openssl.err" ||
        fail "could not make a certificate: $(cat "$work/openssl.err")"
    start_dav_proxy tls-proxy --tls "$work/tls.pem" "$work/tls.key"
    tls_url=$proxy_url
    proxy_url=$plain
}

# proxy_fault STATUS COUNT [RETRY_AFTER [METHOD]]: the next COUNT requests (of METHOD) get STATUS.
proxy_fault() {
    local q="status=$1&count=$2"
    [ -n "${3:-}" ] && q="$q&retry_after=$3"
    [ -n "${4:-}" ] && q="$q&method=$4"
    curl -s -f -X POST -o /dev/null "${proxy_url}__proxy/fault?$q" || fail "could not arm the proxy's fault"
}
proxy_clear() { curl -s -f -X POST -o /dev/null "${proxy_url}__proxy/clear"; }

# proxy_client PID NAME: the proxy logs the requests process PID sends as client NAME (else "-").
proxy_client() {
    curl -s -f -X POST -o /dev/null "${proxy_url}__proxy/client?pid=$1&name=$2" || fail "could not name client $2"
}

# proxy_count [METHOD...] [-s STATUS] [-c create|match|-] [-w CLIENT]: requests in the proxy log (all, or
# of the METHODs; with -s, only those answered STATUS; with -c, only those with that precondition: "create"
# is If-None-Match: *, "match" If-Match; with -w, only those client CLIENT sent, see proxy_client).
proxy_count() {
    local methods=() status= cond= who=
    while [ $# -gt 0 ]; do
        case "$1" in
            -s) status=$2; shift 2 ;; -c) cond=$2; shift 2 ;; -w) who=$2; shift 2 ;;
            *) methods+=("$1"); shift ;;
        esac
    done
    awk -v m=" ${methods[*]} " -v s="$status" -v c="$cond" -v w="$who" '
        (m == "  " || index(m, " " $1 " ")) && (s == "" || $3 == s) && (c == "" || $5 == c) && (w == "" || $6 == w) { n++ }
        END { print n + 0 }' "$work/proxy.log"
}
# proxy_created: PUTs with If-None-Match: * that succeeded (items created).
proxy_created() { proxy_count PUT -c create -s 201; }
# proxy_writes: PUT, DELETE, MKCALENDAR, MKCOL, PROPPATCH, MOVE and COPY requests in the proxy log.
proxy_writes() { proxy_count PUT DELETE MKCALENDAR MKCOL PROPPATCH MOVE COPY; }
# proxy_reset_log: empties the proxy log (it appends, so this is safe while it runs).
proxy_reset_log() { : >"$work/proxy.log"; }
# proxy_summary: the proxy log as "N METHOD STATUS" lines, for messages.
proxy_summary() {
    awk '{ print $1 ($5 == "create" || $5 == "match" ? "(" $5 ")" : ""), $3 }' "$work/proxy.log" | sort | uniq -c |
        awk '{ printf "%s%s %s x%s", sep, $2, $3, $1; sep = ", " }'
}

# dav_check ARGS...: dav_check.py as the test user against Radicale itself (not the proxy, so the tests'
# reads are not counted); prints its JSON.
dav_check() {
    DAV_PASSWORD=$dav_password $python "$push_dir/dav_check.py" --url "$radicale_url" --user "$dav_user" "$@"
}

# json_get FILE EXPR: a Python expression over the JSON in FILE (as `d`), printed.
json_get() { $python -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# caldav_target_toml NAME URL [LINE...]: a [targets.NAME] table for the test user (password from the
# environment variable TEST_DAV_PASSWORD, which the caller exports), with extra key lines.
caldav_target_toml() {
    printf '[targets.%s]\ntype = "caldav"\nurl = "%s"\nusername = "%s"\npassword_env = "TEST_DAV_PASSWORD"\n' \
        "$1" "$2" "$dav_user"
    shift 2
    [ $# -eq 0 ] || printf '%s\n' "$@"
}

# put_foreign_event HREF UID SUMMARY: a person's own event PUT straight into Radicale (not through the proxy).
put_foreign_event() {
    local code
    code=$(printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//their app//EN\r\nBEGIN:VEVENT\r\nUID:%s\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20270105T090000Z\r\nDTEND:20270105T100000Z\r\nSUMMARY:%s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' "$2" "$3" |
        dav_curl -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: text/calendar; charset=utf-8' \
            --data-binary @- "$radicale_url${1#/}")
    [ "$code" = 201 ] || fail "could not PUT the foreign event $1 (HTTP $code)"
}

# make_calendar PATH DISPLAYNAME [COMPONENTS]: MKCALENDAR at PATH (under Radicale's root) with that display
# name and, when given, a supported-calendar-component-set (e.g. "VEVENT").
make_calendar() {
    local comps= c code
    for c in ${3:-}; do comps="$comps<C:comp name=\"$c\"/>"; done
    [ -n "$comps" ] && comps="<C:supported-calendar-component-set>$comps</C:supported-calendar-component-set>"
    code=$(dav_curl -o /dev/null -w '%{http_code}' -X MKCALENDAR -H 'Content-Type: application/xml' \
        --data-binary "<?xml version=\"1.0\" encoding=\"utf-8\"?><C:mkcalendar xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:set><D:prop><D:displayname>$2</D:displayname>$comps</D:prop></D:set></C:mkcalendar>" \
        "$radicale_url${1#/}")
    [ "$code" = 201 ] || fail "MKCALENDAR $1 answered HTTP $code"
}

# resource_name UID TARGET: the name target TARGET gives UID's resource,
# icsbridge-<first 8 hex of SHA-256(TARGET)>-<first 32 hex of SHA-256(UID)>.ics.
resource_name() {
    printf 'icsbridge-%s-%s.ics' "$(printf '%s' "$2" | sha256sum | cut -c1-8)" "$(printf '%s' "$1" | sha256sum | cut -c1-32)"
}

# fixtures_without SRC DIR EVENT_ID...: a copy of SRC's upstream fixtures in DIR without those events.
fixtures_without() {
    cp -r "$1/tests/fixtures/upstream" "$2"
    $python - "$2/events/events.json" "${@:3}" <<'PY'
import json, sys
path, gone = sys.argv[1], set(sys.argv[2:])
d = json.load(open(path))
d["events"] = [e for e in d["events"] if e["id"] not in gone]
json.dump(d, open(path, "w"), ensure_ascii=False, indent=1)
PY
}

# push_feed_config FILE TARGET_LINES...: [server] and [storage] ($work/state), the fake upstream's events
# source, the organizer feed pub pushed into "family", and the target family (the given key lines after
# type, username and password_env).
push_feed_config() {
    local file=$1
    shift
    {
        server_toml "$work/state" "127.0.0.1:0"
        echo
        events_source_toml "$upstream" 'timeout = "5s"'
        echo
        organizer_feed_toml pub 'push = ["family"]'
        echo
        printf '[targets.family]\ntype = "caldav"\nusername = "%s"\npassword_env = "TEST_DAV_PASSWORD"\n' "$dav_user"
        printf '%s\n' "$@"
    } >"$file"
}

# run_push [ARGS...]: `icsbridge push --config $work/push.toml ARGS`, stdout in $work/push.out, stderr in
# $work/push.err; sets push_rc. $bin is the icsbridge binary.
run_push() {
    "$bin" push --config "$work/push.toml" "$@" >"$work/push.out" 2>"$work/push.err"
    push_rc=$?
}

# expect_push_ok WHAT [ARGS...]: run_push, failing the test unless it exits 0.
expect_push_ok() {
    local what=$1
    shift
    run_push "$@"
    [ "$push_rc" = 0 ] || fail "$what: push exited $push_rc: $(cat "$work/push.err")"
}

# export_feed FILE: the feed pub as `icsbridge export` renders it now (what the calendar must mirror).
export_feed() {
    "$bin" export --config "$work/push.toml" --feed pub --output "$1" 2>"$work/export.err" ||
        fail "export failed: $(cat "$work/export.err")"
}
