#!/usr/bin/env bash
# File: webpush_cluster_e2e.sh
# WebDAV-Push delivery in cluster mode (issue 37): three `icsbridge serve` replicas of one feed on a real
# PostgreSQL 15 and a Web Push service on loopback (tests/support/webpush_receiver.py, which decrypts every
# message and verifies its VAPID JWT). Two subscriptions on the feed, registered through r1 and r2, and two on
# a merged feed of it and a jobs feed that does not change, through r1 and r3, are seen by every replica; each
# change upstream (refreshed by the lease holder, adopted by the others, the merged feed rebuilt on every
# replica) reaches each subscription exactly once, carrying the token every replica gives for the new
# calendar (for the merged feed: the sending replica's token; no replica takes up a peer's rebuild), and the replicas' counts of sent messages add up to the messages the push service took.
#   webpush_cluster_e2e.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR
set -u

bin=$1
fake=$2
src=$3
. "$src/tests/support/sh/cluster_fixtures.sh"
cluster_init webpush_cluster_e2e
need_python_module jwt python3-jwt
need_python_module caldav python3-caldav

admin=adm-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
refresh=3
start_postgres
cp -r "$src/tests/fixtures/upstream" "$work/data"
changed_fixtures "$src" "$work/changed"
start_fake_upstream "$fake" "$work" "$work/data"
start_webpush_receiver "$src" "$work/receiver.out"
export TEST_DATABASE_URL="postgresql://postgres:pw-do-not-print@/postgres?host=$pg_dir"
for i in 1 2 3; do
    {
        cluster_toml "$i" "admin_token = \"$admin\""
        printf '\n[dav]\npush = true\npush_subject = "mailto:ops@example.org"\npush_allow_private = true\n\n'
        fake_sources_toml "$upstream" 'timeout = "5s"'
        printf '\n[feeds.pub]\nsource = "eb"\nselect = "organizer"\nrefresh = "%ss"\nkeep_past = "3650d"\n' $refresh
        echo
        feed_toml jb jobs search 'jobs_as = "both"' 'params = { keywords = "designer" }' "refresh = \"${refresh}s\""
        printf '\n[feeds.all]\nmerge = ["pub", "jb"]\n'
    } >"$work/r$i.toml"
done
start_replicas "$bin"
for base in "${bases[@]}"; do wait_for_feeds pub.ics all.ics; done
cp "$src/tests/support/webpush_client.py" "$work/client.py"

# py NAME: the python on stdin with client.py's names (its base is r1); output in $work/NAME.out.
py() {
    (cd "$work" && /usr/bin/python3 - "${bases[0]}" "$push" >"$work/$1.out" 2>"$work/$1.err") ||
        fail "python ($1): $(tail -5 "$work/$1.err")"
}
count_on() { # count_on BASE: the registrations BASE's /healthz shows the admin
    curl -s -H "Authorization: Bearer $admin" "$1/healthz" |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin).get("push", {}).get("registrations", "none"))'
}
sent_on() { # sent_on BASE: the messages BASE counts as sent
    curl -s -H "Authorization: Bearer $admin" "$1/metrics" |
        sed -n 's/^icsbridge_dav_push_messages_total{outcome="sent"} //p'
}

py register <<PY
from client import *
register(new_sub(), at="${bases[0]}")
register(new_sub(), at="${bases[1]}")
register(new_sub(), feed="all", at="${bases[0]}")
register(new_sub(), feed="all", at="${bases[2]}")
PY
for b in "${bases[@]}"; do
    for _ in $(seq 1 75); do [ "$(count_on "$b")" = 4 ] && break; sleep 0.2; done
    [ "$(count_on "$b")" = 4 ] || fail "$b counts $(count_on "$b") registrations, not 4"
done
echo "four registrations (two on pub, two on the merged feed all), made through r1, r2 and r3, seen by all three replicas"

# Two changes upstream, each given time to reach every replica (and any second message time to come).
for round in 1 2; do
    [ "$round" = 1 ] && dir=$work/changed || dir=$work/data
    curl -s -X POST "$upstream/__control/reload?dir=$dir" >/dev/null
    py "round$round" <<PY
from client import *
for sid in ("s1", "s2", "s3", "s4"):
    wait_messages(sid, $round, seconds=$((refresh * 4 + 5)))
time.sleep($((refresh * 2)))
out = []
for feed, sids in (("pub", ("s1", "s2")), ("all", ("s3", "s4"))):
    tokens = set()
    for sid in sids:
        got = messages(sid)
        assert len(got) == $round, f"{feed} {sid}: {len(got)} messages after $round change(s): {[parse(m)[1] for m in got]}"
        tokens.add(parse(got[-1])[1])
    assert len(tokens) == 1, (feed, tokens)
    token = tokens.pop()
    on = {at: sync_token(at, feed) for at in ("${bases[0]}", "${bases[1]}", "${bases[2]}")}
    # A merged feed is rebuilt on every replica, its CalDAV history each replica's own (a peer's rebuild is
    # never taken up): the message carries the token of the replica that sent it.
    if feed == "pub":
        assert set(on.values()) == {token}, (feed, on, token)
    else:
        assert token in on.values(), (feed, on, token)
    out.append(f"{feed} {token}")
print(", ".join(out))
PY
    echo "change $round: one message per subscription, token $(cat "$work/round$round.out") on every replica"
done

# A peer's rebuild of the merged feed, taken up, used to serve the calendar as it was before the change.
grep -q 'feed all: .*(adopted)' "$work"/r?.log && fail "a replica took up a peer's rebuild of the merged feed"

total=0
for b in "${bases[@]}"; do total=$((total + $(sent_on "$b"))); done
[ "$total" = 8 ] || fail "the replicas count $total messages sent, not the 8 the push service took"
senders=$(for b in "${bases[@]}"; do [ "$(sent_on "$b")" -gt 0 ] && echo "$b"; done | wc -l)
echo "8 messages sent in all, by $senders replica(s)"

for pid in "${replica_pids[@]}"; do kill -TERM "$pid"; wait "$pid" || fail "a replica exited with $? after SIGTERM"; done
replicas=
grep -q -e pw-do-not-print -e "$admin" -e 'BEGIN PRIVATE' -e 'vapid t=' "$work"/r?.log && fail "a secret is in a log"
echo ok
