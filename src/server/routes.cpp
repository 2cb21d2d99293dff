// File: routes.cpp
// handle_request: the route table {path pattern, methods, handler}, the feed endpoint with its
// validators and negotiation, and the one mapping from a failure to a response.
#include "server/agenda_page.hpp"
#include "server/conditional.hpp"
#include "server/hooks.hpp"
#include "server/index_page.hpp"
#include "server/pages.hpp"
#include "util/ascii.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/digest.hpp>
#include <icsbridge/revoked_tokens.hpp>
#include <icsbridge/server.hpp>

#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include <array>

namespace icsbridge {

namespace {

/** @brief What every handler gets. */
struct Ctx {
    ServerRequest const& req;
    FeedStore const& store;
    ViewCache& views;
    Metrics& metrics;
    Config const& cfg;
    sys_seconds now;
    boost::urls::url_view url;
    RevokedTokens const* revoked; ///< may be null
};

ServerResponse
text_response(unsigned status, std::string body, std::string_view type = "text/plain; charset=utf-8") {
    ServerResponse r;
    r.status = status;
    r.headers.emplace_back("Content-Type", std::string(type));
    r.text = std::move(body);
    return r;
}

/**
 * @brief A generated page: no script, no external resource, the inline stylesheet only (and the QR code's
 * inline SVG); not to be framed, sniffed or named in a Referer (a token in the page's URL must not leak).
 */
ServerResponse html_response(std::string html, std::string cache_control) {
    auto r = text_response(200, std::move(html), "text/html; charset=utf-8");
    r.headers.emplace_back("Cache-Control", std::move(cache_control));
    r.headers.emplace_back(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    );
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("Referrer-Policy", "no-referrer");
    return r;
}

// The same answer for an unknown feed and a wrong or missing token, so a token feed's existence
// does not show.
ServerResponse not_found() {
    return text_response(404, "not found\n");
}

/**
 * @brief A feed request refused: 410 Gone for a token a reload revoked (calendar apps then stop polling),
 * else the one 404. Only a request presenting the revoked token itself can tell.
 */
ServerResponse refused(Ctx const& c, std::string_view name, std::string const& token) {
    if (!c.revoked || !c.revoked->revoked(name, token, c.now))
        return not_found();
    auto r = text_response(410, "this subscription was revoked: remove it from your calendar app\n");
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
}

ServerResponse method_not_allowed(std::string allow = "GET, HEAD") {
    auto r = text_response(405, "method not allowed\n");
    r.headers.emplace_back("Allow", std::move(allow));
    return r;
}

std::string presented_token(Ctx const& c) {
    if (auto it = c.url.params().find("token"); it != c.url.params().end())
        return (*it).value;
    return {};
}

ServerResponse not_fetched_yet() {
    auto r = text_response(503, "this feed has not been fetched yet; try again shortly\n");
    r.headers.emplace_back("Retry-After", "60");
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
}

/**
 * @brief Google drops a calendar over about 1 MB without a word: its fetcher gets the google view of such a
 * feed's plain URL. Sets the link a google view's description gives to the full feed.
 * @return whether the answer to this URL depends on the User-Agent (for Vary)
 */
bool google_view_for_agent(Ctx const& c, std::string_view name, std::size_t size, views::ViewParams& view) {
    bool const by_agent = view.empty() && size > views::google_view_limit;
    if (by_agent && views::google_wants_smaller(c.req.user_agent, size)) {
        view.google = true;
        view.from = std::chrono::floor<std::chrono::days>(c.now);
        view.uses_today = true;
    }
    if (view.google)
        if (FeedConfig const* fc = c.cfg.find_feed(name))
            view.full_url = feed_url(c.cfg, *fc);
    return by_agent;
}

ServerResponse handle_feed(Ctx const& c, std::string_view name) {
    std::string const token = presented_token(c);
    // One lookup: access, snapshot and the feed's settings from the same moment, whatever a reload does.
    FeedLookup feed = c.store.lookup(name, token);
    if (!feed.access.allowed)
        return refused(c, name, token);
    // Checked before the snapshot: a wrong parameter is wrong whether or not the feed was fetched yet.
    auto view = views::parse_view_params(c.url.params(), std::chrono::floor<std::chrono::days>(c.now));
    if (!view)
        return text_response(400, view.error().message + "\n");
    auto snap = std::move(feed.snapshot);
    if (!snap)
        return not_fetched_yet();
    bool const by_agent = google_view_for_agent(c, name, snap->body.size(), *view);
    if (!view->empty()) {
        // From here on a view is served exactly like the feed: it is a snapshot of its own.
        auto built = c.views.get(name, snap, *view, c.store.gzip_enabled());
        if (!built)
            return text_response(500, built.error().message + "\n");
        snap = std::move(*built);
    }
    feed.record_fetch(c.now);
    auto max_age = std::to_string(feed.settings->refresh.count());
    bool const is_public = feed.settings->is_public;

    ServerResponse r;
    r.headers.reserve(8); // all of them: growing the vector would cost more allocations than the strings
    r.snapshot = snap;
    // The representation is chosen first: gzip and identity bodies are different bytes, so each has its own
    // strong ETag (RFC 9110 8.8.3), and a validator is checked against the one this request would get.
    bool gzip_on = c.store.gzip_enabled() && !snap->gzip_body.empty();
    bool const gzip = gzip_on && accepts_gzip(c.req.accept_encoding);
    std::string etag = gzip ? gzip_etag(snap->etag) : snap->etag;
    bool const unchanged =
        not_modified(c.req.if_none_match, c.req.if_modified_since, etag, snap->last_modified, c.now);
    r.headers.emplace_back("ETag", std::move(etag));
    r.headers.emplace_back("Last-Modified", snap->last_modified_http);
    r.headers.emplace_back("Cache-Control", (is_public ? "public, max-age=" : "private, max-age=") + max_age);
    // The plain URL of a feed too big for Google answers Google's fetcher differently.
    if (gzip_on || by_agent)
        r.headers.emplace_back(
            "Vary",
            gzip_on && by_agent ? "Accept-Encoding, User-Agent" : (gzip_on ? "Accept-Encoding" : "User-Agent")
        );
    if (unchanged) {
        r.status = 304;
        r.snapshot.reset();
        return r;
    }
    // Whatever the client accepts: Google sends no Accept header at all.
    r.headers.emplace_back("Content-Type", "text/calendar; charset=utf-8");
    r.headers.emplace_back("Content-Disposition", "inline; filename=\"" + std::string(name) + ".ics\"");
    if (gzip) {
        r.gzip = true;
        r.headers.emplace_back("Content-Encoding", "gzip");
    }
    return r;
}

// The agenda page: the same token rule (and the same 404) as the feed it shows.
ServerResponse handle_agenda(Ctx const& c, std::string_view name) {
    std::string const token = presented_token(c);
    FeedConfig const* feed = c.cfg.find_feed(name);
    FeedLookup found = c.store.lookup(name, token);
    if (!feed || !found.access.allowed)
        return refused(c, name, token);
    auto snap = std::move(found.snapshot);
    if (!snap)
        return not_fetched_yet();
    auto index = c.views.index_of(name, *snap);
    if (!index)
        return text_response(500, index.error().message + "\n");
    AgendaPage page;
    page.title = feed->title.empty() ? feed->name : feed->title;
    // The subscribe links carry the token this request presented (the visitor has it); never another one.
    page.https_url = feed_url(c.cfg, *feed);
    if (!feed->is_public())
        page.https_url += "?token=" + boost::urls::encode(token, boost::urls::unreserved_chars);
    if (auto it = c.url.params().find("tz"); it != c.url.params().end())
        page.tz = (*it).value;
    page.changed = snap->last_modified;
    for (auto const& st : c.store.status())
        if (st.name == name)
            page.checked = st.last_success;
    auto html = agenda_page(**index, page, c.now);
    if (!html)
        return text_response(400, html.error().message + "\n");
    return html_response(std::move(*html), feed->is_public() ? "no-cache" : "private, no-store");
}

ServerResponse handle_index(Ctx const& c, std::string_view) {
    return html_response(index_page(c.cfg, c.store, c.now), "no-cache");
}

/** @brief What a request may see of /healthz and /metrics. */
enum class Admin { public_view, details, refused };

/**
 * @brief No Authorization header: the public view. `Bearer ADMIN_TOKEN`: the details. Anything else, or
 * a credential while no admin_token is configured: refused, so a misconfigured scraper fails loudly
 * instead of quietly seeing less. Only the header counts: a token in the URL would end up in proxy and
 * access logs, browser history and Referer headers, and Prometheus sends the header itself.
 */
Admin admin_access(Ctx const& c) {
    std::string_view auth = c.req.authorization;
    if (auth.empty())
        return Admin::public_view;
    constexpr std::string_view scheme = "Bearer ";
    if (c.cfg.server.admin_token.empty() || auth.size() <= scheme.size() ||
        !ascii_iequals(auth.substr(0, scheme.size()), scheme))
        return Admin::refused;
    auto presented = auth.substr(scheme.size());
    while (!presented.empty() && presented.front() == ' ')
        presented.remove_prefix(1);
    return same_secret(c.cfg.server.admin_token, presented) ? Admin::details : Admin::refused;
}

ServerResponse unauthorized() {
    auto r = text_response(401, "wrong credential: send Authorization: Bearer <[server] admin_token>\n");
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"icsbridge\"");
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
}

ServerResponse handle_healthz(Ctx const& c, std::string_view) {
    auto access = admin_access(c);
    if (access == Admin::refused)
        return unauthorized();
    auto r = text_response(
        200,
        healthz_json(c.store, c.metrics, c.now, access == Admin::details),
        "application/json"
    );
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
}

ServerResponse handle_metrics(Ctx const& c, std::string_view) {
    auto access = admin_access(c);
    if (access == Admin::refused)
        return unauthorized();
    auto r = text_response(
        200,
        metrics_text(c.store, c.views.stats(), c.metrics, access == Admin::details),
        "text/plain; version=0.0.4; charset=utf-8"
    );
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
}

// A hook is answered at once; the refresh it asks for runs in the background (the listener wakes it).
ServerResponse handle_hook(Ctx const& c, std::string_view rest) {
    std::string_view source;
    std::string_view secret;
    HookVerdict v;
    if (split_hook_path(rest, source, secret))
        v = judge_hook(c.cfg, source, secret, c.req.body, c.req.body_too_large);
    c.metrics.http.count_hook(v.outcome);
    if (v.outcome == HookOutcome::refused)
        return not_found();
    auto r = text_response(v.status, v.message + "\n");
    r.headers.emplace_back("Cache-Control", "no-store");
    r.hook_source = std::move(v.source);
    r.hook_action = std::move(v.action);
    return r;
}

bool match_hook(std::string_view path, std::string_view& arg) {
    constexpr std::string_view prefix = "/hooks/";
    if (path.size() <= prefix.size() || path.substr(0, prefix.size()) != prefix)
        return false;
    arg = path.substr(prefix.size());
    return true;
}

/** @brief Matches /feeds/NAME + suffix, where NAME is a config feed name ([A-Za-z0-9._-]+). */
template <std::size_t N>
bool match_feed_file(std::string_view path, std::string_view& arg, char const (&want)[N]) {
    constexpr std::string_view prefix = "/feeds/";
    std::string_view const suffix(want, N - 1);
    if (path.size() <= prefix.size() + suffix.size() || path.substr(0, prefix.size()) != prefix ||
        path.substr(path.size() - suffix.size()) != suffix)
        return false;
    arg = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
    return arg.find('/') == std::string_view::npos;
}

template <std::size_t N>
bool match_exact(std::string_view path, std::string_view& arg, char const (&want)[N]) {
    arg = {};
    return path == std::string_view(want, N - 1);
}

struct RouteEntry {
    Route route;
    bool (*match)(std::string_view path, std::string_view& arg);
    std::array<std::string_view, 2> methods;
    ServerResponse (*handler)(Ctx const&, std::string_view arg);
};

std::array<RouteEntry, 6> const routes = {{
    {Route::feed,
     [](std::string_view p, std::string_view& a) { return match_feed_file(p, a, ".ics"); },
     {"GET", "HEAD"},
     &handle_feed},
    {Route::feed,
     [](std::string_view p, std::string_view& a) { return match_feed_file(p, a, ".html"); },
     {"GET", "HEAD"},
     &handle_agenda},
    {Route::index,
     [](std::string_view p, std::string_view& a) { return match_exact(p, a, "/"); },
     {"GET", "HEAD"},
     &handle_index},
    {Route::healthz,
     [](std::string_view p, std::string_view& a) { return match_exact(p, a, "/healthz"); },
     {"GET", "HEAD"},
     &handle_healthz},
    {Route::metrics,
     [](std::string_view p, std::string_view& a) { return match_exact(p, a, "/metrics"); },
     {"GET", "HEAD"},
     &handle_metrics},
    {Route::hooks, &match_hook, {"POST", ""}, &handle_hook},
}};

} // namespace

std::string_view ServerResponse::header(std::string_view name) const {
    for (auto const& [n, v] : headers)
        if (n == name)
            return v;
    return {};
}

namespace {

ServerResponse route_request(
    ServerRequest const& req,
    FeedStore const& store,
    ViewCache& views,
    Metrics& metrics,
    Config const& cfg,
    sys_seconds now,
    RevokedTokens const* revoked
) {
    auto url = boost::urls::parse_origin_form(req.target);
    if (!url)
        return text_response(400, "bad request target\n");
    // The decoded path; copied only when there is something to decode (this is the hot path).
    std::string decoded;
    std::string_view path = url->encoded_path();
    if (path.find('%') != std::string_view::npos) {
        decoded = url->path();
        path = decoded;
    }
    Ctx ctx{req, store, views, metrics, cfg, now, *url, revoked};
    for (auto const& route : routes) {
        std::string_view arg;
        if (!route.match(path, arg))
            continue;
        bool allowed = false;
        for (auto m : route.methods)
            allowed = allowed || (!m.empty() && m == req.method);
        if (!allowed) {
            std::string allow;
            for (auto m : route.methods)
                if (!m.empty())
                    allow += (allow.empty() ? "" : ", ") + std::string(m);
            auto r = method_not_allowed(std::move(allow));
            r.route = route.route;
            return r;
        }
        auto r = route.handler(ctx, arg);
        r.route = route.route;
        return r;
    }
    // Nothing here accepts a write: say so on every path (a 404 would suggest one exists elsewhere).
    if (req.method != "GET" && req.method != "HEAD")
        return method_not_allowed();
    return not_found();
}

} // namespace

ServerResponse handle_request(
    ServerRequest const& req,
    FeedStore const& store,
    ViewCache& views,
    Metrics& metrics,
    Config const& cfg,
    sys_seconds now,
    RevokedTokens const* revoked
) {
    auto r = route_request(req, store, views, metrics, cfg, now, revoked);
    // HEAD gets the headers GET would, whatever the status, and never a body.
    r.head = req.method == "HEAD";
    return r;
}

} // namespace icsbridge
