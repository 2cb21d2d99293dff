// File: target_client.hpp
// The HTTP side of one target (CalDAV, Google, Graph): every request authenticated, paced and counted. Pacing
// is shared by all of the target's requests: the `rate` window, and one pause after a 429/503/5xx or a
// dropped connection (Retry-After, else backoff), so a throttled server sees the whole target wait, not just
// the request it refused. Answers come back as they are; what a status means is the caller's to decide.
// The target's credentials go only where its CredentialGuard allows (issue 35), checked on every request.
#pragma once

#include "net/credential_guard.hpp"
#include "sources/rate_budget.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge::push {

using Headers = std::vector<std::pair<std::string, std::string>>;

/** @brief How many tries one request gets (throttled or failed answers) before the target gives up. */
inline constexpr int push_attempts = 6;
/** @brief How many tries a request gets when no answer comes at all (refused, reset, timed out). */
inline constexpr int push_transport_attempts = 3;
/** @brief The longest Retry-After waited for within one reconcile; a longer one ends it (next period). */
inline constexpr std::chrono::seconds push_longest_wait{300};

/**
 * @brief The wait before trying again after attempt `attempt` (1 = first) ended with `status` (0: no
 * answer), or nullopt when that outcome is final or the tries are spent (push_attempts, or
 * push_transport_attempts without an answer). A Retry-After is honoured as given (at least a second) up to
 * push_longest_wait, beyond which the request gives up; otherwise the wait doubles from 1 s up to 60 s.
 * `jitter` in [0, 1) spreads the computed waits by up to a half.
 */
std::optional<std::chrono::milliseconds>
push_retry_wait(int attempt, unsigned status, std::optional<std::chrono::seconds> retry_after, double jitter);

/** @brief "Basic " + base64(user:password) (RFC 7617). */
std::string basic_authorization(std::string_view user, std::string_view password);

/** @brief `ref` (an href from a multistatus or a Location) made absolute against `base`. */
std::string resolve_href(std::string const& base, std::string_view ref);

/**
 * @brief How a target's requests are authorized: a fixed header (CalDAV's Basic), or a bearer token that
 * can be refused (OAuth: `authorization` refreshes when needed; `rejected` after a 401 makes it refresh).
 */
struct Authorizer {
    std::function<boost::asio::awaitable<Result<std::string>>()> authorization;
    std::function<void()> rejected; ///< empty: a 401 is final
};

/** @brief An Authorizer that always sends `header`. */
Authorizer fixed_authorization(std::string header);

/** @brief Whether an answer means "slow down" besides 429/503 (Google's 403 rateLimitExceeded). */
using SlowDownTest = std::function<bool(HttpResponse const&)>;

class TargetClient {
  public:
    /**
     * @brief A budget the target shares with others, passed before every try (after the target's own
     * `rate`): a subscriber's connection waits for its turn of `[connect] rate` (connect::gate_of). False:
     * the service is stopping, and the request ends as errc::shutdown without being sent.
     */
    using Gate = std::function<boost::asio::awaitable<bool>()>;

    /** @brief A CalDAV target: Basic authorization from its username and password. */
    TargetClient(boost::asio::any_io_executor ex, TargetConfig const& target, Logger log);
    TargetClient(
        boost::asio::any_io_executor ex,
        TargetConfig const& target,
        Logger log,
        Authorizer auth,
        SlowDownTest slow_down
    );

    /**
     * @brief One request, retried after throttling or transport failures as push_retry_wait() says. Every
     * status comes back as an answer; an error only when no answer came (unreachable, TLS, timeout), or when
     * the credentials may not go to `url` (errc::upstream_auth naming both origins; nothing is sent).
     */
    boost::asio::awaitable<Result<HttpResponse>>
    send(std::string method, std::string url, std::string body = {}, Headers headers = {});

    /**
     * @brief Whether the target's credentials may go to `url`, which the answer from `from` named (a
     * redirect's Location, an href); `from` empty: a URL of the target's own (configured or kept).
     */
    Result<void> may_send_to(std::string_view url, std::string_view from = {}) const {
        return guard_.check(url, from);
    }

    /**
     * @brief Waits for the turn of a request about to be made (the target's pause and `rate`, then the gate),
     * ahead of making it: the next try of any send() uses it instead of waiting again. A reconcile takes a
     * write's turn before the write, so the writes waiting for a shared budget are small frames, not whole
     * requests with their bodies (issue 39). false: the gate is closed (nothing is held).
     */
    boost::asio::awaitable<bool> hold_turn();
    /** @brief Gives up a turn held by hold_turn() that no request will use (nothing left to write). */
    void drop_turn() {
        if (held_ > 0)
            --held_;
    }
    /** @brief Turns held by hold_turn() that no try has used yet. */
    std::size_t turns_held() const { return held_; }

    /** @brief Every try passes `gate` from now on (none by default: configured targets pace alone). */
    void set_gate(Gate gate) { gate_ = std::move(gate); }
    /** @brief TLS contexts shared with other targets' clients; call before the first request. */
    void share_tls(std::shared_ptr<TlsContexts> contexts) { http_.share_tls(std::move(contexts)); }
    /** @brief The bound on name lookups shared with other targets' clients; call before the first request. */
    void share_lookups(std::shared_ptr<NameLookups> lookups) { http_.share_lookups(std::move(lookups)); }

    /** @brief Requests sent so far (every try). */
    std::size_t requests() const { return requests_; }
    /**
     * @brief Conflicts resolved so far: 412 answers (someone else changed an item between our read and our
     * write) after which the item was written (the reconcile counts them; a 412 with no write after it is
     * none).
     */
    std::size_t& conflicts() { return conflicts_; }
    std::string const& name() const { return name_; }
    /** @brief The target's max_concurrency: writes in flight at once. */
    int max_concurrency() const { return http_.options().max_concurrency; }
    Logger const& log() const { return log_; }

  private:
    /**
     * @brief The target's pause, then (`use_held`) a turn held by hold_turn() if there is one, else `rate`
     * and the gate (if any); false: the gate is closed.
     */
    boost::asio::awaitable<bool> wait_for_turn(bool use_held);
    /** @brief The status push_retry_wait() judges: a "slow down" answer counts as 429. */
    unsigned judged_status(Result<HttpResponse> const& answer) const;

    std::string name_;
    CredentialGuard guard_;
    Authorizer auth_; ///< never logged: holds the password or tokens
    SlowDownTest slow_down_;
    Gate gate_; ///< empty: no shared budget
    HttpClient http_;
    RateBudget rate_;
    Logger log_;
    std::chrono::steady_clock::time_point paused_until_{};
    std::size_t requests_ = 0;
    std::size_t conflicts_ = 0;
    std::size_t held_ = 0; ///< turns taken by hold_turn() and not yet used
};

/**
 * @brief A one-line reason for an answer the push cannot go on from, naming the target and what to do
 * (401: check username and password; 403: not allowed; 404: no such calendar; 507: quota).
 */
Error refusal(std::string_view target, std::string_view method, std::string_view url, HttpResponse const& r);

} // namespace icsbridge::push
