// File: token_answer.hpp
// The token endpoint's side of OAuth as pure functions: the form bodies of the two grants we send
// (authorization_code, refresh_token) and what an answer means (RFC 6749 §5.1 success, §5.2 error).
#pragma once

#include "oauth/provider.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge::oauth {

/** @brief application/x-www-form-urlencoded: `k=v&k=v`, every byte but unreserved ones percent-encoded. */
std::string form_encode(std::vector<std::pair<std::string, std::string>> const& fields);

/**
 * @brief The body that trades a sign-in's code for tokens: grant_type=authorization_code, code,
 * redirect_uri (exactly the authorization request's), client_id, client_secret when the target has one,
 * code_verifier.
 */
std::string code_exchange_body(
    TargetConfig const& t, std::string_view code, std::string_view redirect_uri, std::string_view verifier
);

/**
 * @brief The body that gets a new access token: grant_type=refresh_token, refresh_token, client_id,
 * client_secret when the target has one; Microsoft also scope (its v2.0 endpoint wants the scopes again on
 * a refresh; Google documents none and keeps the granted ones).
 */
std::string refresh_body(TargetConfig const& t, std::string_view refresh_token);

/** @brief A token endpoint's success answer. */
struct TokenAnswer {
    std::string access_token;
    std::chrono::seconds expires_in{3600}; ///< the answer's, or an hour when it gives none
    std::string refresh_token;             ///< empty: none given (a refresh that does not rotate)
    std::string scope;                     ///< as granted, when the answer says
};

/** @brief Which grant an answer is for: an `invalid_grant` means a bad code in one, ended consent in the
 * other. */
enum class Grant { authorization_code, refresh_token };

/**
 * @brief Reads a token endpoint's answer (HTTP status and body).
 * @return the tokens of a 200 with a JSON object holding a non-empty access_token (token_type, when
 * given, Bearer); else
 * - `invalid_grant` on a refresh: errc::not_connected (consent_ended(): never retried);
 * - `invalid_grant` on a code: errc::upstream_auth (the code was used, expired or does not match the
 *   verifier: connect again);
 * - `invalid_client`, `unauthorized_client`: errc::upstream_auth naming client_id and client_secret;
 * - another error, 429, 5xx: errc::upstream_status / upstream_rate_limited (retryable);
 * - a 200 that is not such JSON: errc::upstream_malformed.
 * Messages carry the endpoint's error code and description (made loggable), never a token.
 */
Result<TokenAnswer>
parse_token_answer(unsigned status, std::string_view body, Grant grant, TargetRef const& t);

} // namespace icsbridge::oauth
