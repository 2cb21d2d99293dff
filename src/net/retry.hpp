// File: retry.hpp
// The HTTP client's retry policy as pure functions (no I/O, no clock, no randomness of their own):
// which outcomes are worth another try, the backoff schedule, and the verdict after each attempt.
#pragma once

#include <icsbridge/net.hpp>

#include <chrono>
#include <optional>

namespace icsbridge::net_detail {

/** @brief 429 and every 5xx are worth another try; every other status is final. */
inline bool is_retryable_status(unsigned status) {
    return status == 429 || (status >= 500 && status <= 599);
}

/** @brief Transport failures that a new attempt may cure (not TLS trust, not size, not DNS "no such host").
 */
inline bool is_retryable_error(errc e) {
    return e == errc::upstream_connect || e == errc::upstream_timeout || e == errc::upstream_io;
}

/**
 * @brief The wait before retry number `retry` (1 = the first retry) with full jitter:
 * `unit * min(max_backoff, initial_backoff * 2^(retry-1))`, where `unit` is uniform in [0, 1).
 */
std::chrono::milliseconds backoff_delay(RetryPolicy const& p, int retry, double unit);

/** @brief How one attempt ended: with an HTTP response, or with a transport failure. */
struct AttemptEnd {
    unsigned status = 0;     ///< the response's status; 0 when no response came
    errc failure = errc::ok; ///< why no response came (when status is 0)

    static AttemptEnd response(unsigned s) { return {s, errc::ok}; }
    static AttemptEnd transport_failure(errc e) { return {0, e}; }
};

/** @brief Why a request is not tried again. */
enum class GiveUp {
    final_outcome,             ///< a success, a 4xx other than 429, or a failure a retry cannot cure
    attempts_spent,            ///< RetryPolicy::max_attempts reached
    retry_after_beyond_budget, ///< the server asked for a wait that ends past RetryPolicy::max_total
    budget_spent,              ///< the computed wait would end past RetryPolicy::max_total
};

/** @brief The verdict after an attempt: wait this long and try again, or give up (and why). */
struct RetryVerdict {
    std::optional<std::chrono::milliseconds> wait; ///< set: try again after this wait
    GiveUp reason = GiveUp::final_outcome;         ///< when `wait` is empty

    bool retry() const { return wait.has_value(); }
};

/**
 * @brief Decides whether to try again after attempt number `attempt` (1 = the first).
 * @param policy the client's retry schedule
 * @param attempt how many attempts have been made, the one that just ended included
 * @param end how that attempt ended
 * @param retry_after the server's Retry-After, already parsed (see parse_retry_after); honoured as is,
 *        instead of the backoff, because coming back earlier only earns another 429/503
 * @param elapsed time since the first attempt started
 * @param jitter uniform in [0, 1): the caller's random draw for the backoff's full jitter
 * @return the wait before the next attempt, or the reason to stop
 */
RetryVerdict next_retry(
    RetryPolicy const& policy,
    int attempt,
    AttemptEnd end,
    std::optional<std::chrono::seconds> retry_after,
    std::chrono::milliseconds elapsed,
    double jitter
);

} // namespace icsbridge::net_detail
