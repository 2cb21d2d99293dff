// File: connect_http.cpp
// The connect routes' shared answers and lookups.
#include "connect/connect_http.hpp"

#include "connect/connect_pages.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace icsbridge::connect {

namespace urls = boost::urls;

ServerResponse page(unsigned status, std::string html) {
    ServerResponse r;
    r.status = status;
    r.headers.emplace_back("Content-Type", "text/html; charset=utf-8");
    r.headers.emplace_back("Cache-Control", "no-store");
    r.headers.emplace_back(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    );
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    // same-origin, not no-referrer: with no-referrer a browser sends the Disconnect form's Origin as "null",
    // and the Origin check could not tell our page from a sandboxed frame; other sites still get nothing.
    r.headers.emplace_back("Referrer-Policy", "same-origin");
    r.text = std::move(html);
    return r;
}

ServerResponse redirect(unsigned status, std::string location) {
    auto r = page(status, {});
    r.headers.emplace_back("Location", std::move(location));
    return r;
}

ServerResponse nothing_here() {
    return page(404, message_page("Not found", "There is nothing at this address."));
}

ServerResponse too_many_sign_ins(std::chrono::seconds wait) {
    auto r = page(
        429,
        message_page(
            "Too many sign-ins",
            "Too many sign-ins were started from here (or from everywhere) in the last minutes: try again "
            "in " +
                std::to_string((wait.count() + 59) / 60) + " minute(s)."
        )
    );
    r.headers.emplace_back("Retry-After", std::to_string(wait.count()));
    return r;
}

std::string param(urls::params_view params, std::string_view name) {
    auto it = params.find(name);
    return it == params.end() ? std::string() : std::string((*it).value);
}

std::string feed_page_url(Config const& cfg, FeedConfig const& feed, std::string const& token) {
    std::string url = cfg.server.public_url + "/feeds/" + feed.name + ".html";
    if (!token.empty())
        url += "?token=" + urls::encode(token, urls::unreserved_chars);
    return url;
}

std::string title_of(FeedConfig const& feed) {
    return feed.title.empty() ? feed.name : feed.title;
}

std::optional<TargetConfig>
provider_target(Config const& cfg, std::string_view provider, FeedConfig const& f) {
    if (!cfg.connect)
        return std::nullopt;
    auto const& p = provider == "google" ? cfg.connect->google : cfg.connect->microsoft;
    if (!p)
        return std::nullopt;
    TargetConfig t = *p;
    t.calendar = title_of(f);
    t.calendar_id.clear();
    return t;
}

std::string origin_of(std::string_view url) {
    auto u = urls::parse_uri(url);
    if (!u)
        return {};
    return std::string(u->scheme()) + "://" + std::string(u->encoded_authority());
}

} // namespace icsbridge::connect
