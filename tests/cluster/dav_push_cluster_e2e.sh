#!/usr/bin/env bash
# File: dav_push_cluster_e2e.sh
# WebDAV-Push registrations in cluster mode (issue 37): three `icsbridge serve` replicas of one feed on a
# real PostgreSQL 15. The VAPID key is made once for the cluster (the first replica's INSERT ... ON CONFLICT
# DO NOTHING, read back by all), so every replica advertises the same key and the same topic; a
# registration made through r1 shows on r2 (/healthz, which reads the table again every 5 s), registering
# the same push resource through r2 is an update at the same Location, r2 restarted has it from the table,
# and DELETE through it ends it everywhere; SIGTERM ends each replica within 15 s. Neither the database
# password nor the key is in a log.
#   dav_push_cluster_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/cluster_fixtures.sh"
cluster_init dav_push_cluster_e2e
need_python_module cryptography python3-cryptography

admin=adm-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
start_postgres
cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
export TEST_DATABASE_URL="postgresql://postgres:pw-do-not-print@/postgres?host=$pg_dir"
for i in 1 2 3; do
    {
        cluster_toml "$i" "admin_token = \"$admin\""
        echo
        events_source_toml "$upstream" 'timeout = "5s"'
        printf '\n[feeds.pub]\nsource = "eb"\nselect = "organizer"\n'
    } >"$work/r$i.toml"
done
start_replicas "$bin"
for base in "${bases[@]}"; do wait_for_feeds pub.ics; done

client() { /usr/bin/python3 "$src/tests/support/dav_push_client.py" "$@" 2>>"$work/client.log"; }
count_on() { # count_on BASE: the registrations BASE's /healthz shows the admin
    curl -s -H "Authorization: Bearer $admin" "$1/healthz" |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin).get("push", {}).get("registrations", "none"))'
}
wait_count() { # wait_count BASE N: until BASE counts N registrations (up to 15 s)
    for _ in $(seq 1 75); do [ "$(count_on "$1")" = "$2" ] && return 0; sleep 0.2; done
    return 1
}
stopped_within_15s() { # stopped_within_15s I: replica I (0..2), sent SIGTERM, exits 0 within 15 s
    local pid=${replica_pids[$1]}
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && fail "r$(($1 + 1)) still runs 15 s after SIGTERM: $(tail -3 "$work/r$(($1 + 1)).log")"
    wait "$pid" || fail "r$(($1 + 1)) exited with $? after SIGTERM"
}

# 1. One key and one topic on every replica.
for i in 0 1 2; do
    client advertise "${bases[$i]}/dav/feeds/pub/" | /usr/bin/python3 -c '
import json, sys; a = json.load(sys.stdin); print(a["vapid"], a["topic"])' >"$work/ad$i" ||
        fail "advertise on r$((i + 1)): $(tail -3 "$work/client.log")"
done
grep -q None "$work/ad0" && fail "r1 advertises no push: $(cat "$work/ad0")"
cmp -s "$work/ad0" "$work/ad1" && cmp -s "$work/ad1" "$work/ad2" ||
    fail "the replicas advertise different keys or topics: $(cat "$work"/ad?)"
echo "one VAPID key and topic on all three: $(cat "$work/ad0")"

# 2. Registered on r1, seen on r2, updated through r2, ended through r3.
read -r status location _ <<<"$(client register "${bases[0]}/dav/feeds/pub/" https://push.example.net/c/1)"
[ "$status" = 201 ] || fail "registering on r1 answered $status"
wait_count "${bases[1]}" 1 || fail "r2 counts $(count_on "${bases[1]}") registrations, not r1's one"
read -r status again _ <<<"$(client register "${bases[1]}/dav/feeds/pub/" https://push.example.net/c/1)"
[ "$status" = 204 ] && [ "$again" = "$location" ] || fail "registering again on r2: $status $again (r1 said $location)"
echo "registered on r1, seen and updated on r2"

# 3. A restarted replica has it from the table at once (before its first 5 s read), and ends it for all.
kill -TERM "${replica_pids[1]}"
stopped_within_15s 1
start_icsbridge "$bin" "$work/r2.toml" "$work/r2-again.log"
replica_pids[1]=$serve_pid
replicas="$replicas $serve_pid"
serve_pid=
bases[1]=$base
[ "$(count_on "${bases[1]}")" = 1 ] || fail "restarted r2 counts $(count_on "${bases[1]}") registrations, not 1"
[ "$(client delete "${bases[1]}$location")" = 204 ] || fail "DELETE through the restarted r2 is not 204"
wait_count "${bases[0]}" 0 || fail "r1 still counts $(count_on "${bases[0]}") registrations after the DELETE"
wait_count "${bases[2]}" 0 || fail "r3 still counts $(count_on "${bases[2]}") registrations after the DELETE"
echo "kept across r2's restart (the table), ended through r2 for all"

# 4. SIGTERM ends every replica within 15 s (the registrations' upkeep waits on a timer that stop cancels).
for i in 0 1 2; do kill -TERM "${replica_pids[$i]}"; done
for i in 0 1 2; do stopped_within_15s "$i"; done
replicas=
grep -q -e pw-do-not-print -e "$admin" -e 'BEGIN PRIVATE' "$work"/r*.log && fail "a secret is in a log"
echo ok
