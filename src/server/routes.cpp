// File: routes.cpp
// handle_request: the route table {path pattern, methods, handler}, /healthz, /metrics and the hooks, and
// the plain answers every route shares (the feed and page handlers are in feed_routes.cpp).
#include "server/hooks.hpp"
#include "server/pages.hpp"
#include "server/route_ctx.hpp"
#include "util/ascii.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/dav.hpp>
#include <icsbridge/digest.hpp>
#include <icsbridge/server.hpp>

#include <boost/url/parse.hpp>

#include <array>

namespace icsbridge {

namespace server_detail {

ServerResponse text_response(unsigned status, std::string body, std::string_view type) {
    ServerResponse r;
    r.status = status;
    r.headers.emplace_back("Content-Type", std::string(type));
    r.text = std::move(body);
    return r;
}

ServerResponse error_response(Error const& e) {
    return text_response(http_status(e.code), e.message + "\n");
}

ServerResponse not_found() {
    return error_response(Error{errc::feed_unknown, "not found"});
}

std::string presented_token(Ctx const& c) {
    if (auto it = c.url.params().find("token"); it != c.url.params().end())
        return (*it).value;
    return {};
}

} // namespace server_detail

namespace {

using namespace server_detail;

ServerResponse method_not_allowed(std::string allow = "GET, HEAD") {
    auto r = text_response(405, "method not allowed\n");
    r.headers.emplace_back("Allow", std::move(allow));
    return r;
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

/** @brief The WebDAV-Push registrations while `[dav] push` is on; null otherwise. */
dav::PushRegistry const* shown_push(Ctx const& c) {
    return c.cfg.dav.enabled && c.cfg.dav.push ? c.push : nullptr;
}

ServerResponse handle_healthz(Ctx const& c, std::string_view) {
    auto access = admin_access(c);
    if (access == Admin::refused)
        return unauthorized();
    auto r = text_response(
        200,
        healthz_json(c.store, c.metrics, c.now, access == Admin::details, shown_push(c)),
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
        metrics_text(c.store, c.views.stats(), c.metrics, access == Admin::details, shown_push(c)),
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
    r.hook_event = std::move(v.event_id);
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
    ServedFeeds const& store,
    ViewCache& views,
    Metrics& metrics,
    Config const& cfg,
    sys_seconds now,
    RevokedTokens const* revoked,
    dav::History* dav,
    dav::PushRegistry* push
) {
    auto url = boost::urls::parse_origin_form(req.target);
    if (!url)
        return error_response(fail(errc::usage, "bad request target"));
    // The decoded path; copied only when there is something to decode (this is the hot path).
    std::string decoded;
    std::string_view path = url->encoded_path();
    if (path.find('%') != std::string_view::npos) {
        decoded = url->path();
        path = decoded;
    }
    Ctx ctx{req, store, views, metrics, cfg, now, *url, revoked, dav, push};
    if (dav && dav::owns(req.method, path)) {
        auto r = handle_dav(ctx, path);
        r.route = Route::dav;
        return r;
    }
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
    ServedFeeds const& store,
    ViewCache& views,
    Metrics& metrics,
    Config const& cfg,
    sys_seconds now,
    RevokedTokens const* revoked,
    dav::History* dav,
    dav::PushRegistry* push
) {
    auto r = route_request(req, store, views, metrics, cfg, now, revoked, dav, push);
    // HEAD gets the headers GET would, whatever the status, and never a body.
    r.head = req.method == "HEAD";
    return r;
}

} // namespace icsbridge
