// File: token_source.cpp
// TokenSource: load the stored sign-in once, refresh when due (one refresh at a time, waiters share its
// outcome), keep a rotated refresh token, and stop asking once the token endpoint says invalid_grant.
#include "oauth/token_source.hpp"

#include "oauth/token_endpoint.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <utility>

namespace icsbridge::oauth {

namespace net = boost::asio;
using std::chrono::steady_clock;

steady_clock::time_point refresh_after(steady_clock::time_point obtained, std::chrono::seconds expires_in) {
    auto const margin = std::min<std::chrono::seconds>(std::chrono::seconds(60), expires_in / 2);
    return obtained + expires_in - margin;
}

bool should_refresh(std::optional<AccessToken> const& token, bool rejected, steady_clock::time_point now) {
    return !token || rejected || now >= token->refresh_after;
}

TokenSource::TokenSource(
    TargetConfig target,
    std::string config_path,
    HttpClient& http,
    Persistence<std::optional<StoredToken>, StoredToken> keeping,
    Logger log
)
    : target_(std::move(target))
    , ref_{target_.name, std::move(config_path)}
    , http_(http)
    , keeping_(std::move(keeping))
    , log_(std::move(log)) {}

TokenSource::~TokenSource() = default;

void TokenSource::rejected() {
    rejected_ = true;
}

Result<void> TokenSource::ensure_loaded() {
    if (stored_)
        return {};
    // Read again on every call until there is a usable token: a `connect` run meanwhile is picked up
    // without a restart.
    auto loaded = keeping_.load();
    if (!loaded)
        return fail(loaded.error().code, "target " + ref_.name + ": " + loaded.error().message);
    auto usable = usable_token(*loaded, target_, ref_);
    if (!usable)
        return usable.error();
    // The token the endpoint refused is still the one stored: nobody reconnected, so do not ask again.
    if (revoked_ && sha256(usable->refresh_token) == *revoked_)
        return consent_ended(ref_);
    stored_ = std::move(*usable);
    return {};
}

void TokenSource::store_rotated(std::string const& refresh_token) {
    stored_->refresh_token = refresh_token;
    if (auto saved = keeping_.save(*stored_); !saved)
        log_.warn(
            "target " + ref_.name + ": the new refresh token the provider gave could not be stored (" +
            saved.error().message + "); it is used from memory until icsbridge stops"
        );
}

net::awaitable<Result<void>> TokenSource::refresh() {
    if (auto loaded = ensure_loaded(); !loaded)
        co_return loaded.error();
    auto const started = steady_clock::now();
    ++refreshes_;
    auto call = refresh_access(http_, target_, stored_->refresh_token, ref_);
    auto answer = co_await std::move(call);
    if (!answer) {
        if (answer.error().code == errc::not_connected) {
            // Consent revoked or expired: forget the token, and never send it again; kept as refused, so
            // that `check` and the next run say so rather than "connected".
            revoked_ = sha256(stored_->refresh_token);
            stored_->refused_at = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
            if (auto saved = keeping_.save(*stored_); !saved)
                log_.warn(
                    "target " + ref_.name +
                    ": its refused sign-in could not be marked: " + saved.error().message
                );
            stored_.reset();
            access_.reset();
        }
        co_return answer.error();
    }
    access_ = AccessToken{std::move(answer->access_token), refresh_after(started, answer->expires_in)};
    rejected_ = false;
    // Microsoft answers each refresh with a new refresh token (the old one may stop working): keep it.
    if (!answer->refresh_token.empty() && answer->refresh_token != stored_->refresh_token)
        store_rotated(answer->refresh_token);
    co_return Result<void>{};
}

net::awaitable<Result<std::string>> TokenSource::authorization() {
    for (;;) {
        if (!should_refresh(access_, rejected_, steady_clock::now()))
            co_return "Bearer " + access_->value;
        if (!refreshing_)
            break;
        // Another caller is refreshing: wait for its end, and take its failure as ours.
        auto const round = round_;
        if (!wake_) {
            // Set once: a new expiry would cancel the other waiters' waits; cancel() wakes them all.
            wake_ = std::make_unique<net::steady_timer>(co_await net::this_coro::executor);
            wake_->expires_at(steady_clock::time_point::max());
        }
        auto waited = wake_->async_wait(net::as_tuple(net::use_awaitable));
        co_await std::move(waited);
        if (round_ != round && last_error_)
            co_return *last_error_;
    }
    refreshing_ = true;
    Result<void> done = fail(errc::shutdown, "target " + ref_.name + ": the token refresh was interrupted");
    try {
        auto r = refresh();
        done = co_await std::move(r);
    } catch (...) {
        refreshing_ = false;
        ++round_;
        last_error_ = done.error();
        if (wake_)
            wake_->cancel();
        throw;
    }
    refreshing_ = false;
    ++round_;
    last_error_ = done ? std::nullopt : std::optional<Error>(done.error());
    if (wake_)
        wake_->cancel();
    if (!done)
        co_return done.error();
    co_return "Bearer " + access_->value;
}

namespace {

ClientOptions token_client_options(TargetConfig const& t) {
    ClientOptions o;
    o.service_name = "target " + t.name + " token endpoint";
    o.ca_file = t.ca_file;
    o.max_concurrency = 1;
    return o;
}

} // namespace

HeldTokens::HeldTokens(
    boost::asio::any_io_executor ex,
    TargetConfig const& t,
    std::string config_path,
    Persistence<std::optional<StoredToken>, StoredToken> keeping,
    Logger const& log
)
    : http(std::move(ex), token_client_options(t), log)
    , tokens(t, std::move(config_path), http, std::move(keeping), log) {}

boost::asio::awaitable<Result<std::string>> authorize_with(std::shared_ptr<HeldTokens> held) {
    auto asked = held->tokens.authorization();
    co_return co_await std::move(asked);
}

} // namespace icsbridge::oauth
