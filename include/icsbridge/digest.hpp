// File: digest.hpp
// Digests every room uses: strong ETags of bodies, constant-time secret checks (SHA-256, OpenSSL), and
// the hex they are written in.
#pragma once

#include <array>
#include <cstddef>
#include <span>
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

/** @brief `bytes` as lower-case hex digits, two per byte: the one hex writer of the tree. */
std::string to_hex(std::span<unsigned char const> bytes);

/** @brief The value of one hex digit (either case); -1 for any other character. */
int hex_digit(char c);

/** @brief Whether `text` is nothing but lower-case hex digits, the form to_hex() writes (true when empty). */
bool is_lower_hex(std::string_view text);

/** @brief Reads exactly `2 * out.size()` hex digits (either case) into `out`; false for anything else. */
bool from_hex(std::string_view text, std::span<unsigned char> out);

/** @brief Strong ETag of a body: the quoted hex of its SHA-256. */
std::string make_etag(std::string_view body);

} // namespace icsbridge
