// File: pkce.hpp
// The random parts of an OAuth authorization request: the PKCE verifier and its S256 challenge (RFC 7636)
// and the `state` (RFC 6749 §10.12), from OpenSSL's RAND_bytes, and base64url without padding.
#pragma once

#include "util/base64url.hpp"

#include <string>
#include <string_view>

namespace icsbridge::oauth {

/// base64url without `=` padding (RFC 4648 §5), as RFC 7636 appendix A asks.
using icsbridge::base64url;

/**
 * @brief A PKCE code verifier: 64 characters drawn uniformly from RFC 7636's unreserved set
 * `[A-Za-z0-9-._~]` (rejection sampling over RAND_bytes, so no character is likelier than another).
 * Throws std::runtime_error when the random generator fails (nothing to go on without it).
 */
std::string make_verifier();

/** @brief The S256 challenge of a verifier: base64url(SHA-256(verifier)), 43 characters. */
std::string challenge_of(std::string_view verifier);

/** @brief A `state` value: 32 random bytes in base64url (43 characters). Throws like make_verifier(). */
std::string make_state();

/** @brief A verifier and its challenge; the verifier never leaves the process but for the token endpoint. */
struct Pkce {
    std::string verifier;
    std::string challenge;
};

/** @brief make_verifier() and its challenge_of(). */
Pkce make_pkce();

} // namespace icsbridge::oauth
