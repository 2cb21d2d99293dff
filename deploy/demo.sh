#!/usr/bin/env bash
# Runs icsbridge on the bundled demo data: builds it, starts the fake upstream (a real HTTP server on
# 127.0.0.1 that speaks both APIs from tests/fixtures/upstream, plus events dated around now in every
# stage of their life), exports every demo feed once to
# var/demo/export/, then serves them all until Ctrl-C. Installs the Debian packages it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."

upstream_port="${ICSBRIDGE_DEMO_UPSTREAM_PORT:-18080}"
config="config/demo.toml"

deploy/install-deps.sh --demo
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"${ICSBRIDGE_JOBS:-2}" --target icsbridge icsbridge-fake-upstream

# The demo's credentials: the fake upstream accepts exactly these.
export EVENTS_TOKEN=demo-events-token
export JOBS_API_KEY=demo-jobs-key

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p var/demo
fifo="var/demo/.upstream-ready"
rm -f "$fifo" && mkfifo "$fifo"
# --lifecycle adds events dated around now: one running, one ended 10 days ago, a cancelled one, a series.
build/icsbridge-fake-upstream --port "$upstream_port" --data tests/fixtures/upstream --lifecycle >"$fifo" &
pids+=($!)
read -r ready <"$fifo"
rm -f "$fifo"
echo "demo: fake upstream $ready"

build/icsbridge check --config "$config"

mkdir -p var/demo/export
feeds=$(build/icsbridge check --config "$config" | awk '$1 == "feed" {print $2}')
for feed in $feeds; do
    if build/icsbridge export --config "$config" --feed "$feed" --output "var/demo/export/$feed.ics"; then
        echo "demo: exported var/demo/export/$feed.ics"
    else
        echo "demo: export of $feed failed (see above)" >&2
    fi
done

listen=$(sed -n 's/^listen *= *"\(.*\)".*/\1/p' "$config" | head -n1)
echo "demo: serving on http://$listen/ (index page with subscribe links); feeds:"
for feed in $feeds; do echo "  http://$listen/feeds/$feed.ics"; done
echo "demo: press Ctrl-C to stop"
build/icsbridge serve --config "$config" &
pids+=($!)
wait "${pids[-1]}"
