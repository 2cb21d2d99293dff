// File: etag.hpp
// Body hashes: strong ETags and token digests (HTTP dates are in net/http_date.hpp).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace icsbridge {

/** @brief SHA-256 of `data` (OpenSSL EVP). */
std::array<unsigned char, 32> sha256(std::string_view data);

/** @brief Strong ETag of a body: the quoted hex of its SHA-256. */
std::string make_etag(std::string_view body);

} // namespace icsbridge
