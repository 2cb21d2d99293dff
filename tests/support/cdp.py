#!/usr/bin/python3
"""A small Chrome DevTools Protocol driver: shell tests drive headless Chromium through real pages.

Needs Debian's python3-websocket (websocket-client 1.2.3) and chromium; run it with /usr/bin/python3.

    import sys; sys.path.insert(0, SRC + "/tests/support")
    from cdp import Browser, CdpError
    with Browser(log_path=WORK + "/chromium.log") as b:
        b.goto("http://127.0.0.1:8080/")          # waits for readyState "complete"
        assert b.status_of_last_navigation() == 200
        b.fill("#email", "a@example.org")
        b.click("button[type=submit]")            # waits for the navigation it starts, redirects and all
        b.wait_for_url("http://127.0.0.1:8080/done", timeout=10)
        assert b.text("#result") == "a@example.org"
        b.screenshot(WORK + "/phone.png", 390, 844, mobile=True)   # full page, 390 px wide
        b.color_scheme("dark")                    # prefers-color-scheme: dark from now on

Every wait has a timeout and raises CdpTimeout (a CdpError) naming what it waited for. The browser (its whole
process group) is killed when the `with` block ends, at interpreter exit, and by the kernel if Python dies.
"""
import atexit
import base64
import ctypes
import json
import math
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request

import websocket

__all__ = ["Browser", "CdpError", "CdpTimeout"]

# How long a page must stay put (no new navigation, same URL) before a click or goto counts as finished; a
# click that schedules its navigation later than this is not waited for (use wait_for_url).
SETTLE_SECONDS = 0.3
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


class CdpError(RuntimeError):
    """Chromium answered with an error, a script threw, or the browser went away."""


class CdpTimeout(CdpError):
    """A wait ran out of time; the message names what it waited for."""


def _die_with_parent():
    # Runs in the child before exec: SIGKILL it when the Python process dies, even by SIGKILL.
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _selector_js(selector, body):
    sel = json.dumps(selector)
    return (f"(() => {{ const el = document.querySelector({sel});"
            f" if (!el) throw new Error('no element matches ' + {sel}); {body} }})()")


class Browser:
    def __init__(self, chromium="chromium", user_data_dir=None, log_path=None, timeout=30.0):
        """Launches headless Chromium and attaches to its page. timeout is the default of every wait."""
        self.timeout = timeout
        self.dialogs = []  # messages of the alert/confirm/prompt dialogs the page opened (all accepted)
        self._proc = None
        self._ws = None
        self._own_dir = user_data_dir is None
        self._dir = user_data_dir or tempfile.mkdtemp(prefix="cdp-profile-")
        self._events = queue.Queue()
        self._id = 0
        self._nav_seq = 0        # main-frame navigations requested or started so far
        self._loading = False    # between Page.frameStartedLoading and frameStoppedLoading of the main frame
        self._url, self._frame_id = "about:blank", None
        self._loader_id = None   # the main frame's current document
        self._doc_status = {}    # loaderId -> HTTP status of that document's (final) response
        atexit.register(self.close)
        try:
            self._launch(chromium, log_path)
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- launching and closing ---------------------------------------------------------------------------

    def _launch(self, chromium, log_path):
        port_file = os.path.join(self._dir, "DevToolsActivePort")
        if os.path.exists(port_file):
            os.remove(port_file)
        log = open(log_path, "ab") if log_path else subprocess.DEVNULL
        args = [chromium, *FLAGS, f"--user-data-dir={self._dir}", "--remote-debugging-port=0", "about:blank"]
        self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                      start_new_session=True, preexec_fn=_die_with_parent)
        if log_path:
            log.close()  # the child has its own copy
        port = self._poll(lambda: self._read_port(port_file), 20, f"Chromium to write {port_file}")
        page = self._poll(lambda: self._page_target(port), 10, f"a page target at http://127.0.0.1:{port}/json")
        # No Origin header: some Chromium versions refuse (403) origins not in --remote-allow-origins.
        self._ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=self.timeout,
                                               suppress_origin=True, enable_multithread=True)
        self._ws.settimeout(None)  # the reader thread blocks; waits time out on the queue instead
        threading.Thread(target=self._read_loop, name="cdp-reader", daemon=True).start()
        for domain in ("Page", "Network", "Runtime"):
            self._call(f"{domain}.enable")
        frame = self._call("Page.getFrameTree")["frameTree"]["frame"]
        self._frame_id, self._url, self._loader_id = frame["id"], frame["url"], frame.get("loaderId")

    def _poll(self, probe, seconds, what):
        deadline = time.monotonic() + seconds
        while True:
            if self._proc.poll() is not None:
                raise CdpError(f"Chromium exited with status {self._proc.returncode} while waiting for {what}")
            value = probe()
            if value:
                return value
            if time.monotonic() > deadline:
                raise CdpTimeout(f"timed out after {seconds} s waiting for {what}")
            time.sleep(0.05)

    @staticmethod
    def _read_port(port_file):
        try:
            with open(port_file) as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return None
        # Chromium writes "PORT\n/devtools/browser/ID\n"; a half-written file has fewer lines.
        return int(lines[0]) if len(lines) >= 2 and lines[0].isdigit() else None

    @staticmethod
    def _page_target(port):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=2) as r:
                targets = json.load(r)
        except OSError:
            return None
        return next((t for t in targets if t.get("type") == "page" and "webSocketDebuggerUrl" in t), None)

    def close(self):
        """Kills the browser and all its processes and removes a profile it made; safe to call twice."""
        atexit.unregister(self.close)
        if self._ws is not None:
            try:
                self._ws.close()
            except Exception:
                pass
            self._ws = None
        if self._proc is not None:
            self._kill_group(signal.SIGTERM)
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._kill_group(signal.SIGKILL)
                self._proc.wait()
            self._kill_group(signal.SIGKILL)  # helpers (zygote, renderers) that outlived the main process
            deadline = time.monotonic() + 5
            while self._kill_group(0) and time.monotonic() < deadline:
                time.sleep(0.02)  # until init has reaped them: no process is left behind when close returns
            self._proc = None
        if self._own_dir and self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def _kill_group(self, sig):
        """Whether the process group still existed."""
        try:
            os.killpg(self._proc.pid, sig)
            return True
        except (ProcessLookupError, PermissionError):
            return False

    # --- protocol ----------------------------------------------------------------------------------------

    def _read_loop(self):
        # Blocking reads on their own thread: a recv() timeout in the middle of a large frame (a screenshot)
        # would lose the framing, so waits time out on the queue, never on the socket.
        ws = self._ws
        try:
            while True:
                self._events.put(json.loads(ws.recv()))
        except Exception as e:
            self._events.put(e)

    def _next(self, deadline, what):
        """The next message, its events applied; None when the deadline passed."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        try:
            msg = self._events.get(timeout=remaining)
        except queue.Empty:
            return None
        if isinstance(msg, Exception):
            self._events.put(msg)  # every later wait fails the same way
            raise CdpError(f"lost the connection to Chromium while waiting for {what} ({msg!r}); did it crash?")
        if "method" in msg:
            self._on_event(msg["method"], msg.get("params", {}))
        return msg

    def _call(self, method, params=None, timeout=None):
        if self._ws is None:
            raise CdpError(f"{method}: the browser is closed")
        self._id += 1
        call_id = self._id
        self._ws.send(json.dumps({"id": call_id, "method": method, "params": params or {}}))
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            msg = self._next(deadline, f"Chromium's answer to {method}")
            if msg is None:
                raise CdpTimeout(f"timed out after {timeout} s waiting for Chromium's answer to {method}")
            if msg.get("id") == call_id:
                if "error" in msg:
                    raise CdpError(f"{method} failed: {msg['error'].get('message')} {msg['error'].get('data', '')}")
                return msg.get("result", {})

    def _on_event(self, method, p):
        main = p.get("frameId", p.get("frame", {}).get("id")) == self._frame_id
        if method in ("Page.frameRequestedNavigation", "Page.frameStartedLoading") and main:
            self._nav_seq += 1
            self._loading = self._loading or method == "Page.frameStartedLoading"
        elif method == "Page.frameStoppedLoading" and main:
            self._loading = False
        elif method == "Page.frameNavigated" and "parentId" not in p["frame"]:
            f = p["frame"]
            self._frame_id, self._loader_id = f["id"], f.get("loaderId")
            self._url = f["url"] + f.get("urlFragment", "")
            self._nav_seq += 1
        elif method == "Page.navigatedWithinDocument" and main:
            self._url = p["url"]
            self._nav_seq += 1
        elif method == "Network.responseReceived" and p.get("type") == "Document" and main:
            self._doc_status[p.get("loaderId")] = p["response"]["status"]
        elif method == "Page.javascriptDialogOpening":
            # An open dialog blocks every script: accept it and keep the message for the test to check.
            self.dialogs.append(p.get("message", ""))
            self._id += 1
            self._ws.send(json.dumps({"id": self._id, "method": "Page.handleJavaScriptDialog",
                                      "params": {"accept": True}}))

    def _drain(self, seconds):
        deadline = time.monotonic() + seconds
        while self._next(deadline, "page events") is not None:
            pass

    def _wait(self, cond, timeout, what):
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > deadline:
                raise CdpTimeout(f"timed out after {timeout} s waiting for {what} (the page is at {self._url})")
            self._drain(0.05)

    # --- navigation --------------------------------------------------------------------------------------

    def _ready(self):
        """The document's readyState, or None while no document can answer (a navigation is committing)."""
        try:
            return self.evaluate("document.readyState", timeout=5)
        except CdpError:  # a timeout, or "Execution context was destroyed" and the like
            return None

    def _settled(self):
        if self._loading or self._ready() != "complete":
            return False
        seq, url = self._nav_seq, self._url
        self._drain(SETTLE_SECONDS)
        return seq == self._nav_seq and url == self._url and not self._loading

    def _settle(self, seq, timeout, what):
        """Waits for the navigation `what` started (if any: none began within SETTLE_SECONDS) to finish."""
        self._drain(SETTLE_SECONDS)
        if self._nav_seq != seq or self._loading:
            self._wait(self._settled, timeout, f"the navigation started by {what} to finish loading")

    def goto(self, url, timeout=None):
        """Loads url and waits until its document (after any redirects) is complete."""
        seq = self._nav_seq
        res = self._call("Page.navigate", {"url": url}, timeout)
        # An HTTP error status with an empty body is reported as ERR_HTTP_RESPONSE_CODE_FAILURE: the page
        # still loads (Chromium's error page), and status_of_last_navigation() tells the status.
        err = res.get("errorText")
        if err and err != "net::ERR_HTTP_RESPONSE_CODE_FAILURE":
            try:  # Chromium's error page commits next: url() and the status should tell of it, not the last page
                self._settle(seq, 5, f"the error page of {url}")
            except CdpError:
                pass
            raise CdpError(f"navigating to {url} failed: {err}")
        self._wait(lambda: self._nav_seq != seq, timeout, f"the navigation to {url} to start")
        self._wait(self._settled, timeout, f"{url} to finish loading")

    def url(self):
        """The main frame's URL (after redirects, with its #fragment)."""
        self._drain(0)
        return self._url

    def status_of_last_navigation(self):
        """The HTTP status of the current document's response (after redirects), or None (no HTTP response,
        e.g. about:blank, a connection error page or a same-document navigation's page before it)."""
        self._drain(0)
        return self._doc_status.get(self._loader_id)

    def wait_for_url(self, predicate_or_prefix, timeout=None):
        """Waits until the URL starts with a prefix (str) or satisfies predicate(url), and the page is loaded."""
        if isinstance(predicate_or_prefix, str):
            prefix = predicate_or_prefix
            pred, what = (lambda u: u.startswith(prefix)), f"a URL starting with {prefix}"
        else:
            pred = predicate_or_prefix
            what = f"a URL for which {getattr(pred, '__name__', 'the predicate')} holds"
        self._wait(lambda: pred(self._url) and self._settled(), timeout, what)
        return self._url

    # --- the page ----------------------------------------------------------------------------------------

    def evaluate(self, js, await_promise=False, timeout=None):
        """The JSON value of the expression js (None for undefined); raises CdpError if it throws."""
        res = self._call("Runtime.evaluate", {"expression": js, "returnByValue": True, "awaitPromise": await_promise,
                                              "userGesture": True}, timeout)
        if "exceptionDetails" in res:
            d = res["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text", "")
            raise CdpError(f"JavaScript threw in {js[:200]!r}: {text}")
        return res["result"].get("value")

    def wait_for(self, selector, timeout=None):
        """Waits until an element matches the CSS selector."""
        js = f"document.querySelector({json.dumps(selector)}) !== null"

        def present():
            try:
                return self.evaluate(js, timeout=5)
            except CdpError:
                return False
        self._wait(present, timeout, f"an element matching {selector!r}")

    def click(self, selector, timeout=None):
        """Clicks the first element matching selector (element.click()), then waits for a navigation it starts
        (redirects included) to finish. Raises if there is no such element or it is disabled."""
        self.wait_for(selector, timeout)
        seq = self._nav_seq
        self.evaluate(_selector_js(selector, "if (el.disabled) throw new Error('the element is disabled');"
                                             " el.scrollIntoView({block: 'center'}); el.click();"), timeout=timeout)
        self._settle(seq, timeout, f"clicking {selector!r}")

    def fill(self, selector, text, timeout=None):
        """Sets an input's or textarea's value the way typing would (input and change events)."""
        self.wait_for(selector, timeout)
        # The prototype's setter, not el.value =: frameworks that track the value see the change.
        body = (f"const v = {json.dumps(text)}; el.focus();"
                " const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype"
                " : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;"
                " Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, v);"
                " el.dispatchEvent(new Event('input', {bubbles: true}));"
                " el.dispatchEvent(new Event('change', {bubbles: true}));"
                " if (el.value !== v) throw new Error('the value did not stick: ' + JSON.stringify(el.value));")
        self.evaluate(_selector_js(selector, body), timeout=timeout)

    def text(self, selector, timeout=None):
        """The rendered text (innerText) of the first element matching selector."""
        self.wait_for(selector, timeout)
        return self.evaluate(_selector_js(selector, "return el.innerText;"), timeout=timeout)

    def viewport(self, width, height, mobile=False, scale=1):
        """Emulates a device: CSS width x height, deviceScaleFactor scale, mobile (meta viewport, touch)."""
        self._call("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})
        self._call("Emulation.setTouchEmulationEnabled", {"enabled": mobile})
        # Two animation frames: layout and media queries have caught up with the new size.
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))",
                      await_promise=True)

    def color_scheme(self, scheme):
        """Emulates prefers-color-scheme: "light" or "dark", for this page and the ones loaded after it."""
        self._call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def screenshot(self, path, width, height, mobile=False, scale=1):
        """Writes a PNG of the whole page (not only the viewport) laid out at width x height CSS px: the image
        is width*scale px wide and at least height*scale px tall. Restores the default viewport after."""
        self.viewport(width, height, mobile, scale)
        try:
            metrics = self._call("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            full = max(height, math.ceil(size["height"]))
            shot = self._call("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": full, "scale": 1}})
        finally:
            self._call("Emulation.clearDeviceMetricsOverride")
            self._call("Emulation.setTouchEmulationEnabled", {"enabled": False})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return path
