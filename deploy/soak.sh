#!/usr/bin/env bash
# Soak run (issue 5): wrk load on several feeds for DURATION seconds (default 300) while the fake upstream
# switches fault modes every few seconds. Loopback only, bounded in time; stops by itself.
# Reports: non-2xx/3xx answers (must be 0 for feeds that had a snapshot), bodies that failed to parse,
# resident memory after the first minute and at the end (must stay within 10%).
#   deploy/soak.sh [DURATION_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-300}"
deploy/install-deps.sh --bench
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 --target icsbridge icsbridge-fake-upstream

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

. tests/support/sh/run_fixtures.sh # free_port

mkfifo "$work/ready"
build/icsbridge-fake-upstream --port 0 --data tests/fixtures/upstream >"$work/ready" 2>"$work/upstream.log" &
pids+=($!)
read -r line <"$work/ready"
upstream="${line#listening on }"
port=$(free_port)
cat >"$work/soak.toml" <<TOML
[server]
listen = "127.0.0.1:$port"
public_url = "http://127.0.0.1:$port"
threads = 2
[storage]
dir = "$work/state"
[sources.eb]
type = "events"
base_url = "$upstream"
token = "demo-events-token"
timeout = "3s"
[sources.jobs]
type = "jobs"
base_url = "$upstream"
api_key = "demo-jobs-key"
timeout = "3s"
[feeds.org]
source = "eb"
select = "organization"
refresh = "5s"
[feeds.mine]
source = "eb"
select = "organizer"
refresh = "7s"
[feeds.jobs]
source = "jobs"
select = "recent"
refresh = "5s"
jobs_as = "both"
TOML
build/icsbridge serve --config "$work/soak.toml" 2>"$work/serve.log" &
serve_pid=$!
pids+=($serve_pid)
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
    ok=0
    for f in org mine jobs; do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/feeds/$f.ics")" = 200 ] && ok=$((ok + 1))
    done
    [ $ok -eq 3 ] && break
    sleep 0.2
done
[ $ok -eq 3 ] || { echo "soak: feeds never became ready"; tail -20 "$work/serve.log"; exit 1; }

cat >"$work/paths.lua" <<'LUA'
local paths = {"/feeds/org.ics", "/feeds/mine.ics", "/feeds/jobs.ics", "/healthz"}
local i = 0
request = function()
  i = i + 1
  local h = {}
  if i % 3 == 0 then h["Accept-Encoding"] = "gzip" end
  return wrk.format("GET", paths[(i % #paths) + 1], h)
end
LUA

rss() { awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status"; }
wrk -t2 -c32 -d"${duration}s" --latency -s "$work/paths.lua" "$base" >"$work/wrk.txt" 2>&1 &
wrk_pid=$!
pids+=($wrk_pid)

faults=(status500 hang reset truncate malformed_json status429 latency status503 none)
start=$(date +%s); i=0; bad_parses=0; checks=0; rss_1m=""
while kill -0 "$wrk_pid" 2>/dev/null; do
    kind=${faults[$((i % ${#faults[@]}))]}
    curl -s -X POST "$upstream/__control/fault?kind=$kind&latency_ms=1500&retry_after=1" >/dev/null || true
    i=$((i + 1))
    for f in org mine jobs; do
        curl -s --compressed "$base/feeds/$f.ics" -o "$work/body.ics"
        checks=$((checks + 1))
        /usr/bin/python3 -c 'import sys, icalendar; icalendar.Calendar.from_ical(open(sys.argv[1],"rb").read())' \
            "$work/body.ics" 2>/dev/null || bad_parses=$((bad_parses + 1))
    done
    now=$(date +%s)
    if [ -z "$rss_1m" ] && [ $((now - start)) -ge 60 ]; then rss_1m=$(rss); fi
    sleep 4
done
rss_end=$(rss)
curl -s -X POST "$upstream/__control/fault?kind=none" >/dev/null || true
non2xx=$(sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$work/wrk.txt"); non2xx=${non2xx:-0}
echo "soak: ${duration}s, $i fault switches"
grep -E "Requests/sec|requests in|99%|Socket errors" "$work/wrk.txt" | sed 's/^/soak: wrk: /'
echo "soak: non-2xx/3xx answers: $non2xx"
echo "soak: bodies checked: $checks, failed to parse: $bad_parses"
echo "soak: RSS after 1 min: ${rss_1m:-n/a} kB, at end: $rss_end kB"
if grep -Eq "demo-events-token|demo-jobs-key" "$work/serve.log"; then echo "soak: SECRET IN LOG"; exit 1; fi
status=0
[ "$non2xx" -eq 0 ] || status=1
[ "$bad_parses" -eq 0 ] || status=1
if [ -n "$rss_1m" ]; then
    awk -v a="$rss_1m" -v b="$rss_end" 'BEGIN { exit !(b <= a * 1.10) }' || { echo "soak: memory grew more than 10%"; status=1; }
fi
[ $status -eq 0 ] && echo "soak: PASS" || echo "soak: FAIL"
exit $status
