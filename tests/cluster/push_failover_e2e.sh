#!/usr/bin/env bash
# File: push_failover_e2e.sh
# Pushing in cluster mode, with a failover (issue 25): two `icsbridge serve` replicas on one real
# PostgreSQL mirror a large feed (PUSH_FAILOVER_EVENTS, default 300, from the fake upstream) into one
# CalDAV calendar (Debian's Radicale, behind the logging proxy slowed to PUSH_FAILOVER_DELAY_MS a request,
# default 40, so the initial push takes several seconds). The proxy names each request's sender (the
# process owning the connection): both replicas send the same URLs, headers and credentials.
#   1. While both run, only the holder of the lease push:family writes; the other sends nothing at all.
#   2. The pusher is killed (SIGKILL) in the middle of the initial push, once the database's state row
#      records a quarter of the items. The other takes the lease over and finishes from that row: it
#      writes only what the row does not record, every item is in the calendar exactly once (dav_check,
#      against the feed as `icsbridge export` renders it), and nothing was created twice.
#   3. The killed replica comes back and stays idle; a change upstream with its webhook, after the
#      failover, reaches Radicale as one PUT, from the new holder only.
#   4. `icsbridge push` with a third node's config (its own, empty storage dir): while a replica holds
#      push:family it exits 1 with one line saying the running service pushes the target, and sends
#      nothing; once both replicas stopped (their leases given up) it takes the lease itself and goes on
#      from the database's state row: nothing to write, at most 2 requests (from its state file alone,
#      which it does not have, it would rewrite every item).
#   push_failover_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/cluster_fixtures.sh"
. "$src/tests/push/radicale.sh"
. "$src/tests/support/sh/bench_events.sh"
cluster_init push_failover_e2e
fail_logs="r1.log r2.log proxy.log radicale.log"
radicale_store=
radicale_pid=
# The replicas first (serve_pid), then the fake, the proxy, Radicale and the work dir; the database last.
trap 'serve_pid=$replicas; push_cleanup; stop_postgres' EXIT

events=${PUSH_FAILOVER_EVENTS:-300}
delay_ms=${PUSH_FAILOVER_DELAY_MS:-40}
concurrency=4
# Writes the survivor may make beyond what the dead replica's row left to do: retries of a write whose
# answer was lost (a 412 read back and written over). Small next to the quarter of the items that the row
# records when the kill comes, so a survivor that pushed everything again fails the check by far.
slack=$((concurrency + 2))
t_start=$SECONDS

# psql_value SQL: one value from the test database.
psql_value() { "$pg_bin/psql" "$pg_url" -Atc "$1" 2>/dev/null; }
# lease_holder: the replica (node name; the row adds its process) holding push:family now (empty: none).
lease_holder() { psql_value "SELECT split_part(holder, '/', 1) FROM icsbridge_leases WHERE name = 'push:family' AND expires_at > now()"; }
# row_items: the items the target's state row records, and who saved it ("COUNT NODE"; empty: no row).
row_items() {
    psql_value "SELECT (SELECT count(*) FROM json_object_keys(state::json -> 'items')) || ' ' || saved_by
                FROM icsbridge_push_state WHERE target = 'family'"
}

# check_calendar STEP FEED: every item of FEED in the calendar exactly once, as FEED has it.
check_calendar() {
    dav_check --calendar Big --compare "$2" >"$work/cal.json" || fail "$1: dav_check failed"
    local ours dups missing different
    ours=$(json_get "$work/cal.json" 'd["ours"]')
    dups=$(json_get "$work/cal.json" 'len(d["duplicate_uids"])')
    missing=$(json_get "$work/cal.json" 'len(d["compare"]["missing"])')
    different=$(json_get "$work/cal.json" 'len(d["compare"]["different"])')
    [ "$dups" = 0 ] || fail "$1: $dups UIDs are in the calendar more than once"
    [ "$missing" = 0 ] || fail "$1: $missing feed items are missing"
    [ "$ours" = "$events" ] || fail "$1: $ours items of ours in the calendar, want $events"
    [ "$different" = 0 ] ||
        fail "$1: items differ from the feed: $(json_get "$work/cal.json" 'd["compare"]["different"][:2]')"
    echo "$1: $ours items, no duplicate, none missing, none different"
}

# start_replica I: `serve` as node rI from $work/rI.toml, named rI in the proxy's log before it can push
# (its first refresh comes after it listens); sets the pid in pids[I] and its URL in bases[I].
declare -A pids bases
start_replica() {
    local before b=
    touch "$work/r$1.log"
    before=$(wc -l <"$work/r$1.log")
    "$bin" serve --config "$work/r$1.toml" 2>>"$work/r$1.log" &
    pids[$1]=$!
    replicas="$replicas ${pids[$1]}"
    proxy_client "${pids[$1]}" "r$1"
    for _ in $(seq 1 300); do
        b=$(tail -n +$((before + 1)) "$work/r$1.log" | grep -o 'listening on http://127.0.0.1:[0-9]*' | head -1 |
            sed 's/listening on //')
        [ -n "$b" ] && break
        kill -0 "${pids[$1]}" 2>/dev/null || fail "r$1 exited at start"
        sleep 0.1
    done
    [ -n "$b" ] || fail "r$1 did not start listening within 30 s"
    bases[$1]=$b
}

start_postgres
events_dir "$events" "$work/data"
events_dir "$events" "$work/changed"
rename_event "$work/changed" $((events / 2)) 1
start_fake_upstream "$fake" "$work" "$work/data" --page-size 200
start_radicale
start_dav_proxy
curl -s -f -X POST -o /dev/null "${proxy_url}__proxy/delay?ms=$delay_ms" || fail "could not slow the proxy down"
secret=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export TEST_DAV_PASSWORD=$dav_password TEST_HOOK_SECRET=$secret TEST_DATABASE_URL=$pg_url
make_calendar "$dav_user/big/" "Big"
for i in 1 2; do
    {
        cluster_toml "$i"
        echo
        events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"'
        echo
        organizer_feed_toml pub 'push = ["family"]'
        echo
        caldav_target_toml family "${proxy_url}$dav_user/big/" "max_concurrency = $concurrency" 'rate = "100000/m"'
    } >"$work/r$i.toml"
done
# The feed as one box renders it from the same upstream: what the calendar must mirror.
{
    server_toml "$work/export-state" "127.0.0.1:0"
    echo
    events_source_toml "$upstream" 'timeout = "5s"'
    echo
    organizer_feed_toml pub
} >"$work/export.toml"
"$bin" export --config "$work/export.toml" --feed pub --output "$work/feed.ics" 2>"$work/export.err" ||
    fail "export failed: $(cat "$work/export.err")"
[ "$(grep -c '^BEGIN:VEVENT' "$work/feed.ics")" = "$events" ] || fail "the feed does not have $events events"
curl -s -X POST "$upstream/__control/clear_requests" >/dev/null
start_replica 1
start_replica 2
echo "set up in $((SECONDS - t_start)) s: PostgreSQL, Radicale (proxy +${delay_ms} ms a request), two replicas"

# 1. One replica pushes: the first to write is the lease's holder, and until the kill it is the only one
# that sends anything to the target. The kill waits for the state row to record a quarter of the items.
pusher=
for _ in $(seq 1 600); do
    pusher=$(awk '$1 == "PUT" && $6 != "-" { print $6; exit }' "$work/proxy.log")
    [ -n "$pusher" ] && break
    sleep 0.1
done
[ -n "$pusher" ] || fail "no replica pushed within 60 s of starting: $(proxy_summary)"
case $pusher in r1) other=r2 ;; r2) other=r1 ;; *) fail "a PUT from an unknown client $pusher" ;; esac
recorded=0
for _ in $(seq 1 1200); do
    row=$(row_items)
    recorded=${row%% *}
    [ "${recorded:-0}" -ge $((events / 4)) ] && break
    sleep 0.05
done
created_then=$(proxy_created)
[ "${recorded:-0}" -ge $((events / 4)) ] ||
    fail "the state row records ${recorded:-no} items after 60 s of pushing (row: ${row:-none}; $created_then created)"
[ "$created_then" -lt "$events" ] ||
    fail "the push finished before the kill ($created_then created): raise PUSH_FAILOVER_EVENTS or the delay"
[ "$(proxy_count -w "$other")" = 0 ] ||
    fail "both replicas sent requests to the target: $other sent $(proxy_count -w "$other") while $pusher pushed"
[ "$(lease_holder)" = "$pusher" ] || fail "$pusher pushes, but the lease push:family is held by '$(lease_holder)'"
[ "$(proxy_count -w -)" = 0 ] || fail "$(proxy_count -w -) requests from an unnamed client: $(grep ' -$' "$work/proxy.log" | head -3)"
echo "$pusher holds push:family and pushes alone: $(proxy_count -w "$pusher") requests, $created_then created, $other sent none"

# 2. Killed in the middle of the initial push.
kill -KILL "${pids[${pusher#r}]}"
{ wait "${pids[${pusher#r}]}"; } 2>/dev/null
replicas=${replicas/ ${pids[${pusher#r}]}/}
killed_at=$(date +%s.%N)
t_kill=$SECONDS
# The row as the dead replica left it: the survivor cannot have saved yet (the lease still has seconds to
# run), and saved_by says so.
row=$(row_items)
recorded=${row%% *}
[ "${row#* }" = "$pusher" ] || fail "after the kill the state row was saved by '${row#* }', not by $pusher"
dead_creates=$(proxy_count PUT -c create -s 201 -w "$pusher")
echo "killed $pusher: $dead_creates created, $recorded recorded in the database"
[ "$recorded" -lt "$events" ] || fail "the row already records every item: the kill came after the push"

# The survivor takes the lease over and finishes: its reconcile's log line names every item.
finished=
for _ in $(seq 1 900); do
    grep -q "push family: created [0-9]*, updated [0-9]*, deleted 0, $events items in the calendar" \
        "$work/${other}.log" && { finished=1; break; }
    sleep 0.1
done
[ -n "$finished" ] || fail "$other did not finish the push within 90 s of the kill: $(proxy_summary)"
first_other=$(awk -v w="$other" '$6 == w { print $4; exit }' "$work/proxy.log")
echo "$other took over $(awk -v a="$first_other" -v b="$killed_at" 'BEGIN { printf "%.1f", a - b }') s after the kill," \
    "finished $((SECONDS - t_kill)) s after it: $(grep "push family: created" "$work/${other}.log" | tail -1 | sed 's/.*push family: //')"
[ "$(lease_holder)" = "$other" ] || fail "$other finished the push, but push:family is held by '$(lease_holder)'"
survivor_puts=$(proxy_count PUT -w "$other")
survivor_creates=$(proxy_count PUT -c create -s 201 -w "$other")
total_creates=$(proxy_created)
echo "$other: $survivor_puts PUTs ($survivor_creates created) for the $((events - recorded)) items the row left;" \
    "$total_creates created in all"
# What the row records is not written again: the survivor writes the rest (creating what is missing,
# writing over what the dead replica wrote after its last save), and a few more at most (slack above).
[ "$survivor_puts" -le $((events - recorded + slack)) ] ||
    fail "$other made $survivor_puts PUTs, but the row left only $((events - recorded)) items to write: it pushed again what the row recorded"
# Creates are If-None-Match: *, so more than one per item would be a duplicate Radicale let through; fewer
# than the items only when creates in flight at the kill were answered after the proxy lost their client
# (at most one per request in flight, max_concurrency).
[ "$total_creates" -le "$events" ] || fail "$total_creates items created for $events feed items"
[ "$total_creates" -ge $((events - concurrency)) ] || fail "only $total_creates of $events items created"
[ "$(proxy_count -w -)" = 0 ] || fail "$(proxy_count -w -) requests from an unnamed client"
check_calendar "after the failover" "$work/feed.ics"

# 3. The killed replica comes back (and stays idle: the survivor holds the lease); a change upstream and
# its webhook, sent to the survivor, reach Radicale as one PUT from the survivor. Whichever replica's
# refresh fetches the change first (the one back at its start, or the survivor on the webhook), the
# survivor pushes it.
changed_id=$((900000000000 + events / 2))
resource="$radicale_url$dav_user/big/$(resource_name "event-$changed_id@127.0.0.1" family)"
dav_curl -f "$resource" | grep -q '^SUMMARY:Bench event' || fail "the item to change, $resource, is not there"
pushes_before=$(grep -c "push family: created" "$work/${other}.log")
cp "$work/proxy.log" "$work/proxy.failover.log"
proxy_reset_log
start_replica "${pusher#r}"
curl -s -f -X POST -o /dev/null "$upstream/__control/reload?dir=$work/changed" || fail "cannot reload the upstream"
sent=$(curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=$changed_id&to=${bases[${other#r}]}/hooks/eb/$secret")
[ "$sent" = '{"status":202}' ] || fail "the webhook was not accepted: $sent"
t_hook=$SECONDS
seen=
for _ in $(seq 1 300); do
    dav_curl "$resource" | grep -q '^SUMMARY:Bench change 1 of' && { seen=1; break; }
    sleep 0.1
done
[ -n "$seen" ] || fail "the change did not reach Radicale within 30 s of its webhook: $(proxy_summary)"
# Its reconcile's log line: every write of that reconcile is in the proxy log by then.
for _ in $(seq 1 300); do
    [ "$(grep -c "push family: created" "$work/${other}.log")" -gt "$pushes_before" ] && break
    sleep 0.1
done
echo "the change reached Radicale within $((SECONDS - t_hook)) s of its webhook: $(proxy_summary)"
[ "$(proxy_count PUT)" = 1 ] && [ "$(proxy_count PUT -c match -w "$other")" = 1 ] &&
    [ "$(awk '$1 == "PUT" && $3 ~ /^2/' "$work/proxy.log" | wc -l)" = 1 ] ||
    fail "the change made $(proxy_count PUT) PUTs (want one If-Match PUT from $other): $(proxy_summary)"
[ "$(proxy_count DELETE)" = 0 ] || fail "the change deleted $(proxy_count DELETE) items"
[ "$(proxy_count -w "$pusher")" = 0 ] || fail "$pusher, back but not holding the lease, sent $(proxy_count -w "$pusher") requests"
"$bin" export --config "$work/export.toml" --feed pub --output "$work/feed2.ics" 2>"$work/export.err" ||
    fail "export failed: $(cat "$work/export.err")"
check_calendar "after the change" "$work/feed2.ics"

if grep -lF -- "$dav_password" "$work"/r*.log; then fail "the DAV password is in a log"; fi

# 4. The command line beside the replicas, then in their place.
{
    cluster_toml 3
    echo
    events_source_toml "$upstream" 'timeout = "5s"'
    echo
    organizer_feed_toml pub 'push = ["family"]'
    echo
    caldav_target_toml family "${proxy_url}$dav_user/big/" "max_concurrency = $concurrency" 'rate = "100000/m"'
} >"$work/r3.toml"
proxy_reset_log
"$bin" push --config "$work/r3.toml" >"$work/cli.out" 2>"$work/cli.err"
rc=$?
[ "$rc" = 1 ] || fail "push beside the replicas exited $rc (want 1): $(cat "$work/cli.out" "$work/cli.err")"
[ "$(grep -c . "$work/cli.err")" = 1 ] && grep -q "^icsbridge: push: family: the running service pushes it (replica $other holds" "$work/cli.err" ||
    fail "push beside the replicas said: $(cat "$work/cli.err")"
[ "$(proxy_count -w -)" = 0 ] || fail "push beside the replicas sent $(proxy_count -w -) requests: $(proxy_summary)"
echo "push beside the replicas: $(cat "$work/cli.err")"
for pid in $replicas; do
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null
done
replicas=
proxy_reset_log
"$bin" push --config "$work/r3.toml" >"$work/cli.out" 2>"$work/cli.err"
rc=$?
[ "$rc" = 0 ] || fail "push after the replicas stopped exited $rc: $(cat "$work/cli.err")"
grep -q "^family: created 0, updated 0, deleted 0, unchanged $events " "$work/cli.out" ||
    fail "push after the replicas stopped did not go on from the state row: $(cat "$work/cli.out") ($(proxy_summary))"
[ "$(proxy_writes)" = 0 ] && [ "$(proxy_count)" -le 2 ] ||
    fail "push after the replicas stopped: $(proxy_count) requests, $(proxy_writes) writes (want at most 2, none): $(proxy_summary)"
[ "$(psql_value "SELECT split_part(holder, '/', 1) || ' ' || (expires_at < now()) FROM icsbridge_leases WHERE name = 'push:family'")" = "r3 true" ] ||
    fail "push did not take push:family, or did not give it up: $(psql_value "SELECT holder, expires_at - now() FROM icsbridge_leases WHERE name = 'push:family'")"
echo "push in the replicas' place: $(cat "$work/cli.out")"
echo "push failover e2e OK in $((SECONDS - t_start)) s"
