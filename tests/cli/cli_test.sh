#!/usr/bin/env bash
# File: cli_test.sh
# The command line's behaviour the README promises (exit codes, messages, no secrets in output), one case per CTest entry:
#   cli_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR CASE   (the version expected: BUILD_DIR's project version)
set -u

bin=$1
src=$3
build=$4
case_name=$5
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
fixtures="$src/tests/fixtures/configs"
. "$src/tests/support/sh/run_fixtures.sh"
test_name=$case_name
fail_logs="out err"
init_work

# run EXPECTED_STATUS ARGS...: runs the binary, keeps stdout/stderr in $work/out, $work/err.
run() {
    local want=$1
    shift
    "$bin" "$@" >"$work/out" 2>"$work/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "icsbridge $* exited $got, expected $want"
}

expect_out() { grep -qE -- "$1" "$work/out" || fail "stdout lacks /$1/"; }
expect_err() { grep -qE -- "$1" "$work/err" || fail "stderr lacks /$1/"; }
expect_err_lines() {
    local n
    n=$(wc -l <"$work/err")
    [ "$n" -eq "$1" ] || fail "stderr has $n lines, expected $1"
}
# no_secret WORD...: none of the words appears in stdout or stderr.
no_secret() {
    for s in "$@"; do
        if grep -qF -- "$s" "$work/out" "$work/err"; then fail "secret '$s' printed"; fi
    done
}

# A config whose upstreams are dead (port 1 on loopback refuses at once).
dead_config() {
    cat >"$work/dead.toml" <<TOML
$(events_source_toml http://127.0.0.1:1 'token = "dead-upstream-bearer-secret"' 'timeout = "2s"')

$(jobs_source_toml http://127.0.0.1:1 'api_key = "dead-upstream-api-key-secret"' 'timeout = "2s"')

[feeds.my-events]
source = "eb"
select = "organizer"
token = "dead-feed-token-secret"

[feeds.design-jobs]
source = "jobs"
select = "search"
params = { keywords = "designer" }
TOML
}

case "$case_name" in
version)
    run 0 --version
    [ "$(cat "$work/out")" = "icsbridge $version" ] || fail "version output is '$(cat "$work/out")'"
    ;;
help)
    run 0 --help
    for c in serve export check categories tags --version; do expect_out "$c"; done
    run 0 -h
    expect_out "Usage:"
    for c in serve export check categories tags; do
        run 0 "$c" --help
        expect_out "^Usage: icsbridge $c --config FILE"
        expect_out "Exit status"
    done
    run 0 export --help
    expect_out "--feed NAME"
    expect_out "--output PATH"
    # The README's command table lists exactly the usage lines --help prints (issue: help and README agree).
    run 0 --help
    usage=$(sed -n 's/^  icsbridge \([a-z].*\)$/\1/p' "$work/out" | grep -v -- '--help')
    [ -n "$usage" ] || fail "no usage lines in --help"
    readme_rows=$(grep -o '^| `icsbridge [a-z][^`]*`' "$src/README.md" | sed 's/^| `icsbridge //; s/`$//')
    [ "$(sort <<<"$usage")" = "$(sort <<<"$readme_rows")" ] ||
        fail "README command table and --help differ:"$'\n'"help:"$'\n'"$usage"$'\n'"README:"$'\n'"$readme_rows"
    ;;
usage_errors)
    run 2
    expect_err "no command given"
    expect_err "icsbridge --help"
    run 2 exprot --config x
    expect_err "unknown command 'exprot'; did you mean 'export'\?"
    run 2 export --config "$fixtures/valid.toml"
    expect_err "^icsbridge: export: missing --feed NAME$"
    expect_err "^Try 'icsbridge export --help'.$"
    run 2 check --config "$fixtures/valid.toml" --verbose
    expect_err "unknown option '--verbose'"
    run 2 check --config
    expect_err "--config needs a value"
    ;;
check_example)
    EVENTS_TOKEN=example-env-bearer-secret JOBS_API_KEY=example-env-api-key-secret \
        run 0 check --config "$src/config/example.toml"
    expect_out "OK \(2 sources, 5 feeds\)"
    expect_out "^  url: +http://127.0.0.1:8080/feeds/my-events.ics\?token=\*\*\*$"
    expect_out "^  url: +http://127.0.0.1:8080/feeds/sf-tech.ics$"
    expect_out "subscribers: alice, phone"
    expect_out "^  caldav: +http://127.0.0.1:8080/dav/feeds/sf-tech/$"
    expect_out "^  caldav: +http://127.0.0.1:8080/dav/users/subscriber/feeds/my-events/  \(user subscriber, password the token\)$"
    expect_out "^  caldav: +http://127.0.0.1:8080/dav/users/NAME/feeds/[a-z-]+/  \(NAME: alice, phone; password: their token\)$"
    expect_out "^feed org-events$"
    [ "$(awk '$1 == "feed" {print $2}' "$work/out" | tr '\n' ' ')" = "my-events org-events sf-tech design-jobs everything " ] || fail "feed lines"
    expect_out "^  merge: +my-events, design-jobs$"
    expect_out "^  select: +organization$"
    expect_out "^  refresh: +15m$"
    no_secret example-env-bearer-secret example-env-api-key-secret change-me-feed-secret change-me-1 change-me-2 change-me-merge-secret
    # Without the environment variables the same file is invalid, and says which variable is missing.
    env -u EVENTS_TOKEN -u JOBS_API_KEY "$bin" check --config "$src/config/example.toml" >"$work/out" 2>"$work/err"
    [ $? -eq 2 ] || fail "check without EVENTS_TOKEN should exit 2"
    expect_err "^$src/config/example.toml:[0-9]+:[0-9]+: environment variable EVENTS_TOKEN"
    ;;
check_invalid)
    n=0
    for f in "$fixtures"/invalid_*.toml; do
        env -u ICSBRIDGE_TEST_UNSET_TOKEN EVENTS_TOKEN=x "$bin" check --config "$f" >"$work/out" 2>"$work/err"
        status=$?
        [ "$status" -eq 2 ] || fail "check $f exited $status, expected 2"
        grep -qE "^$f:[0-9]+:[0-9]+: .+" "$work/err" || fail "no FILE:LINE:COL line for $f"
        # A missing secret is followed by how the service gets its secrets (secrets.env).
        case "$f" in *missing_env*) expect_err_lines 2 ;; *) expect_err_lines 1 ;; esac
        [ -s "$work/out" ] && fail "check $f printed to stdout"
        n=$((n + 1))
    done
    [ "$n" -ge 20 ] || fail "only $n invalid fixtures found"
    # serve and export refuse the same file the same way, before any network activity.
    run 2 serve --config "$fixtures/invalid_unknown_key.toml"
    expect_err "^$fixtures/invalid_unknown_key.toml:9:1: unknown key 'tilte'"
    expect_err_lines 1
    run 2 export --config "$fixtures/invalid_listen.toml" --feed a
    expect_err "^$fixtures/invalid_listen.toml:2:10: "
    run 2 check --config "$work/missing.toml"
    expect_err "^$work/missing.toml:1:1: cannot read the config file"
    ;;
cluster_libpq)
    # libpq is not loaded at start (its chain of libraries is half the start-up); cluster mode loads it.
    ldd "$bin" | grep -q 'libpq\.so' && fail "icsbridge links libpq at start"
    cat >"$work/cluster.toml" <<TOML
[cluster]
database_url = "postgresql://icsbridge@127.0.0.1:1/icsbridge"

$(events_source_toml http://127.0.0.1:1 'token = "cluster-case-bearer-secret"')

[feeds.a]
source = "eb"
select = "organizer"
TOML
    chmod 600 "$work/cluster.toml"
    run 0 check --config "$work/cluster.toml"
    expect_out "^cluster: postgresql://icsbridge@127.0.0.1:1/icsbridge"
    # Without the library (hidden in a mount namespace of this command alone): one clear line at the key.
    lib=$(readlink -f "$(ldconfig -p | awk '/libpq\.so\.5 / { print $NF; exit }')")
    if [ -f "$lib" ] && unshare --mount true 2>/dev/null; then
        unshare --mount sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$lib" \
            "$bin" check --config "$work/cluster.toml" >"$work/out" 2>"$work/err"
        [ $? -eq 2 ] || fail "check of a cluster config without libpq should exit 2"
        expect_err "^$work/cluster.toml:2:1: cluster mode needs the PostgreSQL client library, which cannot be loaded \(.+\); on Debian: apt install libpq5$"
        expect_err_lines 1
        no_secret cluster-case-bearer-secret
        # A config without [cluster] never needs it.
        EVENTS_TOKEN=x JOBS_API_KEY=y unshare --mount sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' \
            sh "$lib" "$bin" check --config "$src/config/example.toml" >"$work/out" 2>"$work/err"
        [ $? -eq 0 ] || fail "check without [cluster] needs libpq: $(cat "$work/err")"
    else
        echo "cluster_libpq: cannot hide libpq here (needs root for unshare --mount); its missing-library case is not run"
    fi
    ;;
export_unknown_feed)
    dead_config
    run 2 export --config "$work/dead.toml" --feed nope
    expect_err "unknown feed 'nope' \(feeds in $work/dead.toml: my-events, design-jobs\)"
    expect_err_lines 1
    ;;
export_dead_upstream)
    dead_config
    printf 'previous good calendar\r\n' >"$work/keep.ics"
    cp "$work/keep.ics" "$work/keep.orig"
    run 1 export --config "$work/dead.toml" --feed my-events --output "$work/keep.ics"
    expect_err "^icsbridge: export my-events: "
    expect_err_lines 1
    cmp -s "$work/keep.ics" "$work/keep.orig" || fail "a failed export changed the output file"
    [ "$(ls -A "$work" | grep -c tmp)" -eq 0 ] || fail "a temp file was left behind"
    no_secret dead-upstream-bearer-secret dead-feed-token-secret
    run 1 export --config "$work/dead.toml" --feed design-jobs --output "$work/jobs.ics"
    expect_err "^icsbridge: export design-jobs: "
    [ -e "$work/jobs.ics" ] && fail "a failed export created the output file"
    no_secret dead-upstream-api-key-secret
    ;;
export_stdout_dead)
    dead_config
    run 1 export --config "$work/dead.toml" --feed my-events
    [ -s "$work/out" ] && fail "a failed export wrote to stdout"
    expect_err "^icsbridge: export my-events: "
    no_secret dead-upstream-bearer-secret dead-feed-token-secret
    ;;
categories)
    dead_config
    # The events service's table is built in: no request, so a dead upstream does not matter.
    run 0 categories --config "$work/dead.toml" --source eb
    expect_out $'^102\tScience & Technology$'
    grep -qvE $'^[0-9]+\t.+$' "$work/out" && fail "a line is not id<TAB>name"
    run 2 tags --config "$work/dead.toml" --source eb
    expect_err "the events service has no tags"
    run 2 categories --config "$work/dead.toml" --source nope
    expect_err "unknown source 'nope' \(sources in $work/dead.toml: eb, jobs\)"
    run 1 tags --config "$work/dead.toml" --source jobs
    no_secret dead-upstream-api-key-secret
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok [$case_name]"
