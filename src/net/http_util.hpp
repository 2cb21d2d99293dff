// File: http_util.hpp
// Pure helpers of the HTTP client (no I/O): backoff schedule, retry decisions,
// and the sizes used in error messages (durations: icsbridge/duration.hpp).
#pragma once

#include <icsbridge/http_client.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::net_detail {

/**
 * @brief The wait before retry number `retry` (1 = the first retry) with full jitter:
 * `unit * min(max_backoff, initial_backoff * 2^(retry-1))`, where `unit` is uniform in [0, 1).
 */
std::chrono::milliseconds backoff_delay(RetryPolicy const& p, int retry, double unit);

/** @brief 429 and every 5xx are worth another try; every other status is final. */
inline bool is_retryable_status(unsigned status) {
    return status == 429 || (status >= 500 && status <= 599);
}

/** @brief Transport failures that a new attempt may cure (not TLS trust, not size, not DNS "no such host").
 */
inline bool is_retryable_error(errc e) {
    return e == errc::upstream_connect || e == errc::upstream_timeout || e == errc::upstream_io;
}

/** @brief "512 bytes", "64 KiB", "32 MiB" (binary units, rounded down). */
std::string format_size(std::size_t bytes);

} // namespace icsbridge::net_detail
