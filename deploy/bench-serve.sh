#!/usr/bin/env bash
# File: bench-serve.sh
# Benchmark (not a test): icsbridge serve vs nginx serving the same bytes as a static file, for three feeds,
# plain, gzip and 304, with `wrk -t2 -c64 -d10s --latency` on loopback. The feeds: big (10,000 events, short
# descriptions, 9.8 MB), small (100 events with the ~2 KB HTML descriptions real organizers write, so each has
# a DESCRIPTION and an X-ALT-DESC: 425 KB, the issue's "100-event feed (419 KB)"; BENCH_DESCRIPTION_BYTES sets
# their size) and short (the same 100 events with short descriptions, 99 KB: what "small" was until 2026-11-28).
# Prints requests/s and p99 side by side (median of BENCH_RUNS=3 runs each, icsbridge and nginx alternating)
# and the median of the per-pair ratios ("ratio": each icsbridge run over the nginx run right after it, so a
# load spike from elsewhere hits both sides of a pair). Target: ratio >= 0.97 (the issue's pass mark; the
# spread here is about +-6%), p99 <= 2x nginx's. BENCH_DURATION (10s) per run; BENCH_PERF=FILE records icsbridge with perf.
# BENCH_FEEDS="big small" (the default; add short) and BENCH_ENCODINGS="plain gzip 304" pick the cases
# (304: If-None-Match with the server's own ETag); BENCH_BIN=PATH serves with another icsbridge binary.
# BENCH_BIN_B=PATH also serves the same snapshots with a second binary (an older build) and runs it third in
# each round (icsbridge, nginx, B): a line per case gives B's figures and the per-round ratios A/B.
# Then subscriber views: req/s of each cached view big.ics?V for V in BENCH_VIEWS (default "alarm=none&days=30"
# and "alarm=none", the latter as large as the feed, so the serving path is compared at equal size) against
# the plain big.ics on icsbridge itself (target >= 0.9x), and first-build costs (icsbridge-bench-view).
# BENCH_VIEWS= (empty) skips that part; BENCH_ONLY_VIEW=1 runs only it.
#   deploy/bench-serve.sh [BUILD_DIR]      (default build-bench, RelWithDebInfo)
# The access log is off on both sides (ICSBRIDGE_LOG=warn, access_log off), both use 2 threads/workers.
# nginx's files are in the page cache of the file system under TMPDIR (ext4 here, with large folios), and so
# are icsbridge's bodies: unlinked O_TMPFILE files in its storage.dir under TMPDIR (src/store/sealed_file.cpp).
# They were memfds (4 KiB shmem pages) until 2026-11-28, and wrk pays per page for what sendfile() hands it:
# nginx serving the 9.8 MB feed from tmpfs cost wrk as much as icsbridge's sendfile() from a memfd did (see
# sendfile_max_bytes in src/server/session_io.cpp). The O_TMPFILE experiment (2026-11-28, load 10-15) cut
# icsbridge's CPU per request to nginx's: 108 against 127 us at 425 KB, 1,179 against 2,985 us (the copy) at
# 9.8 MB. As landed (713b3f4, BENCH_FEEDS=small BENCH_ENCODINGS=plain BENCH_RUNS=5 BENCH_DURATION=5s, the
# memfd build as BENCH_BIN_B, load 5.5-8.3): ratio 0.987 and 1.065 in two runs; 99.1 and 94.9 us/req against
# nginx's 100.5 and 99.7 and the memfd build's 111.7 and 106.4. sendfile_max_bytes (8 MiB) with the tmpfile:
# a build with 64 MiB (BENCH_BIN, BENCH_FEEDS=big, BENCH_RUNS=3, the 8 MiB build as BENCH_BIN_B, load 7.0-7.5)
# spent 1,064 us/req against the copy's 2,229 at the same req/s (A/B 1.009); not raised yet (memfds too).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/support/sh/serve_fixtures.sh"
build=${1:-$src/build-bench}
duration=${BENCH_DURATION:-10s}
command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 1; }
command -v nginx >/dev/null || { echo "nginx is not installed" >&2; exit 1; }

cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$build" -j2 icsbridge icsbridge-fake-upstream icsbridge-bench-view >/dev/null

work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# 1. The two calendars: rendered by the real pipeline (export against the fake upstream) when it works,
#    else synthesized with the same shape (the bytes served are what is measured, not how they were made).
render() { # render NAME EVENTS [DESCRIPTION_BYTES]
    mkfifo "$work/ready-$1"
    "$build/icsbridge-fake-upstream" --port 0 --generate-events "$2" --page-size 200 --description-bytes "${3:-0}" \
        >"$work/ready-$1" 2>/dev/null &
    local pid=$!
    read -r line <"$work/ready-$1"
    cat >"$work/export-$1.toml" <<TOML
[sources.eb]
type = "events"
base_url = "${line#listening on }"
token = "demo-events-token"
timeout = "120s"
[feeds.$1]
source = "eb"
select = "organizer"
TOML
    "$build/icsbridge" export --config "$work/export-$1.toml" --feed "$1" --output "$work/$1.ics" 2>/dev/null ||
        /usr/bin/python3 - "$2" "$work/$1.ics" <<'PY'
import sys
n, out = int(sys.argv[1]), sys.argv[2]
lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//icsbridge//bench//EN", "METHOD:PUBLISH"]
for i in range(n):
    lines += ["BEGIN:VEVENT", "UID:event-%d@events.example.com" % (100000 + i), "DTSTAMP:20260101T000000Z",
              "DTSTART;TZID=America/Los_Angeles:20260%d%02dT183000" % (1 + i % 9, 1 + i % 28),
              "DTEND;TZID=America/Los_Angeles:20260%d%02dT210000" % (1 + i % 9, 1 + i % 28),
              "SUMMARY:Meetup number %d: systems programming\\, talks and demos" % i,
              "DESCRIPTION:Join us for an evening of talks. Agenda: doors at 18:30\\, talks at 19:00.\\n"
              "Slides: https://example.org/slides/%d" % i,
              "LOCATION:Venue %d\\, 1 Main St\\, San Francisco\\, CA 94103" % (i % 50),
              "URL:https://events.example.com/e/%d" % (100000 + i), "END:VEVENT"]
lines.append("END:VCALENDAR")
open(out, "wb").write(("\r\n".join(lines) + "\r\n").encode())
PY
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null || true
}
feeds=${BENCH_FEEDS:-big small}
render big 10000 # always: the views below are of it
render small 100 "${BENCH_DESCRIPTION_BYTES:-2000}"
render short 100

# 2. Pre-rendered snapshots in storage.dir (the format of src/store/snapshot_file.cpp) and the same bytes
#    for nginx, with a precompressed .gz beside each for gzip_static.
mkdir -p "$work/state" "$work/www/feeds"
for f in big small short; do
    /usr/bin/python3 - "$work/$f.ics" "$work/state/$f.snapshot" <<'PY'
import hashlib, json, sys, time
body = open(sys.argv[1], "rb").read()
items = body.count(b"BEGIN:VEVENT")
now = int(time.time())
head = {"format": 1, "etag": '"%s"' % hashlib.sha256(body).hexdigest(), "last_modified": now,
        "fetched_at": now, "items": items, "bytes": len(body)}
open(sys.argv[2], "wb").write(json.dumps(head).encode() + b"\n" + body)
PY
    cp "$work/$f.ics" "$work/www/feeds/$f.ics"
    gzip -9 -k "$work/www/feeds/$f.ics"
done

# 3. icsbridge with the upstream on a dead port (refresh fails, the snapshots are served).
ib_port=$(free_port)
cat >"$work/serve.toml" <<TOML
[server]
listen = "127.0.0.1:$ib_port"
public_url = "http://127.0.0.1:$ib_port"
threads = 2
max_connections_per_client = 0 # every wrk connection comes from 127.0.0.1
[storage]
dir = "$work/state"
$(offline_source)
$(offline_feed big organizer)
$(offline_feed small search)
$(offline_feed short search)
TOML
ICSBRIDGE_LOG=warn "${BENCH_BIN:-$build/icsbridge}" serve --config "$work/serve.toml" 2>"$work/serve.log" &
pids+=($!)

# 4. nginx, foreground, same bytes.
ng_port=$(free_port)
mkdir -p "$work/nginx"
chmod -R a+rX "$work" # nginx workers run as an unprivileged user
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 2;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
$(nginx_temp_paths "$work/nginx/tmp")
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    types { text/calendar ics; }
    server {
        listen 127.0.0.1:$ng_port;
        root $work/www;
        gzip_static on;
    }
}
CONF
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)

# 4b. BENCH_BIN_B: the same snapshots (its own copy of storage.dir) served by another binary.
b_port=
if [ -n "${BENCH_BIN_B:-}" ]; then
    b_port=$(free_port)
    cp -r "$work/state" "$work/state-b"
    sed -e "s#127.0.0.1:$ib_port#127.0.0.1:$b_port#g" -e "s#^dir = .*#dir = \"$work/state-b\"#" \
        "$work/serve.toml" >"$work/serve-b.toml"
    ICSBRIDGE_LOG=warn "$BENCH_BIN_B" serve --config "$work/serve-b.toml" 2>"$work/serve-b.log" &
    pids+=($!)
fi

for url in "http://127.0.0.1:$ib_port/feeds/small.ics" "http://127.0.0.1:$ng_port/feeds/small.ics" \
    ${b_port:+"http://127.0.0.1:$b_port/feeds/small.ics"}; do
    for _ in $(seq 1 100); do curl -sf -o /dev/null "$url" && break; sleep 0.1; done
    curl -sf -o /dev/null "$url" || { echo "not serving: $url" >&2; cat "$work/serve.log" >&2; exit 1; }
done
for f in big small short; do
    cmp -s <(curl -s "http://127.0.0.1:$ib_port/feeds/$f.ics") "$work/$f.ics" &&
        cmp -s <(curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$ib_port/feeds/$f.ics" | gzip -dc) "$work/$f.ics" ||
        { echo "icsbridge serves other bytes for $f" >&2; exit 1; }
done

# 5. wrk, and the table: each case BENCH_RUNS times (icsbridge and nginx alternating, so a load spike from
#    elsewhere on the machine hits both), the median of each column.
runs=${BENCH_RUNS:-3}
cpu_ns() { local all=$1; for c in $(pgrep -P "$1"); do all="$all $c"; done; for p in $all; do cat /proc/$p/task/*/schedstat; done | awk '{s += $1} END {printf "%.0f", s}'; } # CPU time of its threads
run_wrk() { # run_wrk URL [gzip] -> "rps p99_ms cpu_us_per_request" (CPU of icsbridge; meaningless for nginx)
    local extra=()
    [ "${2:-}" = gzip ] && extra=(-H 'Accept-Encoding: gzip')
    # 304: a revalidation with each server's own ETag of the identity body (an app's poll when nothing changed)
    [ "${2:-}" = 304 ] && extra=(-H "If-None-Match: $(curl -sI "$1" | awk 'tolower($1) == "etag:" {print $2}' | tr -d '\r')")
    local t0
    local who=${pids[0]}; case $1 in *":$ng_port/"*) who=${pids[1]};; *":${b_port:-none}/"*) who=${pids[2]};; esac
    t0=$(cpu_ns "$who")
    wrk -t2 -c64 -d"$duration" --latency "${extra[@]}" "$1" >"$work/wrk.out"
    local rps p99 cpu
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk.out")
    p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; print v}' "$work/wrk.out")
    cpu=$(awk -v t="$(($(cpu_ns "$who") - t0))" '/requests in/ {printf "%.1f", t / 1000 / $1}' "$work/wrk.out")
    echo "$rps $p99 $cpu"
}
median() { tr ' ' '\n' | sort -g | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}'; }

# us/req: CPU time (user + system) each server spent per request (icsbridge/nginx, all its threads or
# worker processes), which other load on the machine disturbs
# less than requests/s. BENCH_PERF=FILE: record the icsbridge side with `perf record -g` into FILE (one file, all runs).
perf_pid=
if [ -n "${BENCH_PERF:-}" ]; then
    perf record -g -o "$BENCH_PERF" -p "${pids[0]}" 2>/dev/null &
    perf_pid=$!
fi

echo "load before: $(uptime)"
[ "${BENCH_ONLY_VIEW:-0}" = 1 ] && feeds=none
printf '%-24s %14s %10s %14s %10s %7s %7s %9s %7s\n' "case (median of $runs)" "icsbridge rps" "p99 ms" "nginx rps" "p99 ms" "rps %" "p99 x" "us/req" "ratio"
for f in $feeds; do
    [ "$f" = none ] && continue
    for enc in ${BENCH_ENCODINGS:-plain gzip 304}; do
        irpss=() ip99s=() icpus=() nrpss=() np99s=() ncpus=() ratios=() brpss=() bp99s=() bcpus=() bratios=() abs=()
        for _ in $(seq 1 "$runs"); do
            read -r a b c <<<"$(run_wrk "http://127.0.0.1:$ib_port/feeds/$f.ics" "$enc")"
            irpss+=("$a") ip99s+=("$b") icpus+=("$c")
            read -r a b c <<<"$(run_wrk "http://127.0.0.1:$ng_port/feeds/$f.ics" "$enc")"
            nrpss+=("$a") np99s+=("$b") ncpus+=("$c")
            ratios+=("$(awk -v a="${irpss[-1]}" -v b="$a" 'BEGIN {printf "%.3f", a / b}')")
            [ -n "$b_port" ] || continue
            read -r a b c <<<"$(run_wrk "http://127.0.0.1:$b_port/feeds/$f.ics" "$enc")"
            brpss+=("$a") bp99s+=("$b") bcpus+=("$c")
            bratios+=("$(awk -v a="$a" -v b="${nrpss[-1]}" 'BEGIN {printf "%.3f", a / b}')")
            abs+=("$(awk -v a="${irpss[-1]}" -v b="$a" 'BEGIN {printf "%.3f", a / b}')")
        done
        irps=$(echo "${irpss[*]}" | median) ip99=$(echo "${ip99s[*]}" | median) icpu=$(echo "${icpus[*]}" | median)
        nrps=$(echo "${nrpss[*]}" | median) np99=$(echo "${np99s[*]}" | median)
        ratio=$(awk -v a="$irps" -v b="$nrps" 'BEGIN {printf "%.0f", 100 * a / b}')
        lat=$(awk -v a="$ip99" -v b="$np99" 'BEGIN {printf "%.2f", a / b}')
        printf '%-24s %14s %10s %14s %10s %6s%% %7s %9s %7s\n' "$f ($(stat -c %s "$work/$f.ics") B) $enc" "$irps" "$ip99" "$nrps" "$np99" "$ratio" "$lat" "$icpu/$(echo "${ncpus[*]}" | median)" "$(echo "${ratios[*]}" | median)"
        echo "  pairs (icsbridge/nginx): ${ratios[*]}   load: $(cut -d' ' -f1-3 /proc/loadavg)"
        [ -z "$b_port" ] || echo "  B: rps ${brpss[*]} (median $(echo "${brpss[*]}" | median)), p99 ms ${bp99s[*]}" \
            "(median $(echo "${bp99s[*]}" | median)), us/req $(echo "${bcpus[*]}" | median); B/nginx ${bratios[*]};" \
            "icsbridge/B ${abs[*]} (median $(echo "${abs[*]}" | median))"
    done
done
views=${BENCH_VIEWS-alarm=none&days=30 alarm=none}
if [ -n "$views" ]; then
    printf '\n%-40s %14s %10s %14s %10s %7s\n' "icsbridge: view vs feed (median of $runs)" "view rps" "p99 ms" "feed rps" "p99 ms" "rps %"
    for view in $views; do
        curl -sf -o "$work/view.ics" "http://127.0.0.1:$ib_port/feeds/big.ics?$view" || { echo "the view is not served" >&2; exit 1; }
        for enc in ${BENCH_ENCODINGS:-plain gzip}; do
            vrpss=() vp99s=() frpss=() fp99s=()
            for _ in $(seq 1 "$runs"); do
                read -r a b _ <<<"$(run_wrk "http://127.0.0.1:$ib_port/feeds/big.ics?$view" "$enc")"
                vrpss+=("$a") vp99s+=("$b")
                read -r a b _ <<<"$(run_wrk "http://127.0.0.1:$ib_port/feeds/big.ics" "$enc")"
                frpss+=("$a") fp99s+=("$b")
            done
            vrps=$(echo "${vrpss[*]}" | median) frps=$(echo "${frpss[*]}" | median)
            printf '%-40s %14s %10s %14s %10s %6s%%\n' "?$view ($(stat -c %s "$work/view.ics") B) $enc" "$vrps" \
                "$(echo "${vp99s[*]}" | median)" "$frps" "$(echo "${fp99s[*]}" | median)" \
                "$(awk -v a="$vrps" -v b="$frps" 'BEGIN {printf "%.0f", 100 * a / b}')"
        done
    done
    echo
    "$build/icsbridge-bench-view" "$work/big.ics"
fi
echo "load after: $(uptime)"
if [ -n "$perf_pid" ]; then
    kill -INT "$perf_pid"
    wait "$perf_pid" 2>/dev/null || true
fi
