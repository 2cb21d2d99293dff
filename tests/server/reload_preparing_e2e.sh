#!/usr/bin/env bash
# File: reload_preparing_e2e.sh
# A reload (SIGHUP) while a feed's first refresh is being prepared for publication (its ETag, gzip and
# CalDAV cut made on the Publisher's threads): the feed has no last success yet, but the new generation
# counts the refresh being prepared as one and does not read the list again. Each round starts `serve` on an
# empty state, sends SIGHUP as soon as the log (ICSBRIDGE_LOG=debug) says the big feed's publication is being
# prepared (not at its render: a reload between the render and the hand-over to the Publisher still reads the
# list again, as one during the list's reading does), and
# counts the upstream's list reads (first pages) in the 3 s after the publication. A round where the reload
# came after the publication took effect proves nothing and is not counted.
#   reload_preparing_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/support/sh/upstream_fixtures.sh"
test_name=reload_preparing_e2e
init_work

# Large enough that its preparation (gzip of several MB) outlasts the signal's way in.
launch_fake_upstream "$fake" "$work" --generate-events 3000 --page-size 500 --description-bytes 2000 ||
    fail "the fake upstream did not start"
write_config "$work/serve.toml" \
    "$(server_toml "$work/state" "127.0.0.1:0")" \
    "$(toml_table sources.big 'type = "events"' "base_url = \"$upstream\"" 'token = "demo-events-token"' \
        'timeout = "60s"')" \
    "$(toml_table feeds.big 'source = "big"' 'select = "organizer"' 'keep_past = "0s"' 'refresh = "1h"')"
# list_reads: requests for the organizer list since the last clear (the first page of each list read)
list_reads() {
    curl -s "$upstream/__control/requests" | /usr/bin/python3 -c '
import json, sys
print(sum(1 for r in json.load(sys.stdin) if r["path"] == "/v3/users/me/events/"
          and not any(k in ("page", "continuation") for k, _ in r["query"])))'
}

rounds=0
tries=0
while [ "$rounds" -lt 2 ]; do
    tries=$((tries + 1))
    [ "$tries" -le 6 ] || fail "only $rounds of 2 reloads came during the preparation in $((tries - 1)) tries"
    rm -rf "$work/state"
    curl -s -X POST "$upstream/__control/clear_requests" >/dev/null
    # serve, SIGHUP at the preparation's log line, then: did the reload come before the publication took effect?
    order=$(ICSBRIDGE_LOG=debug /usr/bin/python3 - "$bin" "$work" <<'PY'
import re, signal, subprocess, sys, time
bin, work = sys.argv[1:3]
log_path = work + "/serve.log"
serve = subprocess.Popen([bin, "serve", "--config", work + "/serve.toml"], stderr=open(log_path, "w"))
def log(): return open(log_path).read()
def until(what, cond, limit=120.0):
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end or serve.poll() is not None:
            serve.terminate()
            sys.exit("gave up waiting for " + what)
        time.sleep(0.001)
try:
    until("the big feed's preparation", lambda: "feed big: a publication of" in log())
    serve.send_signal(signal.SIGHUP)
    until("the reload", lambda: "reloaded:" in log())
    until("the big feed's publication", lambda: re.search(r"feed big: \d+ items", log()))
    time.sleep(3)
    text = log()
    print("during" if text.index("reloaded:") < re.search(r"feed big: \d+ items", text).start() else "after")
finally:
    serve.terminate()
    serve.wait()
PY
    ) || fail "serve did not render, reload and publish the big feed (log: $(tail -5 "$work/serve.log"))"
    lists=$(list_reads)
    if [ "$order" != during ]; then
        echo "the reload came after the publication took effect: round not counted"
        continue
    fi
    [ "$lists" = 1 ] || fail "a reload during the preparation of the first refresh: the list was read $lists times (want 1)"
    rounds=$((rounds + 1))
    echo "round $rounds: reload during the preparation, the list read once"
done
echo "PASS [reload_preparing_e2e]"
