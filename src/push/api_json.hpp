// File: api_json.hpp
// Small readers shared by the Google and Graph adapters: an answer's JSON object, a string member, a path
// segment escaped for a URL, the API's own error text (never the request's secrets).
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/net.hpp>

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::push {

/** @brief The answer's body as a JSON object; nullopt when it is not one. */
std::optional<boost::json::object> json_object_of(HttpResponse const& r);

/** @brief `s` escaped for one path segment (calendar ids hold '@' and '#'). */
std::string path_segment(std::string_view s);

/** @brief `s` escaped for a query value. */
std::string query_value(std::string_view s);

/**
 * @brief The reason Google or Graph gives for an error answer: Google's errors[0].reason, Graph's
 * error.code; "" when the body says none.
 */
std::string error_reason(HttpResponse const& r);

/** @brief The API's error message (error.message), cut to one printable line. */
std::string error_message(HttpResponse const& r);

/**
 * @brief Why the target cannot go on after `r` (Google or Graph), naming the target, the request (its
 * path only) and what to do: reconnect (401), rights or scope (403), the calendar (404), throttling (429,
 * Google's 403 rateLimitExceeded / userRateLimitExceeded, or `slow_down`), the service (5xx). Codes as
 * TargetClient's refusals: upstream_auth, upstream_not_found, upstream_rate_limited, upstream_status.
 */
Error api_refusal(
    std::string_view target,
    std::string_view method,
    std::string_view url,
    HttpResponse const& r,
    bool slow_down
);

} // namespace icsbridge::push
