# File: postgres_fixtures.sh
# A throwaway PostgreSQL 15 for shell tests: initdb + postgres in a temp dir of its own, as the unprivileged
# `postgres` user when the test runs as root (PostgreSQL refuses root), on a Unix socket in that dir only,
# stopped by its pid. Source it; the caller defines fail MESSAGE and calls stop_postgres from its exit trap.

pg_bin=/usr/lib/postgresql/15/bin

# start_postgres: sets pg_dir, pg_pid and pg_url (database postgres, trust auth) once it accepts connections.
start_postgres() {
    [ -x "$pg_bin/postgres" ] || fail "postgresql-15 is not installed (deploy/install-deps.sh installs it)"
    pg_dir=$(mktemp -d /tmp/icsbridge-pg-XXXXXX)
    local as=()
    if [ "$(id -u)" = 0 ]; then
        chown postgres "$pg_dir" || fail "no postgres user to run the test database as"
        # setpriv execs the program itself, so $! is the postmaster's pid, not a wrapper's.
        as=(setpriv --reuid=postgres --regid=postgres --init-groups --)
    fi
    "${as[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U postgres -N >"$pg_dir/initdb.log" 2>&1 ||
        fail "initdb failed: $(tail -5 "$pg_dir/initdb.log")"
    pg_url="postgresql:///postgres?host=$pg_dir&user=postgres"
    run_postgres
}

# replace_postgres: the server stopped, its data wiped and a new empty cluster started in its place (same
# socket): a database restored empty, or a failover to a fresh one.
replace_postgres() {
    pause_postgres
    local as=()
    [ "$(id -u)" = 0 ] && as=(setpriv --reuid=postgres --regid=postgres --init-groups --)
    rm -rf "$pg_dir/data"
    "${as[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U postgres -N >"$pg_dir/initdb.log" 2>&1 ||
        fail "initdb failed: $(tail -5 "$pg_dir/initdb.log")"
    run_postgres
}

# run_postgres: (re)starts the server on the data of start_postgres; sets pg_pid once it accepts connections.
run_postgres() {
    local as=()
    [ "$(id -u)" = 0 ] && as=(setpriv --reuid=postgres --regid=postgres --init-groups --)
    "${as[@]}" "$pg_bin/postgres" -D "$pg_dir/data" -k "$pg_dir" -c listen_addresses= -c fsync=off \
        -c synchronous_commit=off >>"$pg_dir/server.log" 2>&1 &
    pg_pid=$!
    for _ in $(seq 1 300); do
        [ -S "$pg_dir/.s.PGSQL.5432" ] && "$pg_bin/pg_isready" -q -h "$pg_dir" && return 0
        kill -0 "$pg_pid" 2>/dev/null || fail "postgres exited at start: $(tail -5 "$pg_dir/server.log")"
        sleep 0.1
    done
    fail "postgres did not accept connections within 30 s"
}

# pause_postgres: fast shutdown (SIGINT) by pid, the data kept for run_postgres.
pause_postgres() {
    if [ -n "${pg_pid:-}" ]; then
        kill -INT "$pg_pid" 2>/dev/null
        wait "$pg_pid" 2>/dev/null
        pg_pid=
    fi
}

# stop_postgres: pause_postgres, then the directory goes.
stop_postgres() {
    pause_postgres
    [ -n "${pg_dir:-}" ] && rm -rf "$pg_dir"
    pg_dir=
}
