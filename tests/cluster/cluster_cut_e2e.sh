#!/usr/bin/env bash
# File: cluster_cut_e2e.sh
# Cluster mode when the network loses database connections without a word (issue 13): three `icsbridge
# serve` replicas reach a real PostgreSQL 15 through a TCP proxy (support/pg_cut_proxy.py) that cuts
# connections the way a kernel never reports to the client. First a NAT that forgets idle connections (the
# LISTEN connection is idle for as long as no peer publishes): a change upstream still reaches every
# replica. Then every connection lost at once (a failover whose old connections are dropped silently): the
# replicas notice, say "cluster": "ok" again, and serve the next change together; none stays deaf to its
# peers' publishes.
#   cluster_cut_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/cluster_fixtures.sh"
cluster_init cluster_cut_e2e

refresh=6
start_postgres
/usr/bin/python3 "$src/tests/support/pg_cut_proxy.py" "$pg_dir/.s.PGSQL.5432" "$work/proxy.port" &
proxy=$!
# Stopped before the replicas: what its cut leaves open it keeps open until then.
replicas="$proxy"
for _ in $(seq 1 50); do [ -s "$work/proxy.port" ] && break; sleep 0.1; done
[ -s "$work/proxy.port" ] || fail "the proxy did not start"
start_pub_replicas "$bin" "$fake" "$src" $refresh \
    "postgresql://postgres:pw-do-not-print@127.0.0.1:$(cat "$work/proxy.port")/postgres"
changed_fixtures "$src" "$work/changed"

# all_serve_new OLD SECONDS: the ETag all three replicas serve, other than OLD, within SECONDS; empty if
# they do not agree on a new one by then.
all_serve_new() {
    local e1 e2 e3
    for _ in $(seq 1 $(($2 * 5))); do
        e1=$(etag_of "${bases[0]}") e2=$(etag_of "${bases[1]}") e3=$(etag_of "${bases[2]}")
        if [ -n "$e1" ] && [ "$e1" != "$1" ] && [ "$e1" = "$e2" ] && [ "$e2" = "$e3" ]; then
            echo "$e1"
            return
        fi
        sleep 0.2
    done
    echo "all_serve_new: after ${2}s the replicas serve $e1 / $e2 / $e3" >&2
}

# upstream_changes SECONDS: the upstream switches between the fixtures and their changed copy; sets etag to
# what all three replicas then serve, or fails the test if they do not within SECONDS.
fixtures=changed
upstream_changes() {
    local old=$etag t0=$SECONDS
    curl -s -X POST "$upstream/__control/reload?dir=$work/$fixtures" >/dev/null
    [ "$fixtures" = changed ] && fixtures=data || fixtures=changed
    etag=$(all_serve_new "$old" "$1")
    [ -n "$etag" ] || fail "$what: the replicas did not all serve the upstream's change within ${1}s"
    echo "$what: every replica serves the change after $((SECONDS - t0))s"
}

# all_say_ok SECONDS: every replica's /healthz says "cluster": "ok" within SECONDS.
all_say_ok() {
    local b
    for b in "${bases[@]}"; do
        for _ in $(seq 1 $(($1 * 10))); do curl -s "$b/healthz" | grep -q '"cluster":"ok"' && continue 2; sleep 0.1; done
        fail "$what: $b/healthz does not say cluster ok within ${1}s"
    done
}

# All serve the same calendar, then stay quiet for longer than the NAT's idle limit.
etag=$(all_serve_new none 10)
[ -n "$etag" ] || fail "the replicas do not serve one calendar at start"
sleep 3

# A NAT forgets the idle connections; then the upstream changes. Every replica serves the change (the holder
# publishes it; the others hear of it, or find their connections dead and refresh on their own). Once all
# say "ok" again, they hear each other: the next change reaches all three within a refresh and a bit.
what="idle connections dropped"
kill -HUP "$proxy"
upstream_changes 40
all_say_ok 30
upstream_changes $((refresh + 5))

# Every connection lost at once, without a reset, likewise: each replica finds out (no statement is
# answered), connects again, says "ok" and hears its peers again.
what="every connection lost"
kill -USR1 "$proxy"
upstream_changes 60
all_say_ok 30
upstream_changes $((refresh + 5))
grep -q "cluster: degraded" "$work"/r*.log || fail "no replica logged that it lost the database"

# Nothing printed the database password; every line a log line.
if grep -l 'pw-do-not-print' "$work"/r*.log; then fail "the database password is in a log"; fi
stray=$(grep -hvE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z (debug|info|warn|error) ' "$work"/r*.log | head -3)
[ -z "$stray" ] || fail "lines in the logs that are not log lines: $stray"
echo "cluster cut e2e OK"
