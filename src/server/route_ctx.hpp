// File: route_ctx.hpp
// What the route handlers share (private to src/server/): the request context, the plain answers every
// route gives, and the feed and page handlers of feed_routes.cpp.
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/server.hpp>

#include <boost/url/url_view.hpp>

#include <string>
#include <string_view>

namespace icsbridge::server_detail {

/** @brief What every handler gets. */
struct Ctx {
    ServerRequest const& req;
    ServedFeeds const& store;
    ViewCache& views;
    Metrics& metrics;
    Config const& cfg;
    sys_seconds now;
    boost::urls::url_view url;
    RevokedTokens const* revoked; ///< may be null
    dav::History* dav;            ///< may be null: no CalDAV tree
    dav::PushRegistry* push;      ///< may be null: no WebDAV-Push
};

ServerResponse
text_response(unsigned status, std::string body, std::string_view type = "text/plain; charset=utf-8");

/** @brief The one mapping from a failure to a response: the errc's status (http_status), the message
 * a user can act on as the body. */
ServerResponse error_response(Error const& e);

/** @brief The same answer for an unknown feed and a wrong or missing token, so a token feed's existence
 * does not show. */
ServerResponse not_found();

/** @brief The `token` query parameter, or empty. */
std::string presented_token(Ctx const& c);

/** @brief GET/HEAD /feeds/NAME.ics: token, view, validators, gzip. */
ServerResponse handle_feed(Ctx const& c, std::string_view name);
/** @brief GET/HEAD /feeds/NAME.html: the agenda page, under the feed's token rule. */
ServerResponse handle_agenda(Ctx const& c, std::string_view name);
/** @brief GET/HEAD /: the index page. */
ServerResponse handle_index(Ctx const& c, std::string_view);

/** @brief /.well-known/caldav, PROPFIND / and everything under /dav/ (dav_routes.cpp); `path` decoded. */
ServerResponse handle_dav(Ctx const& c, std::string_view path);

} // namespace icsbridge::server_detail
