# File: dav_fixtures.sh
# What the CalDAV tests share (tests/server/dav_*_e2e.sh, tests/cluster/dav_cluster_e2e.sh): the fake upstream
# with a change ready and a webhook secret, `serve`'s config, the change published through its webhook, and
# python3-caldav's sync. Source it after run_fixtures.sh (or cluster_fixtures.sh); it defines functions only.

# dav_upstream: the fake upstream on a copy of the fixtures ($work/data), the changed fixtures in
# $work/changed, and a fresh webhook secret in $secret and TEST_HOOK_SECRET. Sets what start_fake_upstream sets.
dav_upstream() {
    secret=hk-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
    cp -r "$src/tests/fixtures/upstream" "$work/data"
    changed_fixtures "$src" "$work/changed"
    start_fake_upstream "$fake" "$work" "$work/data"
    export TEST_HOOK_SECRET=$secret
}

# dav_config [FEED_TOML...]: $work/serve.toml with the events source that takes the webhook, and the feeds
# (default: pub, titled "Public meetups"), each made by organizer_feed_toml or written out.
dav_config() {
    [ $# -gt 0 ] || set -- "$(organizer_feed_toml pub 'title = "Public meetups"')"
    {
        server_toml "$work/state" "127.0.0.1:0"
        echo
        events_source_toml "$upstream" 'timeout = "5s"' 'webhook_secret_env = "TEST_HOOK_SECRET"'
        local feed
        for feed in "$@"; do
            echo
            echo "$feed"
        done
    } >"$work/serve.toml"
}

# publish_change: the upstream changes one event of pub (dav_upstream's $work/changed) and sends its webhook
# to $base; waits up to 8 s for pub.ics's ETag to change, and fails if it does not.
publish_change() {
    local before sent
    before=$(etag_of "$base")
    curl -s -X POST "$upstream/__control/reload?dir=$work/changed" >/dev/null
    sent=$(curl -s -X POST "$upstream/__control/send_hook?action=event.updated&event=788216780592&to=$base/hooks/eb/$secret")
    [ "$sent" = '{"status":202}' ] || fail "the hook was not accepted: $sent"
    for _ in $(seq 1 80); do [ "$(etag_of "$base")" != "$before" ] && break; sleep 0.1; done
    [ "$(etag_of "$base")" != "$before" ] || fail "the change was not published within 8 s"
}

# caldav_sync URL TOKEN: python3-caldav's objects_by_sync_token on the collection URL from TOKEN (empty: the
# initial listing); prints the new token, then the number of items, then each item's data on one line.
caldav_sync() {
    /usr/bin/python3 - "$1" "$2" <<'PY' 2>>"$work/caldav.log"
import sys, caldav
url, token = sys.argv[1], sys.argv[2] or None
cal = caldav.Calendar(client=caldav.DAVClient(url=url), url=url)
objs = cal.objects_by_sync_token(sync_token=token, load_objects=token is not None)
items = list(objs)
print(objs.sync_token)
print(len(items))
for o in items:
    print((o.data or "").replace("\r\n", " ").replace("\n", " "))
PY
}
