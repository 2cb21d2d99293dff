// File: flow_state.hpp
// One subscriber's sign-in (issue 27) carried in the OAuth `state` itself, sealed with the connect key, so
// the server keeps nothing per sign-in but a single-use claim of its nonce; and the management form's CSRF
// token and the digests stored instead of secrets.
#pragma once

#include "connect/connect_key.hpp"
#include <icsbridge/error.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace icsbridge::connect {

/**
 * @brief What the callback needs of a sign-in started on a feed's page. Holds secrets (token, verifier):
 * never log it; it leaves the process only sealed (seal_state()).
 */
struct FlowState {
    std::string provider; ///< "google" | "microsoft"
    std::string feed;
    std::string view;     ///< the page's view query ("days=90&alarm=none"); may be empty
    std::string token;    ///< the feed's subscriber token used on the page (secret); may be empty
    std::string verifier; ///< the PKCE verifier (secret): only the token endpoint sees it
    std::string nonce;    ///< random_id(16): the single-use key the callback claims
    std::chrono::sys_seconds expires{};
    friend bool operator==(FlowState const&, FlowState const&) = default;
};

/** @brief How long a sign-in may take, from the button to the callback. */
inline constexpr std::chrono::minutes state_lifetime{10};

/**
 * @brief The longest sealed state open_state() reads. A state of a normal sign-in is about 400 characters;
 * the route that starts one keeps `view` short (it is a query of known parameters) so it fits with room.
 */
inline constexpr std::size_t longest_state = 4096;

/** @brief The AAD of every sealed state: a state cannot pass for any other sealed value of the service. */
inline constexpr std::string_view state_aad = "icsbridge connect state";

/**
 * @brief A new sign-in starting at `now`: a fresh nonce (ConnectKey::random_id(16)) and PKCE verifier
 * (oauth::make_verifier()), expiring at now + state_lifetime. Throws std::runtime_error when the random
 * generator fails.
 */
FlowState new_flow(
    std::string provider, std::string feed, std::string view, std::string token, std::chrono::sys_seconds now
);

/**
 * @brief The `state` parameter of the authorization URL: `key.seal("state", JSON of s, state_aad)`. Sealed,
 * not just signed, because it carries the verifier and the subscriber token through the browser and the
 * provider; ASCII and URL-safe.
 */
std::string seal_state(ConnectKey const& key, FlowState const& s);

/**
 * @brief The sign-in a callback's `state` carries, if it is ours and still fresh at `now`. The nonce must
 * then be claimed once (a replayed callback is refused by that claim, not here).
 * @return errc::usage "the sign-in link is not one of ours (forged or damaged): start again from the feed's
 * page" for anything not sealed by this key as a state (too long, malformed, altered, another key: a key
 * change in the 10 minutes is as good as forged to the subscriber, who starts again either way);
 * errc::usage "the sign-in took longer than 10 minutes: start again from the feed's page" when now >=
 * expires.
 */
Result<FlowState> open_state(ConnectKey const& key, std::string_view sealed, std::chrono::sys_seconds now);

/**
 * @brief The CSRF token of a connection's management form: `key.sign("csrf", connection_id)`. Bound to
 * the connection, stateless (nothing stored) and unguessable without the key; the page also needs the
 * management secret, so the token only stops a third-party site from posting the form with the
 * subscriber's cookies or link.
 */
std::string csrf_token(ConnectKey const& key, std::string_view connection_id);
/** @brief Whether `presented` is csrf_token(key, connection_id), compared in constant time. */
bool csrf_ok(ConnectKey const& key, std::string_view connection_id, std::string_view presented);

/**
 * @brief Lower-case hex SHA-256 of a secret (a management key, a subscriber token): what is stored instead
 * of it, so a leaked store reveals none. The same form RevokedTokens keeps, so the two compare. Plain SHA-256
 * is enough: the secrets are random (128 bits and more), not passwords.
 */
std::string secret_hash(std::string_view secret);

} // namespace icsbridge::connect
