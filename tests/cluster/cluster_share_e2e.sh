#!/usr/bin/env bash
# File: cluster_share_e2e.sh
# What replicas share through the database besides snapshots (issue 13), with three real `icsbridge serve`
# replicas, a real PostgreSQL 15 and the fake upstream: a webhook sent to a replica that does not hold the
# feed's lease makes the holder read the event it names, exactly once, and every replica serves the change
# within 5 s; a
# `tokens` subscriber's last fetch from one replica shows on all of them; a source's call budget holds across
# replicas: the holder spends it, is killed, and its successor waits
# for the window instead of spending it again.
#   cluster_share_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/cluster_fixtures.sh"
cluster_init cluster_share_e2e

budget=8
start_postgres
cp -r "$src/tests/fixtures/upstream" "$work/data"
changed_fixtures "$src" "$work/changed"
start_fake_upstream "$fake" "$work" "$work/data"
export TEST_DATABASE_URL="$pg_url"
# The same sources and feeds on every replica: a hooked one, and one with a tight budget.
cat >"$work/tables.toml" <<TOML
$(events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret = "share-hook-secret"')

[sources.tight]
type = "events"
base_url = "$upstream"
token = "tight-token"
budget = "$budget/1m"

$(organizer_feed_toml pub)

$(organizer_feed_toml team 'tokens = { alice = "alice-share-token-5f2e9a7c" }')

[feeds.t1]
source = "tight"
select = "organizer"
refresh = "2s"
keep_past = "3650d"
TOML
admin=share-admin-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
for i in 1 2 3; do { cluster_toml $i "admin_token = \"$admin\""; echo; cat "$work/tables.toml"; } >"$work/r$i.toml"; done
start_replicas "$bin"
for base in "${bases[@]}"; do wait_for_feeds pub.ics; done

# requests_of TOKEN: every upstream request made with TOKEN (each counts against a budget).
requests_of() {
    curl -s "$upstream/__control/requests" |
        python3 -c 'import json, sys; print(sum(1 for r in json.load(sys.stdin) if r["authorization"] == "Bearer " + sys.argv[1]))' "$1"
}
# holder_of FEED: the replica (1-3) whose /metrics says it holds FEED's lease; empty if none does.
holder_of() {
    local i
    for i in 1 2 3; do
        [ -n "${bases[$((i - 1))]}" ] || continue
        curl -s "${bases[$((i - 1))]}/metrics" | grep -q "^icsbridge_cluster_lease_held{feed=\"$1\"} 1" && { echo "$i"; return; }
    done
}

# event_reads ID: requests the upstream saw for event ID alone (what a hook naming it costs).
event_reads() {
    curl -s "$upstream/__control/requests" |
        python3 -c 'import json, sys; print(sum(1 for r in json.load(sys.stdin) if r["path"] == sys.argv[1]))' \
            "/v3/events/$1/"
}

# 1. A webhook to a replica that is not the lease holder, naming the event that changed: the holder reads
# that one event, once (no refresh); all serve the change.
holder=
for _ in $(seq 1 50); do holder=$(holder_of pub); [ -n "$holder" ] && break; sleep 0.2; done
[ -n "$holder" ] || fail "no replica says it holds the lease of pub in /metrics"
other=$((holder % 3 + 1))
old=$(etag_of "${bases[0]}")
before=$(list_requests demo-events-token)
reads_before=$(event_reads 788216780592)
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    --data "{\"api_url\": \"$upstream/v3/events/788216780592/\", \"config\": {\"action\": \"event.updated\"}}" \
    "${bases[$((other - 1))]}/hooks/eb/share-hook-secret")
[ "$code" = 202 ] || fail "the hook to r$other answered $code"
t0=$(date +%s.%N)
all_new=
for _ in $(seq 1 50); do
    e1=$(etag_of "${bases[0]}") e2=$(etag_of "${bases[1]}") e3=$(etag_of "${bases[2]}")
    [ "$e1" != "$old" ] && [ "$e1" = "$e2" ] && [ "$e2" = "$e3" ] && { all_new=1; break; }
    sleep 0.1
done
[ -n "$all_new" ] || fail "5 s after a hook to r$other (holder r$holder) the replicas serve $e1 / $e2 / $e3 (before: $old)"
echo "hook to r$other, holder r$holder: every replica serves the change after $(echo "$(date +%s.%N) - $t0" | bc) s"
sleep 4 # a second refresh would come within hook_gap (3 s)
n=$(( $(list_requests demo-events-token) - before ))
reads=$(( $(event_reads 788216780592) - reads_before ))
[ "$reads" = 1 ] || fail "a hook to a non-holder made $reads reads of its event, not 1 (every replica read it?)"
[ "$n" = 0 ] || fail "a hook naming one event made $n refreshes of pub, not 0"
grep -q 'feed pub: .* changed' "$work/r$holder.log" || fail "the holder r$holder did not publish the change"

# 2. A subscriber's fetch from one replica shows in every replica's /healthz (its time, to the second).
curl -s -o /dev/null "${bases[0]}/feeds/team.ics?token=alice-share-token-5f2e9a7c"
alice_on() {
    curl -s -H "Authorization: Bearer $admin" "$1/healthz" |
        python3 -c 'import json, sys
print([f for f in json.load(sys.stdin)["feeds"] if f["name"] == "team"][0]["subscribers"]["alice"]["last_fetch"])' 2>/dev/null
}
seen=$(alice_on "${bases[0]}")
[ -n "$seen" ] && [ "$seen" != None ] || fail "r1's /healthz shows no fetch of alice: $seen"
for b in "${bases[1]}" "${bases[2]}"; do
    for _ in $(seq 1 80); do [ "$(alice_on "$b")" = "$seen" ] && continue 2; sleep 0.1; done
    fail "8 s after alice fetched from r1, $b's /healthz says $(alice_on "$b"), not $seen"
done

# 3. The budget of source tight ($budget calls a minute) is shared: spent by its holder, which is then
# killed; the successor finds it spent and waits, so the upstream sees no more than $budget calls.
for _ in $(seq 1 100); do [ "$(requests_of tight-token)" -ge "$budget" ] && break; sleep 0.2; done
spent=$(requests_of tight-token)
[ "$spent" -ge "$budget" ] || fail "the holder of t1 made only $spent calls: the budget was never spent"
first=$(holder_of t1)
[ -n "$first" ] || fail "no replica holds t1's lease"
kill -KILL "${replica_pids[$((first - 1))]}"
{ wait "${replica_pids[$((first - 1))]}"; } 2>/dev/null
replicas=${replicas/ ${replica_pids[$((first - 1))]}/}
bases[$((first - 1))]=
next=
for _ in $(seq 1 60); do next=$(holder_of t1); [ -n "$next" ] && break; sleep 0.2; done
[ -n "$next" ] || fail "no replica took t1 over after r$first was killed"
sleep 6 # three refresh periods of t1 on the successor
n=$(requests_of tight-token)
echo "source tight: $n upstream calls in all, budget $budget/min; r$first spent it, r$next took over"
[ "$n" -le "$budget" ] || fail "$n calls of source tight within a minute: the budget of $budget was not shared"
used=$(curl -s "${bases[$((next - 1))]}/metrics" | sed -n 's/^icsbridge_upstream_budget_used{source="tight"} //p')
[ "${used:-0}" -ge "$budget" ] || fail "r$next's /metrics shows $used calls used, not the cluster's $budget"
grep -q 'source tight has used its budget' "$work/r$next.log" || fail "r$next did not wait for the budget"
echo "cluster share e2e OK"
