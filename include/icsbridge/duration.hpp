// File: duration.hpp
// Durations as people write and read them: "90s", "15m", "6h", "30d" in the config, and the one
// formatter every message uses ("250ms", "1.5s", "20s", "15m", "2h"); the buckets of every duration
// histogram /metrics shows.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge {

/** @brief Parses "90s", "15m", "6h", "30d" (also combinations like "1h30m"); nullopt if malformed or zero. */
std::optional<std::chrono::seconds> parse_duration(std::string_view text);

/**
 * @brief Text for a duration, as short as exact: whole seconds in the largest exact unit ("45s", "15m",
 * "2h", "30d"; parse_duration reads these back), below a second in milliseconds ("250ms"), other
 * fractions in tenths of a second, rounded down ("1.5s"). Zero is "0s".
 */
std::string format_duration(std::chrono::milliseconds d);

/** @brief Upper bounds (seconds) of the duration histograms' buckets (feed fetches, upstream requests); +Inf
 * is implicit. */
inline constexpr std::array<double, 10> duration_buckets = {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

/** @brief The first bucket whose upper bound holds `seconds`, else the last (+Inf). */
inline std::size_t duration_bucket(double seconds) {
    std::size_t i = 0;
    while (i < duration_buckets.size() && seconds > duration_buckets[i])
        ++i;
    return i;
}

} // namespace icsbridge
