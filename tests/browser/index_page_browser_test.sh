#!/usr/bin/env bash
# File: index_page_browser_test.sh
# Headless Chromium loads the index page of `icsbridge serve`: one webcal:// link per public feed,
# no token feed and no token anywhere in the rendered DOM. Exit 77 (CTest skip) without chromium.
#   index_page_browser_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/sh/run_fixtures.sh"
test_name=index_page
need_chromium
init_work

# The upstream is a dead port: the index page needs no feed data.
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" 127.0.0.1:0 'public_url = "https://cal.example.org"')

$(events_source_toml http://127.0.0.1:9 'token = "upstream-secret-token"')

[feeds.rust-talks]
source = "eb"
select = "search"
title = "Rust <talks> & more"
params = { q = "rust" }

[feeds.jazz]
source = "eb"
select = "search"
params = { q = "jazz" }

[feeds.private-feed]
source = "eb"
select = "organizer"
token = "feed-token-do-not-show"

[feeds.team-feed]
source = "eb"
select = "organizer"
tokens = { alice = "alice-token-do-not-show" }
TOML

start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"

timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$work/profile" \
    --dump-dom "$base/" >"$work/dom.html" 2>"$work/chromium.log" || { tail "$work/chromium.log" >&2; fail "chromium failed"; }

links=$(grep -o 'href="webcal://[^"]*"' "$work/dom.html" | sort)
expected=$(printf '%s\n' 'href="webcal://cal.example.org/feeds/jazz.ics"' 'href="webcal://cal.example.org/feeds/rust-talks.ics"')
[ "$links" = "$expected" ] || fail "webcal links: got [$links], want [$expected]"
grep -q 'href="https://cal.example.org/feeds/rust-talks.ics"' "$work/dom.html" || fail "no https link"
grep -q 'Rust &lt;talks&gt; &amp; more' "$work/dom.html" || fail "title not escaped/shown"
# Each public feed's CalDAV address ([dav] is on by default), and the server's for CalDAV apps; no subscriber's.
for a in https://cal.example.org/dav/feeds/jazz/ https://cal.example.org/dav/feeds/rust-talks/ 'server https://cal.example.org/dav/ '; do
    grep -qF "$a" "$work/dom.html" || fail "the page lacks the CalDAV address '$a'"
done
grep -q '/dav/users/' "$work/dom.html" && fail "the page shows a subscriber's CalDAV address"
for s in feed-token-do-not-show alice-token-do-not-show upstream-secret-token private-feed team-feed; do
    grep -q "$s" "$work/dom.html" && fail "the page shows '$s'"
done
echo "index_page: ok"
