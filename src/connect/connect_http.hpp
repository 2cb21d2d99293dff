// File: connect_http.hpp
// What the connect routes' handlers share (private to src/connect/): the request in hand, the answers they
// give (pages never cached, framed or named in a Referer; redirects), and the feed and provider lookups.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/server.hpp>

#include <boost/url/params_view.hpp>
#include <boost/url/url_view.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::connect {

/** @brief The request in hand, as each of ConnectRoutes' handlers is given it. */
struct ConnectCall {
    ServerRequest const& req;
    Config const& cfg;
    boost::urls::url_view url;
    sys_seconds now;
};

inline constexpr std::string_view callback_path = "/connect/callback";
inline constexpr std::string_view manage_prefix = "/connections/";

/** @brief A page of the flow: never cached, framed, sniffed or named in a Referer (its URL may hold the
 * key); its form posts only to this origin. */
ServerResponse page(unsigned status, std::string html);
/** @brief `status` (302, 303) to `location`, with page()'s headers. */
ServerResponse redirect(unsigned status, std::string location);
/** @brief The one answer for an unknown feed, a wrong token, an unknown connection and a wrong key. */
ServerResponse nothing_here();
/** @brief The decoded value of query parameter `name`, or empty. */
std::string param(boost::urls::params_view params, std::string_view name);
/** @brief The feed's agenda page at public_url, with the token when there is one. */
std::string feed_page_url(Config const& cfg, FeedConfig const& feed, std::string const& token);
/** @brief The feed's title, or its name. */
std::string title_of(FeedConfig const& feed);
/** @brief The provider's settings under [connect], the calendar named after the feed (Google then asks
 * only for calendars it creates); nullopt when [connect] does not offer the provider. */
std::optional<TargetConfig>
provider_target(Config const& cfg, std::string_view provider, FeedConfig const& f);
/** @brief 429 with Retry-After `wait`: the client (or everyone) began or finished too many sign-ins. */
ServerResponse too_many_sign_ins(std::chrono::seconds wait);
/** @brief scheme://host[:port] of an absolute URL; empty when it is not one. */
std::string origin_of(std::string_view url);

} // namespace icsbridge::connect
