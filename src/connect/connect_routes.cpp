// File: connect_routes.cpp
// ConnectRoutes: the start of a sign-in (a sealed, single-use, 10-minute state), its callback (the code
// traded with PKCE, the connection stored and pushed), the person's page and the Disconnect form (its key,
// a CSRF token and the Origin checked; the calendar deleted when asked, the grant revoked).
#include "connect/connect_routes.hpp"

#include "connect/connect_http.hpp"
#include "connect/connect_pages.hpp"
#include "connect/flow_state.hpp"
#include "oauth/pkce.hpp"
#include "oauth/provider.hpp"
#include "oauth/token_endpoint.hpp"
#include "views/view.hpp"
#include <icsbridge/digest.hpp>

#include <boost/asio/this_coro.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <boost/url/url.hpp>

namespace icsbridge::connect {

namespace net = boost::asio;
namespace urls = boost::urls;

bool feed_admits(FeedConfig const& feed, std::string_view token) {
    if (feed.is_public())
        return true;
    bool ok = false;
    // Every secret compared, none skipped at the first match: the time taken tells nothing.
    if (!feed.token.empty())
        ok = same_secret(feed.token, token) || ok;
    for (auto const& [who, secret] : feed.tokens)
        ok = same_secret(secret, token) || ok;
    return ok && !token.empty();
}

std::string view_of(urls::params_view params) {
    urls::url u;
    for (auto const& p : params)
        if (p.key != "token" && p.key != "tz" && p.key != "feed")
            u.params().append({p.key, p.value});
    return std::string(u.encoded_query());
}

std::string redirect_uri(Config const& cfg) {
    return cfg.server.public_url + std::string(callback_path);
}

ConnectRoutes::ConnectRoutes(Connections& connections, Logger log)
    : connections_(connections)
    , log_(std::move(log)) {}

bool ConnectRoutes::owns(std::string_view path) const {
    return path == "/connect/google" || path == "/connect/microsoft" || path == callback_path ||
           path.starts_with(manage_prefix);
}

std::size_t ConnectRoutes::body_limit(std::string_view path) const {
    return path.starts_with(manage_prefix) ? 4096 : 0; // the Disconnect form: a CSRF token and a tick box
}

net::awaitable<ServerResponse>
ConnectRoutes::handle(ServerRequest const& req, std::shared_ptr<Config const> cfg, sys_seconds now) {
    auto url = urls::parse_origin_form(req.target);
    if (!url || !cfg->connect)
        co_return nothing_here();
    Call const c{req, *cfg, *url, now};
    std::string const path = url->path();
    bool const manage_path = path.starts_with(manage_prefix);
    // The callback acts (it claims the state and connects): GET only, never a HEAD a prefetcher sends.
    bool const allowed = req.method == "GET" || (req.method == "HEAD" && path != callback_path) ||
                         (manage_path && req.method == "POST");
    if (!allowed) {
        auto r = page(405, message_page("Method not allowed", "This address does not take that method."));
        r.headers.emplace_back(
            "Allow",
            manage_path             ? "GET, HEAD, POST"
            : path == callback_path ? "GET"
                                    : "GET, HEAD"
        );
        co_return r;
    }
    if (path == "/connect/google" || path == "/connect/microsoft")
        co_return start(c, std::string_view(path).substr(9));
    if (path == callback_path) {
        auto finishing = finish(c);
        co_return co_await std::move(finishing);
    }
    std::string_view const id = std::string_view(path).substr(manage_prefix.size());
    if (req.method == "POST") {
        auto disconnecting = disconnect(c, id);
        co_return co_await std::move(disconnecting);
    }
    auto managing = manage(c, id);
    co_return co_await std::move(managing);
}

ServerResponse ConnectRoutes::start(Call const& c, std::string_view provider) {
    auto const name = param(c.url.params(), "feed");
    auto const token = param(c.url.params(), "token");
    auto const* feed = c.cfg.find_feed(name);
    if (!feed || !feed_admits(*feed, token))
        return nothing_here();
    auto target = provider_target(c.cfg, provider, *feed);
    if (!target)
        return nothing_here();
    if (!connections_.accepting())
        return page(
            503,
            message_page(
                "Not available just now",
                "The server cannot take new connections: ask its operator."
            )
        );
    auto const view = connect::view_of(c.url.params());
    auto const today = std::chrono::floor<std::chrono::days>(c.now);
    std::string const query = "?" + view;
    if (auto checked = views::parse_view_params(urls::url_view(query).params(), today); !checked)
        return page(400, message_page("Not a view of this feed", checked.error().message));
    if (auto wait = begun_.take(c.req.client, c.now))
        return too_many_sign_ins(*wait);
    auto const flow = new_flow(std::string(provider), name, view, token, c.now);
    auto const location = oauth::authorization_url(
        *target,
        redirect_uri(c.cfg),
        seal_state(connections_.key(), flow),
        oauth::challenge_of(flow.verifier)
    );
    return redirect(302, location);
}

} // namespace icsbridge::connect
