#!/usr/bin/env bash
# File: cluster_rows_e2e.sh
# Cluster mode (issue 13), a corrupt or foreign row: three `icsbridge serve` replicas on one real
# PostgreSQL 15 and the fake upstream. The feed's row is altered behind their back (one byte of the body),
# then replaced by something else's (a consistent row, its ETag the true hash, that is no calendar, with a
# lease epoch and a fetch time no replica can beat), each announced with NOTIFY as a publish would be.
# Every replica refuses it like a corrupt disk snapshot: it logs why, and keeps serving its last good
# calendar (200, same ETag, its 304s) without a single 5xx, also with the upstream failing; a replica
# restarted meanwhile serves its disk copy. The lease holder's next publish puts a good row back, and every replica serves it. The database then
# replaced by an empty one gets its schema and the calendar back from the replicas.
#   cluster_rows_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/cluster_fixtures.sh"
cluster_init cluster_rows_e2e

refresh=3
start_pub_cluster "$bin" "$fake" "$src" $refresh

psql_row() { "$pg_bin/psql" "$pg_url" -Atc "$1"; }
# all_serve ETAG SECONDS: every replica serves ETAG within SECONDS; fails with what they serve otherwise.
all_serve() {
    local e1 e2 e3
    for _ in $(seq 1 $(($2 * 10))); do
        e1=$(etag_of "${bases[0]}") e2=$(etag_of "${bases[1]}") e3=$(etag_of "${bases[2]}")
        [ "$e1" = "$1" ] && [ "$e2" = "$1" ] && [ "$e3" = "$1" ] && return 0
        sleep 0.1
    done
    fail "within $2 s the replicas serve $e1 / $e2 / $e3, not $1"
}
good=$(psql_row "SELECT etag FROM icsbridge_snapshots WHERE feed = 'pub'")
[ -n "$good" ] || fail "no row for feed pub in the database"
all_serve "$good" 5

# Every answer r1 and r2 give from here on, in the background: none may be other than 200 or 304 (r3,
# restarted on the way, is asked directly).
(
    while :; do
        for b in "${bases[0]}" "${bases[1]}"; do
            curl -s -o /dev/null -w '%{http_code}\n' "$b/feeds/pub.ics"
            curl -s -o /dev/null -w '%{http_code}\n' -H "If-None-Match: $good" "$b/feeds/pub.ics"
        done
        sleep 0.05
    done
) >"$work/codes" 2>/dev/null &
prober=$!
replicas="$replicas $prober"

# refused_by_all TEXT: every replica logs that it refused the row for TEXT within 3 s.
refused_by_all() {
    local i
    for i in 1 2 3; do
        for _ in $(seq 1 30); do
            grep -q "the row of feed pub has a body that $1.*; serving this replica's own copy" "$work/r$i.log" &&
                continue 2
            sleep 0.1
        done
        fail "r$i did not log that it refused a row that $1"
    done
}
# keeps_serving ETAG: for 2 s every replica serves ETAG (and its 304 to a client that has it).
keeps_serving() {
    local b
    for _ in $(seq 1 10); do
        for b in "${bases[@]}"; do
            [ "$(etag_of "$b")" = "$1" ] || fail "$b serves $(etag_of "$b") instead of its last good $1"
            [ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $1" "$b/feeds/pub.ics")" = 304 ] ||
                fail "$b does not answer 304 to a client holding $1"
        done
        sleep 0.2
    done
}

# upstream_down: the upstream answers 500 from now on, and a refresh has failed since, so that none that
# began before is still on its way to a publish (the holder rewrites even an unchanged calendar, which
# would replace a bad row before the test has seen every replica refuse it).
failed() { cat "$work"/r*.log | grep -c 'feed pub: refresh failed'; }
upstream_down() {
    local before
    before=$(failed)
    curl -s -X POST "$upstream/__control/fault?kind=status500" >/dev/null || fail "cannot set the fault"
    for _ in $(seq 1 $(((2 * refresh + 10) * 10))); do [ "$(failed)" -gt "$before" ] && return 0; sleep 0.1; done
    fail "no refresh failed with the upstream answering 500"
}

# One byte of the row's body altered, and announced: refused everywhere, the last good calendar served.
upstream_down
psql_row "UPDATE icsbridge_snapshots SET body = overlay(body placing 'X'::bytea from 26 for 1)
          WHERE feed = 'pub'; SELECT pg_notify('icsbridge_snapshot', 'pub')" >/dev/null
refused_by_all "does not match its ETag"
keeps_serving "$good"
# The upstream back, the next publish (an unchanged calendar, rewritten each refresh) puts a good row back.
curl -s -X POST "$upstream/__control/fault?kind=none" >/dev/null
# healed: the row is a calendar again, and its ETag the hash of its body.
healed() {
    [ "$(psql_row "SELECT etag = '\"' || encode(sha256(body), 'hex') || '\"'
                          AND position('BEGIN:VCALENDAR'::bytea IN body) = 1
                   FROM icsbridge_snapshots WHERE feed = 'pub'")" = t ]
}
for _ in $(seq 1 $(((refresh + 4) * 10))); do healed && break; sleep 0.1; done
healed || fail "the altered row was not replaced by the next publish"
[ "$(psql_row "SELECT etag FROM icsbridge_snapshots WHERE feed = 'pub'")" = "$good" ] ||
    fail "the row put back is not the good calendar"

# A foreign row: consistent, but no calendar, and with a lease epoch and a fetch time (year 3000) that
# would win every fence. The upstream fails meanwhile, so that the row stays until every replica, and one
# restarted, has refused it.
upstream_down
psql_row "UPDATE icsbridge_snapshots SET body = '<html>maintenance</html>'::bytea,
          etag = '\"' || encode(sha256('<html>maintenance</html>'::bytea), 'hex') || '\"',
          lease_epoch = 9000000000000000, fetched_at = 32503680000 WHERE feed = 'pub';
          SELECT pg_notify('icsbridge_snapshot', 'pub')" >/dev/null
refused_by_all "is not an iCalendar stream"
keeps_serving "$good"

# A replica restarted while the row is foreign serves its own disk copy at once.
kill -TERM "${replica_pids[2]}"
wait "${replica_pids[2]}" 2>/dev/null
replicas=${replicas/ ${replica_pids[2]}/}
mv "$work/r3.log" "$work/r3.first.log"
start_icsbridge "$bin" "$work/r3.toml" "$work/r3.log"
replica_pids[2]=$serve_pid
bases[2]=$base
replicas="$replicas $serve_pid"
serve_pid=
[ "$(etag_of "${bases[2]}")" = "$good" ] || fail "restarted with a foreign row, r3 serves $(etag_of "${bases[2]}")"
for _ in $(seq 1 30); do grep -q "the row of feed pub has a body that is not an iCalendar" "$work/r3.log" && break; sleep 0.1; done
grep -q "the row of feed pub has a body that is not an iCalendar" "$work/r3.log" ||
    fail "restarted, r3 did not log the foreign row it refused"

# The upstream is back, and changed: the lease holder's publish replaces the foreign row in spite of its
# fence fields, and every replica serves the new calendar.
changed_fixtures "$src" "$work/changed"
curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
curl -s -X POST "$upstream/__control/fault?kind=none" >/dev/null
new=
for _ in $(seq 1 $(((2 * refresh + 4) * 10))); do
    healed && new=$(psql_row "SELECT etag FROM icsbridge_snapshots WHERE feed = 'pub'") && break
    sleep 0.1
done
[ -n "$new" ] && [ "$new" != "$good" ] || fail "no lease holder replaced the foreign row with the new calendar"
all_serve "$new" 2
cat "$work"/r*.log | grep -q "is not an iCalendar stream.*; replaced with this replica's snapshot $new" ||
    fail "the replica that replaced the foreign row did not log it"
[ "$(psql_row "SELECT lease_epoch < 9000000000000000 AND fetched_at < 32503680000 FROM icsbridge_snapshots
               WHERE feed = 'pub'")" = t ] || fail "the replaced row kept the foreign row's fence fields"

# The database replaced by an empty one (restored empty, a failover to a fresh server): the replicas
# create the schema again, put their calendar back in, and go on as a cluster.
replace_postgres
for b in "${bases[@]}"; do
    for _ in $(seq 1 150); do curl -s "$b/healthz" | grep -q '"cluster":"ok"' && continue 2; sleep 0.1; done
    fail "$b/healthz does not say cluster ok within 15 s of the database coming back empty"
done
for _ in $(seq 1 50); do [ "$(psql_row "SELECT etag FROM icsbridge_snapshots WHERE feed = 'pub'" 2>/dev/null)" = "$new" ] && break; sleep 0.1; done
[ "$(psql_row "SELECT etag FROM icsbridge_snapshots WHERE feed = 'pub'")" = "$new" ] ||
    fail "the empty database did not get the replicas' calendar back"
all_serve "$new" 1
# "ok" comes once a replica listens and converged; its next refresh turn claims the lease.
for _ in $(seq 1 $(((refresh + 3) * 10))); do
    [ "$(psql_row "SELECT count(*) FROM icsbridge_leases")" -ge 1 ] && break
    sleep 0.1
done
[ "$(psql_row "SELECT count(*) FROM icsbridge_leases")" -ge 1 ] ||
    fail "no replica holds a lease in the new database within a refresh"

# Not one answer but 200 and 304 while all this went on.
kill "$prober"
wait "$prober" 2>/dev/null
replicas=${replicas/ $prober/}
bad=$(grep -Ev '^(200|304)$' "$work/codes" | sort | uniq -c)
[ -z "$bad" ] || fail "replicas answered other than 200/304 while the row was bad: $bad"
[ "$(grep -cE '^(200|304)$' "$work/codes")" -gt 100 ] || fail "the prober saw too few answers"

if grep -l 'pw-do-not-print' "$work"/r*.log; then fail "the database password is in a log"; fi
# Every line a log line: no libpq notice on stderr, no message broken over lines.
stray=$(grep -hvE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z (debug|info|warn|error) ' "$work"/r*.log | head -3)
[ -z "$stray" ] || fail "lines in the logs that are not log lines: $stray"
echo "cluster rows e2e OK"
