// File: retry.cpp
// Backoff with full jitter, Retry-After parsing and the retry verdict of the HTTP client.
#include "net/retry.hpp"

#include "net/http_date.hpp"
#include "util/trim.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace icsbridge {

namespace net_detail {

std::chrono::milliseconds backoff_delay(RetryPolicy const& p, int retry, double unit) {
    // Doubling in floating point cannot overflow; the cap keeps it sane.
    double ceiling = static_cast<double>(p.initial_backoff.count()) * std::pow(2.0, std::max(0, retry - 1));
    ceiling = std::min(ceiling, static_cast<double>(p.max_backoff.count()));
    unit = std::clamp(unit, 0.0, 1.0);
    return std::chrono::milliseconds(static_cast<long long>(ceiling * unit));
}

RetryVerdict next_retry(
    RetryPolicy const& policy,
    int attempt,
    AttemptEnd end,
    std::optional<std::chrono::seconds> retry_after,
    std::chrono::milliseconds elapsed,
    double jitter
) {
    bool const retryable =
        end.status != 0 ? is_retryable_status(end.status) : is_retryable_error(end.failure);
    if (!retryable)
        return {std::nullopt, GiveUp::final_outcome};
    if (attempt >= policy.max_attempts)
        return {std::nullopt, GiveUp::attempts_spent};

    auto const remaining = policy.max_total - elapsed;
    std::chrono::milliseconds wait{};
    if (retry_after) {
        // Coming back earlier than asked only earns another 429: give up instead.
        if (*retry_after >= remaining)
            return {std::nullopt, GiveUp::retry_after_beyond_budget};
        wait = *retry_after;
    } else {
        wait = backoff_delay(policy, attempt, jitter);
    }
    if (wait >= remaining)
        return {std::nullopt, GiveUp::budget_spent};
    return {wait, GiveUp::final_outcome};
}

} // namespace net_detail

std::optional<std::chrono::seconds>
parse_retry_after(std::string_view value, std::chrono::system_clock::time_point now) {
    using namespace std::chrono;
    value = trim_ows(value);
    if (!value.empty() &&
        std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        // Clamp absurd values instead of failing: "retry in a very long time" is still an answer.
        long long secs = 0;
        auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), secs);
        if (ec == std::errc::result_out_of_range)
            return seconds(std::numeric_limits<int>::max());
        if (ec != std::errc() || p != value.data() + value.size())
            return std::nullopt;
        return seconds(std::min<long long>(secs, std::numeric_limits<int>::max()));
    }
    auto when = parse_http_date(value);
    if (!when)
        return std::nullopt;
    if (*when <= now)
        return seconds(0);
    // Round up so that we never come back before the server's instant.
    return ceil<seconds>(*when - now);
}

} // namespace icsbridge
