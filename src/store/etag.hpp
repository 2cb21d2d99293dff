// File: etag.hpp
// Body hashes (strong ETags, token digests) and HTTP-date formatting/parsing (RFC 9110 5.6.7).
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge {

/** @brief SHA-256 of `data` (OpenSSL EVP). */
std::array<unsigned char, 32> sha256(std::string_view data);

/** @brief Strong ETag of a body: the quoted hex of its SHA-256. */
std::string make_etag(std::string_view body);

/** @brief IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT". */
std::string format_http_date(std::chrono::sys_seconds t);

/** @brief Parses IMF-fixdate, RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37
 * 1994"). */
std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view s);

} // namespace icsbridge
