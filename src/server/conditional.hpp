// File: conditional.hpp
// Conditional requests and content negotiation (RFC 9110 13.1 and 12.5.3): If-None-Match,
// If-Modified-Since, Accept-Encoding.
#pragma once

#include <icsbridge/store.hpp>

#include <optional>
#include <string_view>

namespace icsbridge {

/** @brief True if an If-None-Match value ("*" or a list of entity-tags) matches `etag` by weak comparison. */
bool etag_list_matches(std::string_view if_none_match, std::string_view etag);

/**
 * @brief True if a GET/HEAD of the representation with `etag` and `last_modified` should be answered 304:
 * If-None-Match decides when present; only without it, If-Modified-Since (any HTTP-date format) >=
 * Last-Modified, unless that date is later than `now` (RFC 9110 13.1.3: such a date is invalid).
 */
bool not_modified(
    std::optional<std::string_view> if_none_match,
    std::optional<std::string_view> if_modified_since,
    std::string_view etag,
    sys_seconds last_modified,
    sys_seconds now
);

/** @brief The gzip representation's ETag: `"X"` becomes `"X-gz"` (RFC 9110 8.8.3: one per representation). */
std::string gzip_etag(std::string_view etag);

/** @brief True if Accept-Encoding allows gzip (explicit "gzip"/"x-gzip" or "*", with q > 0). */
bool accepts_gzip(std::string_view accept_encoding);

} // namespace icsbridge
