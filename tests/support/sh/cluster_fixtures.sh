# File: cluster_fixtures.sh
# Shared by the cluster end-to-end tests and deploy/bench-cluster.sh: a work dir whose exit trap stops the
# replicas and then the database, fail showing the replicas' logs, and what they ask of the upstream.
# Source it; the caller adds each replica's pid to $replicas.

. "$(dirname "${BASH_SOURCE[0]}")/run_fixtures.sh"
. "$(dirname "${BASH_SOURCE[0]}")/postgres_fixtures.sh"

# cluster_init NAME: $work, $replicas (empty) and the trap; NAME is what fail messages start with, and fail
# shows the replicas' logs.
cluster_init() {
    test_name=$1
    init_work
    replicas=
    # stop_and_clean stops every pid in $serve_pid: the replicas go there, the database after them.
    trap 'serve_pid=$replicas; stop_and_clean; stop_postgres' EXIT
    fail_logs="r1.log r2.log r3.log"
    fail_tail=15
    # Request lines aside: the tests' own probes would push out what matters.
    fail_skip=" info [A-Z]* /"
}

# list_requests [TOKEN [PARAM]]: refreshes the upstream saw, i.e. first pages of the organizer's current
# list (a refresh reads several pages, and the past events too); only those made with TOKEN, and only
# those with the query parameter bench=PARAM, when given.
list_requests() {
    curl -s "$upstream/__control/requests" | python3 -c '
import json, sys
token = sys.argv[1] if len(sys.argv) > 1 else ""
param = sys.argv[2] if len(sys.argv) > 2 else None
print(sum(1 for r in json.load(sys.stdin) if r["path"].endswith("/users/me/events/")
          and not any(k in ("page", "continuation") or v == "past" for k, v in r["query"])
          and (not token or r["authorization"] == "Bearer " + token)
          and (param is None or ["bench", param] in r["query"])))' "$@"
}

# cluster_toml N [LINE...]: the [server] (with extra key lines), [storage] and [cluster] tables of replica rN
# (lease 3 s, the database URL in TEST_DATABASE_URL).
cluster_toml() {
    server_toml "$work/state$1" "127.0.0.1:0" "${@:2}"
    printf '\n[cluster]\ndatabase_url_env = "TEST_DATABASE_URL"\nnode = "r%s"\nlease = "3s"\n' "$1"
}

# start_replicas BIN: starts r1..r3 from $work/rN.toml (logs $work/rN.log); sets bases (their URLs) and
# replica_pids, and adds the pids to $replicas.
start_replicas() {
    local i
    bases=()
    replica_pids=()
    for i in 1 2 3; do
        start_icsbridge "$1" "$work/r$i.toml" "$work/r$i.log"
        replica_pids+=("$serve_pid")
        replicas="$replicas $serve_pid"
        serve_pid=
        bases+=("$base")
    done
}

# start_pub_cluster BIN FAKE SRC REFRESH: the database, the fake upstream on a copy of the fixtures
# ($work/data) and three replicas of one feed, pub (the organizer's events, refreshed every REFRESH
# seconds), each serving it. The database URL carries a password (trust auth ignores it) that must show
# up nowhere: pw-do-not-print.
start_pub_cluster() {
    start_postgres
    start_pub_replicas "$@" "postgresql://postgres:pw-do-not-print@/postgres?host=$pg_dir"
}

# start_pub_replicas BIN FAKE SRC REFRESH URL: start_pub_cluster on a database already started, which the
# replicas reach at URL.
start_pub_replicas() {
    local i
    cp -r "$3/tests/fixtures/upstream" "$work/data"
    start_fake_upstream "$2" "$work" "$work/data"
    export TEST_DATABASE_URL=$5
    for i in 1 2 3; do
        {
            cluster_toml "$i"
            echo
            events_source_toml "$upstream" 'timeout = "5s"'
            printf '\n[feeds.pub]\nsource = "eb"\nselect = "organizer"\nrefresh = "%ss"\nkeep_past = "3650d"\n' "$4"
        } >"$work/r$i.toml"
    done
    start_replicas "$1"
    for base in "${bases[@]}"; do wait_for_feeds pub.ics; done
}
