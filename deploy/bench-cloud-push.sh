#!/usr/bin/env bash
# File: bench-cloud-push.sh
# Benchmark (not a test): pushing into Google Calendar and Microsoft 365 (issue 26), against the suite's
# fakes of their APIs (tests/push/fake_calendar_api.py) with a realistic latency (50 ms an answer) and
# quota (600 requests a minute per user, refused as the real services refuse). For each provider, side by
# side (each has its own fake and upstream): `icsbridge connect` (the fake approves at once), then
#   initial push   N events (default 10,000) into a calendar created by name: wall time, requests, the most
#                  in one second, peak RSS, and how many requests the fake refused for quota (the goal: none)
#   no change      a second push: requests, wall time
# Prints a markdown table. The targets keep their default rate, 500/m for both (under the fakes' 600 a
# minute, as under Google's quota and Graph's 10,000 per 10 minutes per mailbox), so the initial push is
# paced by it: 10,000 events take about 20 minutes per provider, as they would for real.
#   deploy/bench-cloud-push.sh [BUILD_DIR] [N] [PROVIDER...]     (default: build, 10000, google microsoft)
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
n=${2:-10000}
shift $(($# > 2 ? 2 : $#))
providers=("$@")
[ ${#providers[@]} -gt 0 ] || providers=(google microsoft)
bin=$build/icsbridge
fake=$build/icsbridge-fake-upstream
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
. "$src/tests/support/sh/bench_events.sh"
test_name=bench-cloud-push
fail_logs=""

cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream >/dev/null || { echo "build failed" >&2; exit 1; }
push_init
export TEST_CLIENT_SECRET=bench-secret

# bench PROVIDER: one provider's run in $work/PROVIDER, its table rows in $work/PROVIDER/rows.
bench() {
    local p=$1 dir=$work/$1
    mkdir -p "$dir"
    local work=$dir # the fixtures' helpers write under $work
    events_dir "$n" "$dir/data"
    start_fake_upstream "$fake" "$dir" "$dir/data" --page-size 200
    start_fake_calendar_api "$p" --client-secret bench-secret --latency-ms 50 --quota-per-minute 600
    {
        server_toml "$dir/state" "127.0.0.1:0"
        echo
        events_source_toml "$upstream" 'timeout = "10s"'
        echo
        organizer_feed_toml pub 'push = ["cal"]' 'max_items = 1000000'
        echo
        printf '[targets.cal]\ntype = "%s"\nclient_id = "test-client"\nclient_secret_env = "TEST_CLIENT_SECRET"\n' "$p"
        printf 'calendar = "Bench"\napi_base = "%s"\nauth_url = "%s"\ntoken_url = "%s"\n' "$api_base" "$auth_url" "$token_url"
    } >"$dir/push.toml"
    "$bin" connect --config "$dir/push.toml" cal --timeout 60 >"$dir/connect.out" 2>"$dir/connect.err" &
    local cpid=$! url=
    for _ in $(seq 1 100); do
        url=$(grep -m1 -E '^https?://' "$dir/connect.out") && break
        sleep 0.1
    done
    curl -s -L -o /dev/null "$url"
    wait "$cpid" || { echo "bench-cloud-push: $p: connect failed: $(cat "$dir/connect.err")" >&2; return 1; }

    local wall rss user sys
    echo "bench-cloud-push: $p: initial push of $n events..." >&2
    fake_admin reset_counts >/dev/null
    /usr/bin/time -f "%e %M %U %S" -o "$dir/time" "$bin" push --config "$dir/push.toml" >"$dir/push.out" 2>"$dir/push.err" ||
        echo "bench-cloud-push: $p: the initial push failed: $(tail -3 "$dir/push.err")" >&2
    read -r wall rss user sys <"$dir/time"
    printf '| %s | initial push | %d | %s s | %s | %s | %s | %.1f MB | %.1f s |\n' "$p" "$n" "$wall" "$(fake_requests total)" \
        "$(fake_requests_per_second)" "$(fake_requests quota_refused)" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" >"$dir/rows"
    echo "bench-cloud-push: $p: $(cat "$dir/push.out")" >&2
    fake_admin reset_counts >/dev/null
    /usr/bin/time -f "%e %M %U %S" -o "$dir/time" "$bin" push --config "$dir/push.toml" >"$dir/push.out" 2>"$dir/push.err" ||
        echo "bench-cloud-push: $p: the second push failed: $(tail -3 "$dir/push.err")" >&2
    read -r wall rss user sys <"$dir/time"
    grep -q "created 0, updated 0, deleted 0" "$dir/push.out" || echo "bench-cloud-push: $p: not a no-op: $(cat "$dir/push.out")" >&2
    printf '| %s | no change | %d | %s s | %s | %s | %s | %.1f MB | %.1f s |\n' "$p" "$n" "$wall" "$(fake_requests total)" \
        "$(fake_requests_per_second)" "$(fake_requests quota_refused)" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" >>"$dir/rows"
    echo "bench-cloud-push: $p: ours in the calendar: $(fake_state "len(ours(cal('Bench')))")" >&2
    kill "$fake_api_pid" "$fake_pid" 2>/dev/null # this subshell's: the parent's cleanup never saw them
}

pids=()
for p in "${providers[@]}"; do
    bench "$p" &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

echo
echo "Fakes with 50 ms latency and a 600 requests/min quota, $(nproc) cores, icsbridge $(git -C "$src" rev-parse --short HEAD)"
echo
echo "| provider | what | events | wall | requests | peak requests/s | refused for quota | icsbridge peak RSS | icsbridge CPU |"
echo "|---|---|---|---|---|---|---|---|---|"
for p in "${providers[@]}"; do cat "$work/$p/rows" 2>/dev/null; done
