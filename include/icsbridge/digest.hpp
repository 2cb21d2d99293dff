// File: digest.hpp
// Digests every room uses: strong ETags of bodies and constant-time secret checks (SHA-256, OpenSSL).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace icsbridge {

/** @brief SHA-256 of `data` (OpenSSL EVP). */
std::array<unsigned char, 32> sha256(std::string_view data);

/**
 * @brief Whether a presented secret equals the configured one, compared as fixed-size digests without an
 * early exit, so the time taken tells nothing of either's length or content.
 */
bool same_secret(std::string_view configured, std::string_view presented);

/** @brief Strong ETag of a body: the quoted hex of its SHA-256. */
std::string make_etag(std::string_view body);

} // namespace icsbridge
