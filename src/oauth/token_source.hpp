// File: token_source.hpp
// oauth::TokenSource: the `Authorization` header of one Google or Microsoft target, refreshed before its
// access token expires and after the API refused it; the refresh token comes from (and a rotated one goes
// back to) the target's Persistence<std::optional<StoredToken>, StoredToken>. Plus the expiry decision as
// pure functions.
#pragma once

#include "oauth/provider.hpp"
#include "oauth/token_store.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/digest.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace icsbridge::oauth {

/** @brief An access token and when to stop using it. */
struct AccessToken {
    std::string value;
    std::chrono::steady_clock::time_point refresh_after; ///< refresh from then on (before the expiry)
};

/**
 * @brief When a token obtained at `obtained` (the request's start) and valid `expires_in` is refreshed:
 * 60 s before it expires, or half-way through a lifetime shorter than two minutes (so that a token of a
 * few seconds is not refreshed on every call).
 */
std::chrono::steady_clock::time_point
refresh_after(std::chrono::steady_clock::time_point obtained, std::chrono::seconds expires_in);

/** @brief True when a call must refresh first: no token yet, the API refused it (rejected), or it is due. */
bool should_refresh(
    std::optional<AccessToken> const& token, bool rejected, std::chrono::steady_clock::time_point now
);

/**
 * @brief The bearer token of one OAuth target, as push-apis.md "OAuth" describes it.
 *
 * Not thread-safe: call it from one strand (the target's push). Callers that find a refresh under way
 * wait for it and share its outcome, so N concurrent requests make one refresh, and one rotation.
 */
class TokenSource {
  public:
    /**
     * @param target the target's config (copied: client_id, client_secret, token_url, scope)
     * @param config_path the config file, named in the reconnect command of errors
     * @param http the client that reaches target.token_url (any client: it serves any host); must outlive
     * this
     * @param keeping where the refresh token is read from and a rotated one written to
     * @param log where a rotated token that could not be stored is reported (never the token)
     */
    TokenSource(
        TargetConfig target,
        std::string config_path,
        HttpClient& http,
        Persistence<std::optional<StoredToken>, StoredToken> keeping,
        Logger log = null_logger()
    );
    ~TokenSource();
    TokenSource(TokenSource const&) = delete;
    TokenSource& operator=(TokenSource const&) = delete;

    /**
     * @brief "Bearer ACCESS_TOKEN", refreshed first when none is cached, it expires within 60 s, or
     * rejected() was called.
     * @return errc::not_connected (no stored token, stored for another client/scope, or invalid_grant:
     * consent revoked or expired; the message names `icsbridge connect --config FILE NAME`; not worth a
     * retry), errc::io_error (the token could not be read), upstream_* (the token endpoint failed: retry
     * later).
     */
    boost::asio::awaitable<Result<std::string>> authorization();

    /** @brief The API answered 401 to the current token: the next authorization() refreshes. */
    void rejected();

    /** @brief How many refresh requests were sent (for tests and logs). */
    std::size_t refreshes() const { return refreshes_; }

  private:
    boost::asio::awaitable<Result<void>> refresh();
    Result<void> ensure_loaded();
    void store_rotated(std::string const& refresh_token);

    TargetConfig target_;
    TargetRef ref_;
    HttpClient& http_;
    Persistence<std::optional<StoredToken>, StoredToken> keeping_;
    Logger log_;
    std::optional<StoredToken> stored_;                    ///< loaded on first use, dropped on invalid_grant
    std::optional<std::array<unsigned char, 32>> revoked_; ///< SHA-256 of the refresh token refused last
    std::optional<AccessToken> access_;
    bool rejected_ = false;
    bool refreshing_ = false;
    std::uint64_t round_ = 0;                         ///< refreshes finished, to tell a waiter's one
    std::optional<Error> last_error_;                 ///< how the last refresh failed
    std::unique_ptr<boost::asio::steady_timer> wake_; ///< cancelled when a refresh ends
    std::size_t refreshes_ = 0;
};

/** @brief A TokenSource and the client it reaches the token endpoint with (the target's ca_file), kept
 * together: an Authorizer's two functions share one. */
struct HeldTokens {
    HeldTokens(
        boost::asio::any_io_executor ex,
        TargetConfig const& t,
        std::string config_path,
        Persistence<std::optional<StoredToken>, StoredToken> keeping,
        Logger const& log
    );
    HttpClient http;
    TokenSource tokens;
};

/** @brief held->tokens.authorization(), owning its share of `held` (a lambda's captures would die with the
 * std::function that made the call). */
boost::asio::awaitable<Result<std::string>> authorize_with(std::shared_ptr<HeldTokens> held);

} // namespace icsbridge::oauth
