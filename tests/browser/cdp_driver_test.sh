#!/usr/bin/env bash
# File: cdp_driver_test.sh
# The DevTools driver tests/support/cdp.py against two local origins: page A's form posts to B, which
# 302-redirects back to A's /done; the filled value must make the round trip only through the click. Also a
# 404's status, a refused connection's error, and full-page screenshots at phone and desktop widths written to
# BUILD_DIR/screens. Exit 77 (CTest skip) without chromium or python3-websocket.
#   cdp_driver_test.sh ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR BUILD_DIR
set -u

src=$3
out=$4/screens
. "$src/tests/support/sh/run_fixtures.sh"
test_name=cdp_driver
fail_logs=chromium.log
fail_skip='dbus\|zygote'
need_chromium
need_python_module websocket python3-websocket
init_work
mkdir -p "$out"

timeout 150 /usr/bin/python3 - "$src/tests/support" "$work" "$out" "$chromium" <<'PY' || fail "the flow failed (above)"
import html, http.server, socket, struct, sys, threading, urllib.parse
sys.path.insert(0, sys.argv[1])
from cdp import Browser, CdpError, CdpTimeout
work, out, chromium = sys.argv[2:5]
posts = []  # the values B received: only a real form submission (the click) adds one

class Quiet(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def send(self, status, body, headers=()):
        data = body.encode()
        self.send_response(status)
        for k, v in [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(data))), *headers]:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

def serve(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"

head = '<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width">'

class PageA(Quiet):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/":
            form = (f'<form method="post" action="{b_base}/submit"><input id="value" name="value">'
                    '<button id="send" type="submit">Send</button></form>')
            self.send(200, f"{head}<title>A</title><h1>Page A</h1>{form}")
        elif url.path == "/done":
            value = urllib.parse.parse_qs(url.query).get("value", [""])[0]
            tall = '<div style="height:1600px;background:linear-gradient(#fff,#36c)"></div>'
            self.send(200, f'{head}<title>Done</title><p id="result">{html.escape(value)}</p>{tall}')
        else:
            self.send(404, f"{head}<title>Not found</title><p>no such page</p>")

class PageB(Quiet):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        value = urllib.parse.parse_qs(body).get("value", [""])[0]
        posts.append(value)
        self.send(302, "", [("Location", f"{a_base}/done?value={urllib.parse.quote(value)}")])

(server_a, a_base), (server_b, b_base) = serve(PageA), serve(PageB)

def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")

def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])

value = "héllo & <wörld> 100%"
with Browser(chromium, f"{work}/profile", f"{work}/chromium.log", timeout=20) as b:
    b.goto(a_base + "/")
    check(b.status_of_last_navigation() == 200, f"status of A: {b.status_of_last_navigation()}")
    b.fill("#value", value)
    check(b.evaluate("document.querySelector('#value').value") == value, "the value was not filled in")
    check(b.url() == a_base + "/" and posts == [], f"filling alone navigated: {b.url()}, posts {posts}")
    b.click("#send")
    # click() waited for the post, the redirect and /done to load: nothing is left to wait for.
    check(b.url().startswith(a_base + "/done?"), f"after the click the page is at {b.url()}")
    check(b.wait_for_url(a_base + "/done?", timeout=5).startswith(a_base + "/done?"), "wait_for_url")
    check(posts == [value], f"B received {posts}, want [{value!r}]")
    check(b.text("#result") == value, f"round trip: got {b.text('#result')!r}, want {value!r}")
    check(b.status_of_last_navigation() == 200, f"status after the redirect: {b.status_of_last_navigation()}")

    for name, width, height, mobile in (("cdp_phone", 390, 844, True), ("cdp_desktop", 1280, 800, False)):
        path = f"{out}/{name}.png"
        b.screenshot(path, width, height, mobile=mobile)
        w, h = png_size(path)
        check(w == width and h >= 1600, f"{name}.png is {w}x{h}, want {width} wide and the full page (>= 1600) tall")

    b.goto(a_base + "/no-such-page")
    check(b.status_of_last_navigation() == 404, f"status of a missing page: {b.status_of_last_navigation()}")
    check(b.text("p") == "no such page", "the 404 page's body")

    # A missing element and a refused connection are errors that say what went wrong, not hangs.
    b.goto(a_base + "/")
    try:
        b.click("#no-such-button", timeout=1)
        check(False, "clicking a missing element did not raise")
    except CdpTimeout as e:
        check("#no-such-button" in str(e), f"the timeout does not name the selector: {e}")
    # A port nobody listens on (not B's: Chromium may hold a preconnected socket to an origin it has used).
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    closed_port = probe.getsockname()[1]
    probe.close()
    try:
        b.goto(f"http://127.0.0.1:{closed_port}/", timeout=10)
        check(False, "navigating to a closed port did not raise")
    except CdpError as e:
        check("ERR_CONNECTION_REFUSED" in str(e), f"navigating to a closed port: {e}")
    check(b.status_of_last_navigation() is None, "a failed navigation has an HTTP status")
print("flow ok")
PY
[ -z "$(pgrep -f -- "--user-data-dir=$work" || true)" ] || fail "Chromium processes outlived the driver"
echo "cdp_driver: ok"
