// File: http_date.hpp
// HTTP dates (RFC 9110 5.6.7), shared by the server (Last-Modified, If-Modified-Since) and the
// client (Retry-After): one formatter and one parser for the three accepted forms.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge {

/** @brief IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT". */
std::string format_http_date(std::chrono::sys_seconds t);

/**
 * @brief Parses IMF-fixdate, RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime
 * ("Sun Nov  6 08:49:37 1994"), ignoring surrounding spaces and tabs; month names in any case.
 * @return the instant, or nullopt if the text is none of the three or names no real date and time.
 */
std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view s);

} // namespace icsbridge
