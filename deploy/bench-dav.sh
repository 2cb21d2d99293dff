#!/usr/bin/env bash
# File: bench-dav.sh
# Benchmark (not a test): a feed's CalDAV collection (issue 36) on a 10,000-event feed from the fake upstream,
# served by `icsbridge serve` (2 HTTP threads) on loopback. Server time is the access log's (from the request
# read to the response written); bytes are the response's on the wire (header + body). Median of BENCH_RUNS
# (7) requests each:
#   - sync-collection with no change:      target < 1 ms, < 1 KB
#   - sync-collection after one upstream change (the event renamed, its webhook), with calendar-data:
#                                          target <= the item's own bytes + 1 KB
#   - the initial multistatus of all items (sync-collection with an empty token, getetag and calendar-data;
#     calendar-query alike) against GET of the .ics: target <= 1.5x its bytes, <= 2x its server time
#   - wrk -t2 -c64 (BENCH_DURATION, 10s) of the no-change sync-collection: target >= 10,000 requests/s
#   deploy/bench-dav.sh [BUILD_DIR] [EVENTS]      (default build, 10000; needs deploy/install-deps.sh --bench)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
events=${2:-10000}
runs=${BENCH_RUNS:-7}
duration=${BENCH_DURATION:-10s}
python=/usr/bin/python3
command -v wrk >/dev/null || { echo "wrk is not installed (deploy/install-deps.sh --bench)" >&2; exit 1; }
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/support/sh/bench_events.sh"
cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream >/dev/null

init_work
secret=hk-bench-$(od -An -N12 -tx1 /dev/urandom | tr -d " \n")
events_dir "$events" "$work/data"
start_fake_upstream "$build/icsbridge-fake-upstream" "$work" "$work/data" --page-size 200
export TEST_HOOK_SECRET=$secret
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" "127.0.0.1:0" 'max_connections_per_client = 0')

$(events_source_toml "$upstream" 'timeout = "30s"' 'webhook_secret_env = "TEST_HOOK_SECRET"')

$(organizer_feed_toml big 'max_items = 1000000' 'refresh = "1d"')
TOML
start_icsbridge "$build/icsbridge" "$work/serve.toml" "$work/serve.log"
wait_for_url "$base/feeds/big.ics" 120 || fail "the feed was not served within 120 s"
coll=/dav/feeds/big/

sync_body() { # sync_body TOKEN [PROPS]
    printf '<?xml version="1.0"?><D:sync-collection xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:sync-token>%s</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/>%s</D:prop></D:sync-collection>' "$1" "${2:-}"
}
query_body='<?xml version="1.0"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>'

# once METHOD PATH [CURL ARGS...]: one request; prints "BYTES MS" (on the wire; server time from the access
# log: the last line for METHOD PATH) and keeps the body in $work/out.
once() {
    local method=$1 path=$2 bytes ms
    shift 2
    bytes=$(curl -s -o "$work/out" -w '%{size_header} %{size_download}' -X "$method" "$@" "$base$path" | awk '{ print $1 + $2 }')
    sleep 0.05
    ms=$(grep -F " $method $path " "$work/serve.log" | tail -1 | grep -o '[0-9.]*ms' | tail -1 | tr -d ms)
    echo "$bytes $ms"
}
# median METHOD PATH [CURL ARGS...]: "BYTES MS" of the median (by server time) of $runs requests.
median() {
    local i
    for i in $(seq "$runs"); do once "$@"; done | sort -k2 -n | sed -n "$(((runs + 1) / 2))p"
}

echo "bench-dav: $events events; warming up (the first request cuts the collection)" >&2
once REPORT "$coll" --data-binary "$(sync_body "")" >/dev/null
read -r ics_bytes ics_ms <<<"$(median GET /feeds/big.ics)"
read -r init_bytes init_ms <<<"$(median REPORT "$coll" --data-binary "$(sync_body "" "<C:calendar-data/>")")"
token=$(grep -o '<sync-token>[^<]*' "$work/out" | sed 's/<sync-token>//')
items=$(grep -o '<response>' "$work/out" | wc -l)
read -r list_bytes list_ms <<<"$(median REPORT "$coll" --data-binary "$(sync_body "")")"
read -r query_bytes query_ms <<<"$(median REPORT "$coll" --data-binary "$query_body")"
read -r none_bytes none_ms <<<"$(median REPORT "$coll" --data-binary "$(sync_body "$token")")"

# One event renamed upstream and its webhook: the sync from the old token lists that one item.
before=$(curl -s -D - -o /dev/null "$base/feeds/big.ics" | tr -d '\r' | grep -i '^etag:')
rename_event "$work/data" 5 1
curl -s -X POST "$upstream/__control/reload?dir=$work/data" >/dev/null
curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=900000000005&to=$base/hooks/eb/$secret" >/dev/null
for _ in $(seq 1 300); do
    [ "$(curl -s -D - -o /dev/null "$base/feeds/big.ics" | tr -d '\r' | grep -i '^etag:')" != "$before" ] && break
    sleep 0.1
done
read -r one_bytes one_ms <<<"$(median REPORT "$coll" --data-binary "$(sync_body "$token" "<C:calendar-data/>")")"
n_one=$(grep -o '<response>' "$work/out" | wc -l)
href=$(grep -o '<response><href>[^<]*' "$work/out" | head -1 | sed 's/<response><href>//')
grep -q "Bench change 1 of 900000000005" "$work/out" || fail "the sync after the change does not hold the renamed event"
item_bytes=$(curl -s -o /dev/null -w '%{size_download}' "$base$href")
token2=$(grep -o '<sync-token>[^<]*' "$work/out" | sed 's/<sync-token>//')

stop_icsbridge

# Under wrk without the access log (as deploy/bench-serve.sh measures): a restart on a fixed port, the
# token from before it still valid (the history is kept beside the snapshot).
port=$(free_port)
sed "s/^listen = .*/listen = \"127.0.0.1:$port\"/" "$work/serve.toml" >"$work/quiet.toml"
ICSBRIDGE_LOG=warn "$build/icsbridge" serve --config "$work/quiet.toml" 2>"$work/quiet.log" &
serve_pid=$!
base=http://127.0.0.1:$port
wait_for_url "$base/feeds/big.ics" 60 || fail "serve did not come back"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X REPORT --data-binary "$(sync_body "$token2")" "$base$coll")" = 207 ] ||
    fail "the token from before the restart is refused"
cat >"$work/sync.lua" <<LUA
wrk.method = "REPORT"
wrk.headers["Depth"] = "1"
wrk.body = '$(sync_body "$token2")'
LUA
wrk -t2 -c64 -d"$duration" -s "$work/sync.lua" "$base$coll" >"$work/wrk.out"
rps=$(awk '/Requests\/sec/ { print $2 }' "$work/wrk.out")
non2xx=$(awk '/Non-2xx/ { print $NF }' "$work/wrk.out")
stop_icsbridge

awk -v n="$events" -v items="$items" \
    -v ib="$ics_bytes" -v it="$ics_ms" -v sb="$init_bytes" -v st="$init_ms" -v lb="$list_bytes" -v lt="$list_ms" \
    -v qb="$query_bytes" -v qt="$query_ms" -v nb="$none_bytes" -v nt="$none_ms" -v ob="$one_bytes" -v ot="$one_ms" \
    -v on="$n_one" -v itb="$item_bytes" -v rps="$rps" -v bad="${non2xx:-0}" 'BEGIN {
    ok = "ok"; no = "MISSED"
    printf "bench-dav: a feed of %d events, %d items in its collection (median of runs; server time from the access log)\n", n, items
    printf "  GET .ics                                    %10d B  %7.1f ms\n", ib, it
    printf "  initial sync-collection, getetag+data       %10d B  %7.1f ms  %.2fx bytes, %.2fx time of the .ics  [%s]\n", sb, st, sb / ib, st / it, (sb <= 1.5 * ib && st <= 2 * it) ? ok : no
    printf "  calendar-query, getetag+data                %10d B  %7.1f ms  %.2fx bytes, %.2fx time of the .ics  [%s]\n", qb, qt, qb / ib, qt / it, (qb <= 1.5 * ib && qt <= 2 * it) ? ok : no
    printf "  initial sync-collection, getetag only       %10d B  %7.1f ms\n", lb, lt
    printf "  sync-collection, no change                  %10d B  %7.1f ms  target < 1 KB, < 1 ms  [%s]\n", nb, nt, (nb < 1024 && nt < 1) ? ok : no
    printf "  sync-collection, one change (with data)     %10d B  %7.1f ms  %d item(s) of %d B: %+d B over  [%s]\n", ob, ot, on, itb, ob - itb, (on == 1 && ob <= itb + 1024) ? ok : no
    printf "  wrk -t2 -c64, sync-collection no change     %10.0f req/s (non-2xx: %d)  target >= 10000  [%s]\n", rps, bad, (rps >= 10000 && bad == 0) ? ok : no
}'
