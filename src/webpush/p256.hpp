// File: p256.hpp
// P-256 keys through OpenSSL 3.0's EVP (no EC_KEY): made, imported from raw points and scalars with
// EVP_PKEY_fromdata, and their public half read back as an uncompressed point.
#pragma once

#include "util/openssl_ptr.hpp"
#include <icsbridge/error.hpp>

#include <string>
#include <string_view>

namespace icsbridge::webpush {

/// An uncompressed P-256 point: 0x04, then x and y of 32 bytes each.
inline constexpr std::size_t point_size = 65;
/// A P-256 private scalar.
inline constexpr std::size_t scalar_size = 32;

/** @brief errc::io_error "OpenSSL: WHAT failed": OpenSSL itself failing (no memory, no provider), not bad
 * input. */
Error openssl_failed(std::string const& what);

/** @brief A new random P-256 key pair. errc::io_error when OpenSSL fails. */
Result<PkeyPtr> make_p256_key();

/**
 * @brief The public key at `point` (65 bytes, uncompressed). errc::usage for another length or form, or a
 * point that is not on the curve.
 */
Result<PkeyPtr> p256_public_key(std::string_view point);

/**
 * @brief The key pair of a raw private scalar and its public point (OpenSSL 3.0 does not derive the point
 * from the scalar on import, so both are given): fixed keys of test vectors. errc::usage when malformed.
 */
Result<PkeyPtr> p256_key_pair(std::string_view scalar, std::string_view point);

/** @brief The public point of `key` (65 bytes, uncompressed); errc::io_error unless a P-256 key. */
Result<std::string> p256_point(EVP_PKEY* key);

/** @brief Whether `key` is an EC key on P-256 (OpenSSL's "prime256v1"). */
bool is_p256(EVP_PKEY* key);

} // namespace icsbridge::webpush
