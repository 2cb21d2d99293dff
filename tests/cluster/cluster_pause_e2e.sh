#!/usr/bin/env bash
# File: cluster_pause_e2e.sh
# A database that stops answering never holds a replica (issue 24): with every PostgreSQL process paused
# (SIGSTOP, postmaster and backends) for 8 s, a real `icsbridge serve` replica keeps serving its feed (p99
# under 0.5 s over a bounded loop, where a wait for the database would take 2 s), /healthz answers, a webhook is accepted, and a SIGHUP reload applies
# at once (the thread that refreshes and reloads never waits for a statement); once the database resumes,
# the upstream change made during the pause is served and written to the database: nothing is lost.
#   cluster_pause_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/cluster_fixtures.sh"
cluster_init cluster_pause_e2e

start_postgres
cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
export TEST_DATABASE_URL="postgresql://postgres:pw-do-not-print@/postgres?host=$pg_dir"
replica_config() {
    write_config "$work/r1.toml" \
        "$(cluster_toml 1)" \
        "$(events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret = "pause-hook-secret"')" \
        "$(printf '[feeds.pub]\nsource = "eb"\nselect = "organizer"\nrefresh = "2s"\ntitle = "%s"' "$1")"
}
replica_config "Before"
start_icsbridge "$bin" "$work/r1.toml" "$work/r1.log"
replicas="$serve_pid"
serve_pid=
r1=$base

for _ in $(seq 1 100); do
    curl -s "$r1/healthz" | grep -q '"cluster":"ok"' && [ -n "$(etag_of "$r1")" ] && break
    sleep 0.1
done
before=$(etag_of "$r1")
[ -n "$before" ] || fail "the replica serves no calendar"
curl -s "$r1/healthz" | grep -q '"cluster":"ok"' || fail "the replica never said cluster ok"

# Every process of the database stops: the postmaster and each backend the replica is connected to.
pg_procs=("$pg_pid" $(pgrep -P "$pg_pid"))
kill -STOP "${pg_procs[@]}"
paused_at=$(date +%s.%N)
resume() { kill -CONT "${pg_procs[@]}" 2>/dev/null; }
trap 'resume; serve_pid=$replicas; stop_and_clean; stop_postgres' EXIT
sleep 1 # past the next lease renewal: the database thread is now waiting for an answer

# The upstream changes and says so with a webhook: accepted at once.
changed_fixtures "$src" "$work/changed"
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
hook='{"api_url": "'"$upstream"'/v3/events/1001/", "config": {"action": "event.updated"}}'
code=$(curl -s -m 2 -o /dev/null -w '%{http_code}' -X POST -d "$hook" "$r1/hooks/eb/pause-hook-secret")
[ "$code" = 202 ] || fail "a webhook during the pause got $code, not 202"

# A reload applies while the database is paused (it ran on a thread that also waited for statements).
replica_config "During"
kill -HUP "$replicas"
for _ in $(seq 1 20); do grep -q 'reloaded: ' "$work/r1.log" && break; sleep 0.1; done
grep -q 'reloaded: ' "$work/r1.log" || fail "a SIGHUP during the pause was not applied within 2 s"

# Serving goes on: 100 requests, one after another, each timed; and /healthz answers.
times=$(for _ in $(seq 1 100); do curl -s -m 2 -o /dev/null -w '%{time_total}\n' "$r1/feeds/pub.ics"; done)
p99=$(echo "$times" | sort -n | tail -2 | head -1)
echo "during the pause: feed p99 ${p99}s over 100 requests"
# A request that waited for the database would take until curl's 2 s limit (the pause lasts 8 s); 0.5 s keeps
# that apart from a loaded machine's scheduling (a p99 of 0.29 s was seen at load 8.7 on 2 cores).
python3 -c "import sys; sys.exit(0 if float('$p99') < 0.5 else 1)" || fail "feed p99 ${p99}s during the pause"
code=$(curl -s -m 1 -o /dev/null -w '%{http_code}' "$r1/healthz")
[ "$code" = 200 ] || fail "/healthz during the pause answered $code"
still=$(python3 -c "import time; print(time.time() - $paused_at < 8)")
[ "$still" = True ] || fail "the checks above took longer than the pause (the test proves nothing)"

# 8 s in all, then the database answers again.
sleep "$(python3 -c "import time; print(max(0, 8 - (time.time() - $paused_at)))")"
resume

# Nothing lost: the change is served, and the database holds what is served.
row_etag() { "$pg_bin/psql" "$pg_url" -Atc "SELECT etag FROM icsbridge_snapshots WHERE feed = 'pub'" 2>/dev/null; }
served= row=
for _ in $(seq 1 200); do
    served=$(etag_of "$r1")
    row=$(row_etag)
    [ -n "$served" ] && [ "$served" != "$before" ] && [ "$row" = "$served" ] && break
    sleep 0.1
done
[ "$served" != "$before" ] || fail "the change made during the pause was not served within 20 s of resuming"
[ "$row" = "$served" ] || fail "the database holds $row, the replica serves $served: a write was lost"
curl -s "$r1/feeds/pub.ics" | grep -q 'MOVED' || fail "the served calendar lacks the upstream change"
curl -s "$r1/feeds/pub.ics" | grep -q 'X-WR-CALNAME:During' || fail "the reload's title is not served"
! grep -q 'pw-do-not-print' "$work/r1.log" || fail "the database password is in the log"
echo "cluster_pause_e2e: ok"
