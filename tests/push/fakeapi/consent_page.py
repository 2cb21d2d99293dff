"""The pages a browser sees at the fake authorization server: the consent page and the 400 error page.

The consent page is what Google's and Microsoft's look like in substance: who asks (icsbridge), what for (one
line per scope, in the provider's words), the account (an e-mail field, prefilled from login_hint), Cancel and
Allow. It is a form POSTing to /oauth/authorize with the authorization request's parameters in hidden fields,
action=allow|cancel and account. Stable ids for a headless browser: #account, #allow, #cancel. It fits a phone.
"""
import html

from .common import Answer

APP = "icsbridge"
GOOGLE = "https://www.googleapis.com/auth/"
WORDS = {
    "google": {GOOGLE + "calendar.app.created": "See, edit, create and delete calendars it created",
               GOOGLE + "calendar.events": "View and edit events on all your calendars",
               GOOGLE + "calendar": "See, edit, share and permanently delete all the calendars you can access "
                                    "using Google Calendar",
               GOOGLE + "calendar.readonly": "See and download any calendar you can access using your Google "
                                             "Calendar"},
    "microsoft": {"Calendars.ReadWrite": "Read and write your calendars",
                  "Calendars.Read": "Read your calendars",
                  "offline_access": "Maintain access to data you have given it access to",
                  "User.Read": "Sign you in and read your profile"},
}
LOOK = {"google": ("Sign in with Google", "#1a73e8", "Google Account"),
        "microsoft": ("Microsoft", "#0067b8", "Microsoft account")}
STYLE = """
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #202124;
       background: #f1f3f4; }
main { box-sizing: border-box; max-width: 28rem; margin: 0 auto; padding: 1.5rem 1.25rem; background: #fff;
       min-height: 100vh; }
@media (min-width: 30rem) { main { margin-top: 2rem; min-height: 0; border-radius: 8px;
                                   border: 1px solid #dadce0; } }
.brand { font-size: 0.95rem; color: #5f6368; margin: 0 0 1rem; }
h1 { font-size: 1.4rem; font-weight: 500; margin: 0 0 1rem; }
ul { padding-left: 1.25rem; margin: 0.5rem 0 1.25rem; }
li { margin: 0.35rem 0; }
label { display: block; font-size: 0.95rem; margin-bottom: 0.25rem; }
input[type=email] { box-sizing: border-box; width: 100%; font-size: 1rem; padding: 0.7rem 0.75rem;
                    border: 1px solid #dadce0; border-radius: 4px; }
.problem { color: #c5221f; }
.note { font-size: 0.85rem; color: #5f6368; margin: 1rem 0; overflow-wrap: anywhere; }
.buttons { display: flex; gap: 0.75rem; justify-content: flex-end; margin-top: 1.5rem; }
button { min-height: 44px; min-width: 6rem; font-size: 1rem; border-radius: 4px; padding: 0 1.25rem;
         cursor: pointer; }
#cancel { background: #fff; color: ACCENT; border: 1px solid #dadce0; }
#allow { background: ACCENT; color: #fff; border: 1px solid ACCENT; }
"""


def document(title, accent, body):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>%s</title><style>%s</style></head><body><main>%s</main></body></html>\n" %
            (html.escape(title), STYLE.replace("ACCENT", accent), body)).encode()


def page(provider, params, account, problem=None):
    """200: the consent page for this authorization request (params), the e-mail field holding account."""
    brand, accent, kind = LOOK[provider]
    e = html.escape
    scopes = (params.get("scope") or "").split()
    asks = [WORDS[provider].get(s.rsplit("/", 1)[-1] if s.startswith("https://graph.microsoft.com/") else s)
            for s in scopes]
    items = "".join("<li>%s</li>" % e(a) for a in asks if a) or "<li>Access your calendars</li>"
    hidden = "".join('<input type="hidden" name="%s" value="%s">' % (e(k), e(v)) for k, v in params.items()
                     if k not in ("action", "account"))
    body = ('<p class="brand">%s</p><h1>%s wants to access your %s</h1>'
            '<form method="post" action="/oauth/authorize">%s'
            '<label for="account">Account (e-mail)</label>'
            '<input type="email" id="account" name="account" value="%s" autocomplete="email" required>%s'
            '<p>%s wants to:</p><ul>%s</ul>'
            '<p class="note">You will be sent back to %s</p>'
            '<div class="buttons"><button type="submit" id="cancel" name="action" value="cancel" formnovalidate>'
            'Cancel</button><button type="submit" id="allow" name="action" value="allow">Allow</button></div>'
            '</form>') % (e(brand), APP, kind, hidden, e(account or ""),
                          '<p class="problem">%s</p>' % e(problem) if problem else "", APP, items,
                          e(params.get("redirect_uri", "").split("?")[0]))
    return Answer(200, document("%s: %s" % (brand, APP), accent, body),
                  {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
                   "X-Frame-Options": "DENY"})


def refusal(browser, error, description):
    """The 400 for a request that must not be redirected (unknown client, unregistered redirect_uri): an HTML
    page for a browser, plain text otherwise."""
    if not browser:
        return Answer(400, ("%s: %s\n" % (error, description)).encode(), {"Content-Type": "text/plain; charset=utf-8"})
    body = "<h1>Error 400: %s</h1><p>%s</p>" % (html.escape(error), html.escape(description))
    return Answer(400, document("Error 400: " + error, "#1a73e8", body), {"Content-Type": "text/html; charset=utf-8"})
