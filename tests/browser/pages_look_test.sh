#!/usr/bin/env bash
# File: pages_look_test.sh
# Every page a person sees (issue 40, item 8), in headless Chromium at 390 px (a phone, mobile emulation) and
# 1280 px, light and dark (prefers-color-scheme emulated): the index, a feed's agenda without [connect] and
# with its buttons (Google and Microsoft), a person's connection page (after Allow at the fake Google) and
# "Nothing was connected" (after Cancel). Each is screenshotted to BUILD_DIR/screens/look_PAGE_WIDTH_SCHEME.png
# and measured through the DevTools protocol (Runtime.evaluate runs outside the pages' CSP, which blocks any
# script of their own): no horizontal scroll, no text under 12 px, and every button's label visible (inside
# the page's width, not clipped or covered, contrast at least 4.5:1 against what is behind it).
# Exit 77 (CTest skip) without chromium or python3-websocket, unless ICSBRIDGE_REQUIRE_ALL=1 (deploy/test.sh).
#   pages_look_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

bin=$1
fake=$2
src=$3
out=$4/screens
python=/usr/bin/python3
. "$src/tests/support/sh/run_fixtures.sh"
. "$src/tests/push/fakeapi/fake_api.sh"
test_name=pages_look
fail_logs="serve.log serve-connect.log chromium.log look.out"
fail_skip='dbus\|zygote'
need_chromium
need_python_module websocket python3-websocket
init_work
mkdir -p "$out"

cp -r "$src/tests/fixtures/upstream" "$work/data"
start_fake_upstream "$fake" "$work" "$work/data"
# Without [connect]: the index and a plain agenda.
cat >"$work/serve.toml" <<TOML
$(server_toml "$work/state" 127.0.0.1:0 'public_url = "https://calendar.example.org"')
$(fake_sources_toml "$upstream")
$(organizer_feed_toml my-events 'title = "Meetups, talks and socials of the Rust & design groups"')
$(feed_toml design-jobs jobs recent 'title = "Design jobs"' 'jobs_as = "both"')
TOML
start_icsbridge "$bin" "$work/serve.toml" "$work/serve.log"
wait_for_feeds my-events.ics design-jobs.ics
plain=$base
extra_pids+=("$serve_pid")
serve_pid=

# With [connect] (Google through the suite's fake; Microsoft's button only, never clicked).
start_connect_fake google
cat >"$work/serve-connect.toml" <<TOML
$(server_toml "$work/state-connect" "127.0.0.1:$port" "public_url = \"$public\"")
$(events_source_toml "$upstream")

$(organizer_feed_toml club 'title = "Club nights"' 'tokens = { ana = "club-token-ana-0123456789" }')

[connect]
key_file = "$work/connect.key"
google = { client_id = "test-client", client_secret_env = "TEST_CLIENT_SECRET", api_base = "$api_base", auth_url = "$auth_url", token_url = "$token_url", revoke_url = "$fake_api_url/oauth/revoke" }
microsoft = { client_id = "test-ms-client", client_secret_env = "TEST_CLIENT_SECRET", api_base = "$api_base", auth_url = "$auth_url", token_url = "$token_url" }
TOML
start_icsbridge "$bin" "$work/serve-connect.toml" "$work/serve-connect.log"
wait_for_feeds "club.ics?token=club-token-ana-0123456789"

$python - "$src" "$plain" "$public" "$fake_api_url" "$out" "$work" >"$work/look.out" 2>&1 <<'PY' || fail "a page does not read well at every width (above)"
import sys
src, plain, public, fake, out, work = sys.argv[1:7]
sys.path.insert(0, src + "/tests/support")
from cdp import Browser

# What a person would notice, measured in the page: its width against the viewport's, every visible text
# node's font size, and each button (a link styled as one, a form button) where a thumb finds it.
MEASURE = r"""(() => {
  const vw = document.documentElement.clientWidth;
  const rgb = c => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => v / 255).map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
                                .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const behind = el => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const found = {width: document.documentElement.scrollWidth, vw, small: [], buttons: [], problems: []};
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode());) {
    const range = document.createRange();
    range.selectNodeContents(n);
    if (!n.textContent.trim() || !range.getClientRects().length) continue;
    const size = parseFloat(getComputedStyle(n.parentElement).fontSize);
    if (size < 12) found.small.push(`${size}px: ${n.textContent.trim().slice(0, 40)}`);
  }
  for (const b of document.querySelectorAll('a.button, .links a, button, input[type=submit]')) {
    const label = (b.innerText || b.value || '').trim();
    b.scrollIntoView({block: 'center', inline: 'nearest'});
    const r = b.getBoundingClientRect(), cs = getComputedStyle(b);
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const [l1, l2] = [lum(rgb(cs.color)), lum(behind(b))].sort((a, c) => c - a);
    const contrast = (l1 + 0.05) / (l2 + 0.05);
    const why = [];
    if (!label) why.push('no label');
    if (r.left < -0.5 || r.right > vw + 0.5) why.push(`outside the page (${Math.round(r.left)}..${Math.round(r.right)} of ${vw})`);
    if (b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1) why.push('label clipped');
    if (!hit || !(hit === b || b.contains(hit))) why.push('covered by ' + (hit ? hit.tagName : 'nothing'));
    if (contrast < 4.5) why.push(`contrast ${contrast.toFixed(2)}:1 (${cs.color} on rgb(${behind(b)}))`);
    found.buttons.push(label);
    if (why.length) found.problems.push(`button "${label}": ${why.join(', ')}`);
  }
  window.scrollTo(0, 0);
  return found;
})()"""

def pages(b):
    """[(name, open)]: open(b) brings the page up. The connection page is made once (Allow); "Nothing was
    connected" answers only once per sign-in, so each look at it is a sign-in of its own, cancelled."""
    agenda = public + "/feeds/club.html?token=club-token-ana-0123456789"

    def sign_in(b):
        b.goto(agenda)
        b.click("#connect-google")
        b.wait_for_url(fake + "/oauth/authorize")

    def cancelled(b):
        sign_in(b)
        b.click("#cancel")
        b.wait_for_url(public + "/connect/callback")
        assert "Nothing was connected" in b.text("h1"), b.text("h1")

    sign_in(b)
    b.fill("#account", "ana@example.org")
    b.click("#allow")
    connection = b.wait_for_url(public + "/connections/", timeout=30)
    at = lambda url: (lambda b: b.goto(url))
    return [("index", at(plain + "/")), ("agenda", at(plain + "/feeds/my-events.html")),
            ("agenda_connect", at(agenda)), ("connection", at(connection)), ("nothing_connected", cancelled)]

# The fewest buttons each page has (so a selector that finds none cannot pass): the index's three per feed, the
# agenda's four ways (Google, Apple, the .ics and webcal:// links), the two connect buttons, Disconnect.
BUTTONS = {"index": 6, "agenda": 4, "agenda_connect": 6, "connection": 1, "nothing_connected": 0}
failures, shots = [], 0
with Browser(log_path=work + "/chromium.log") as b:
    for name, open_page in pages(b):
        for width, height, mobile in ((390, 844, True), (1280, 800, False)):
            for scheme in ("light", "dark"):
                where = f"{name} at {width} px, {scheme}"
                b.color_scheme(scheme)
                b.viewport(width, height, mobile)
                open_page(b)
                if b.status_of_last_navigation() != 200:
                    failures.append(f"{where}: status {b.status_of_last_navigation()}")
                    continue
                m = b.evaluate(MEASURE)
                if m["width"] > m["vw"]:
                    failures.append(f"{where}: scrolls sideways ({m['width']} px wide in {m['vw']})")
                failures += [f"{where}: text under 12 px, {s}" for s in m["small"]]
                failures += [f"{where}: {p}" for p in m["problems"]]
                if len(m["buttons"]) < BUTTONS[name]:
                    failures.append(f"{where}: {len(m['buttons'])} buttons found, {BUTTONS[name]} expected")
                b.screenshot(f"{out}/look_{name}_{width}_{scheme}.png", width, height, mobile)
                shots += 1
                print(f"{where}: {len(m['buttons'])} buttons ({', '.join(m['buttons'])})")
print("\n".join(failures) if failures else f"{shots} screenshots, every page reads at every width")
sys.exit(1 if failures or shots != 20 else 0)
PY
cat "$work/look.out"
grep -q '^agenda_connect at 390 px, dark: .*Keep my Google Calendar in sync, .*Keep my Outlook calendar in sync' "$work/look.out" ||
    fail "the agenda's connect buttons were not measured"
for s in club-token-ana "$TEST_CLIENT_SECRET"; do
    grep -qF -- "$s" "$work/serve-connect.log" && fail "the log holds a secret"
done
echo "pages_look: ok ($out/look_*.png)"
