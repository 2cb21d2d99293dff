#!/usr/bin/env bash
# File: bench-push.sh
# Benchmark (not a test): pushing into Debian's Radicale on loopback through the counting proxy
# (tests/push/dav_proxy.py), issue 25. For each size (default 1,000 and 10,000 events, from the fake
# upstream, a fresh Radicale each):
#   initial push     wall time, requests per item, icsbridge's peak RSS and CPU (/usr/bin/time), and the
#                    CPU time Radicale spent meanwhile (from /proc: it is the bottleneck)
#   no change        a second push: requests, wall time
# Then, on the smallest calendar, `serve` with the events webhook: BENCH_TRIES (20) times one event renamed
# upstream and its hook sent; the time from the hook to the new SUMMARY readable in Radicale (a GET of the
# item's resource every 20 ms), p50 / p95 / max, and the proxy's requests per change.
# Prints a markdown table. Radicale's PUT scans the whole collection for the UID (O(items) per PUT), so
# the 10,000 push mostly measures Radicale: compare the wall time with Radicale's CPU time.
#   deploy/bench-push.sh [BUILD_DIR] [SIZE...]        (default: build, 1000 10000)
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
shift $(($# > 0 ? 1 : 0))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000)
tries=${BENCH_TRIES:-20}
bin=$build/icsbridge
fake=$build/icsbridge-fake-upstream
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/radicale.sh"
test_name=bench-push
fail_logs="push.err serve.log radicale.log"

cmake --build "$build" -j2 --target icsbridge icsbridge-fake-upstream >/dev/null || { echo "build failed" >&2; exit 1; }
push_init

. "$src/tests/support/sh/bench_events.sh"

stop_pid() { kill -TERM "$1" 2>/dev/null; wait "$1" 2>/dev/null; }
# radicale_cpu: the CPU seconds Radicale has used so far (user + system).
radicale_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$radicale_pid/stat"; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

rows=()
first_size=
for n in "${sizes[@]}"; do
    # A fresh Radicale and upstream per size.
    if [ -n "${radicale_pid:-}" ]; then
        stop_pid "$proxy_pid"; stop_radicale; stop_fake_upstream
        rm -rf "$radicale_store" "$work/state"
    fi
    events_dir "$n" "$work/data-$n"
    start_fake_upstream "$fake" "$work" "$work/data-$n" --page-size 200
    start_radicale
    start_dav_proxy
    export TEST_DAV_PASSWORD=$dav_password
    make_calendar "$dav_user/bench/" "Bench"
    push_feed_config "$work/push.toml" "url = \"${proxy_url}$dav_user/bench/\"" 'rate = "100000/m"'
    sed -i 's/^keep_past = .*/&\nmax_items = 1000000/' "$work/push.toml"
    [ -z "$first_size" ] && { first_size=$n; cp "$work/push.toml" "$work/push-first.toml"; }

    echo "bench-push: initial push of $n events..." >&2
    proxy_reset_log
    cpu0=$(radicale_cpu)
    /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$bin" push --config "$work/push.toml" >"$work/push.out" 2>"$work/push.err" ||
        fail "the initial push of $n failed: $(cat "$work/push.err")"
    read -r wall rss user sys <"$work/time"
    reqs=$(proxy_count)
    rows+=("$(printf '| initial push | %d | %s s | %d (%.2f / item) | %.1f MB | %.2f s | %s s |' "$n" "$wall" "$reqs" \
        "$(awk -v r="$reqs" -v n="$n" 'BEGIN { print r / n }')" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$(awk -v a="$cpu0" -v b="$(radicale_cpu)" 'BEGIN { printf "%.1f", b - a }')")")
    echo "bench-push: $(cat "$work/push.out") ($wall s)" >&2

    proxy_reset_log
    cpu0=$(radicale_cpu)
    /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$bin" push --config "$work/push.toml" >"$work/push.out" 2>"$work/push.err" ||
        fail "the second push of $n failed: $(cat "$work/push.err")"
    read -r wall rss user sys <"$work/time"
    grep -q "created 0, updated 0, deleted 0, unchanged $n" "$work/push.out" ||
        echo "bench-push: the second push was not a no-op: $(cat "$work/push.out")" >&2
    rows+=("$(printf '| no change | %d | %s s | %d (%s) | %.1f MB | %.2f s | %s s |' "$n" "$wall" "$(proxy_count)" \
        "$(proxy_summary)" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
        "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$(awk -v a="$cpu0" -v b="$(radicale_cpu)" 'BEGIN { printf "%.2f", b - a }')")")

    if [ "$n" = "$first_size" ]; then
        # The webhook latency on this calendar, while it is the one Radicale holds.
        echo "bench-push: $tries webhook changes with serve on $n events..." >&2
        secret=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
        export TEST_HOOK_SECRET=$secret
        {
            server_toml "$work/state" "127.0.0.1:0"
            echo
            events_source_toml "$upstream" 'timeout = "10s"' 'webhook_secret_env = "TEST_HOOK_SECRET"'
            sed -n '/^\[feeds.pub\]/,$p' "$work/push.toml"
        } >"$work/serve.toml"
        start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
        wait_for_feeds pub.ics
        sleep 2 # the start-up reconcile (nothing to write) done
        lat=()
        reqs_per=()
        for t in $(seq 1 "$tries"); do
            k=$(( (t * 37) % n ))
            uid=event-$((900000000000 + k))@127.0.0.1
            resource="$radicale_url$dav_user/bench/$(resource_name "$uid" family)"
            rename_event "$work/data-$n" "$k" "$t"
            curl -s -X POST "$upstream/__control/reload?dir=$work/data-$n" >/dev/null
            proxy_reset_log
            started=$(date +%s%N)
            curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=$((900000000000 + k))&to=$base/hooks/eb/$secret" >/dev/null
            seen=
            while [ "$(ms_since "$started")" -lt 30000 ]; do
                dav_curl "$resource" | grep -q "^SUMMARY:Bench change $t of " && { seen=$(ms_since "$started"); break; }
                sleep 0.02
            done
            [ -n "$seen" ] || { echo "bench-push: try $t: the change was not in Radicale within 30 s" >&2; break; }
            sleep 0.3 # the reconcile's last requests
            lat+=("$seen")
            reqs_per+=("$(proxy_count)")
        done
        stop_pid "$serve_pid"
        serve_pid=
        if [ ${#lat[@]} -lt "$tries" ]; then
            webhook_row="| webhook -> readable in Radicale | $n | not readable within 30 s (try $((${#lat[@]} + 1))) | | | | |"
            continue
        fi
        read -r p50 p95 pmax < <(printf '%s\n' "${lat[@]}" | sort -n | awk '{ v[NR] = $1 } END {
            i50 = int((NR + 1) / 2); i95 = int(NR * 0.95 + 0.999); if (i95 > NR) i95 = NR
            print v[i50], v[i95], v[NR] }')
        avg_reqs=$(printf '%s\n' "${reqs_per[@]}" | awk '{ s += $1 } END { printf "%.1f", s / NR }')
        webhook_row="| webhook -> readable in Radicale ($tries tries) | $n | p50 $p50 ms, p95 $p95 ms, max $pmax ms | $avg_reqs per change | | | |"
    fi
done

echo
echo "Radicale $(dpkg-query -W -f='${Version}' radicale 2>/dev/null) on loopback (storage: $(df -P "$radicale_store" | awk 'NR == 2 { print $1 }')), $(nproc) cores, icsbridge $(git -C "$src" rev-parse --short HEAD)"
echo
echo "| what | events | wall | requests | icsbridge peak RSS | icsbridge CPU | Radicale CPU |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
[ -n "${webhook_row:-}" ] && echo "$webhook_row"
