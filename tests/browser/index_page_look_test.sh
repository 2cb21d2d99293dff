#!/usr/bin/env bash
# File: index_page_look_test.sh
# The index page of `icsbridge serve` (fed by the fake upstream) in headless Chromium at phone and desktop
# widths: screenshots written to BUILD_DIR/screens (look at them when the page changes), one QR code per public feed
# that zbarimg decodes, in both screenshots, to exactly the public feeds' subscribe URLs, each feed's exact
# item count and when its data changed and was checked, health shown, no script, no external resource.
# Exit 77 (CTest skip) without chromium or zbarimg (deploy/install-deps.sh installs both).
#   index_page_look_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
fake=$2
src=$3
out=$4/screens
. "$src/tests/support/sh/run_fixtures.sh"
test_name=index_page_look
need_chromium
command -v zbarimg >/dev/null || skip_or_fail "zbarimg (zbar-tools) not installed"

init_work

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" 127.0.0.1:0 'public_url = "https://calendar.example.org"')
$(fake_sources_toml "$upstream")
[feeds.my-events]
source = "eb"
select = "organizer"
title = "Meetups <&> talks"
description = "Everything we organise: talks, workshops & socials."
[feeds.design-jobs]
source = "jobs"
select = "recent"
title = "Design jobs"
[feeds.hidden]
source = "eb"
select = "organizer"
token = "look-test-token-do-not-show"
TOML
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds my-events.ics design-jobs.ics

shot() { # shot NAME WIDTH HEIGHT
    timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars --user-data-dir="$work/profile" \
        --window-size="$2,$3" --screenshot="$out/$1.png" "$base/" >/dev/null 2>"$work/chromium.log" ||
        { tail "$work/chromium.log" >&2; fail "chromium failed"; }
    [ "$(stat -c %s "$out/$1.png")" -gt 10000 ] || fail "$1.png is (nearly) empty"
}
mkdir -p "$out"
shot index_phone 390 1400
shot index_desktop 1280 1000

timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile" \
    --dump-dom "$base/" >"$work/dom.html" 2>/dev/null || fail "chromium --dump-dom failed"
[ "$(grep -o '<svg class="qr"' "$work/dom.html" | wc -l)" = 2 ] || fail "not one QR code per public feed"
grep -q 'aria-label="QR code of https://calendar.example.org/feeds/my-events.ics"' "$work/dom.html" || fail "QR label"
grep -q 'Meetups &lt;&amp;&gt; talks' "$work/dom.html" || fail "title not escaped"
grep -q 'talks, workshops &amp; socials' "$work/dom.html" || fail "description not shown"
grep -Eq '[0-9]+ items' "$work/dom.html" || fail "no item count"
[ "$(grep -o 'class="ok">healthy' "$work/dom.html" | wc -l)" = 2 ] || fail "feeds not shown healthy"
# Each card's count is its feed's VEVENTs + VTODOs (cards in config order); it says when it changed and was checked.
want=
for f in my-events design-jobs; do
    curl -s -o "$work/$f.ics" "$base/feeds/$f.ics"
    want="$want$(grep -c '^BEGIN:V\(EVENT\|TODO\)' "$work/$f.ics") items;"
done
got=$(grep -Eo '[0-9]+ items' "$work/dom.html" | tr '\n' ';')
[ "$got" = "$want" ] || fail "item counts on the page: [$got], want [$want]"
[ "$(grep -Eo 'changed ([0-9]+ (s|min|h|days) ago|just now), checked ([0-9]+ (s|min|h|days) ago|just now)' "$work/dom.html" | wc -l)" = 2 ] ||
    fail "not every feed says when its data changed and when it was checked"
# The QR codes are real: decoded from the screenshots, exactly the public feeds' subscribe URLs.
for shot in index_phone index_desktop; do
    zbarimg -q --raw "$out/$shot.png" 2>/dev/null | sort >"$work/qr.txt"
    printf '%s\n' https://calendar.example.org/feeds/design-jobs.ics https://calendar.example.org/feeds/my-events.ics |
        cmp -s - "$work/qr.txt" || fail "QR codes in $shot.png decode to [$(tr '\n' ' ' <"$work/qr.txt")]"
done
grep -qi '<script\|src="http\|@import\|fonts.googleapis' "$work/dom.html" && fail "script or external resource"
for s in look-test-token-do-not-show hidden demo-events-token demo-jobs-key; do
    grep -q "$s" "$work/dom.html" && fail "the page shows '$s'"
done

echo "index_page_look: ok ($out/index_phone.png, $out/index_desktop.png)"
