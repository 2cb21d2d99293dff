// File: token_endpoint.hpp
// The two token-endpoint calls over the HttpClient: trading a sign-in's code, and refreshing.
#pragma once

#include "oauth/token_answer.hpp"
#include <icsbridge/net.hpp>

#include <boost/asio/awaitable.hpp>

#include <string>

namespace icsbridge::oauth {

/**
 * @brief POSTs the form `body` to `t.token_url` and reads the answer (parse_token_answer()). Transport
 * failures come back as the client's upstream_* errors, prefixed with the target's name.
 */
boost::asio::awaitable<Result<TokenAnswer>>
post_token_form(HttpClient& http, TargetConfig t, std::string body, Grant grant, TargetRef ref);

/** @brief grant_type=authorization_code: the code of a sign-in, with its redirect_uri and PKCE verifier. */
boost::asio::awaitable<Result<TokenAnswer>> exchange_code(
    HttpClient& http,
    TargetConfig t,
    std::string code,
    std::string redirect_uri,
    std::string verifier,
    TargetRef ref
);

/** @brief grant_type=refresh_token. */
boost::asio::awaitable<Result<TokenAnswer>>
refresh_access(HttpClient& http, TargetConfig t, std::string refresh_token, TargetRef ref);

/**
 * @brief Revokes `token` (a refresh token: the whole grant ends) at `t.revoke_url`, RFC 7009 as Google
 * documents it: POST token=…; 200 is done, and so is 400 invalid_token (revoked or expired already). A
 * provider without the endpoint (Microsoft: empty revoke_url) is done at once: nothing can be revoked there.
 */
boost::asio::awaitable<Result<void>> revoke_token(HttpClient& http, TargetConfig t, std::string token);

} // namespace icsbridge::oauth
