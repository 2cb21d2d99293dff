// File: duration.hpp
// Durations as people write and read them: "90s", "15m", "6h", "30d" in the config, and the one
// formatter every message uses ("250ms", "1.5s", "20s", "15m", "2h").
#pragma once

#include <chrono>
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

} // namespace icsbridge
