// File: duration.cpp
// Durations as written in the config ("90s", "15m", "6h", "30d", "1h30m"), and the one formatter of
// durations in messages and output.
#include <icsbridge/duration.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <utility>

namespace icsbridge {

namespace {

constexpr std::array<std::pair<char, std::int64_t>, 4> units{
    {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}}};

std::int64_t unit_seconds(char c) {
    for (auto const& [u, secs] : units)
        if (u == c)
            return secs;
    return 0;
}

} // namespace

std::optional<std::chrono::seconds> parse_duration(std::string_view text) {
    // Ten years is far beyond any sensible refresh or window; the cap keeps the arithmetic far from overflow.
    constexpr std::int64_t max_total = 10LL * 366 * 86400;
    if (text.empty())
        return std::nullopt;
    std::int64_t total = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        std::int64_t n = 0;
        std::size_t digits = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            n = n * 10 + (text[i] - '0');
            if (n > max_total)
                return std::nullopt;
            ++i;
            ++digits;
        }
        if (digits == 0 || i == text.size())
            return std::nullopt; // a unit must follow every number ("15" alone is ambiguous)
        std::int64_t const secs = unit_seconds(text[i]);
        if (secs == 0)
            return std::nullopt;
        ++i;
        total += n * secs;
        if (total > max_total)
            return std::nullopt;
    }
    if (total <= 0)
        return std::nullopt;
    return std::chrono::seconds(total);
}

std::string format_duration(std::chrono::milliseconds d) {
    auto const ms = d.count();
    if (ms % 1000 != 0) {
        if (ms < 1000)
            return std::to_string(ms) + "ms";
        auto const tenths = ms / 100;
        return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "s";
    }
    auto const s = ms / 1000;
    if (s == 0)
        return "0s";
    for (auto const& [u, secs] : units)
        if (s % secs == 0)
            return std::to_string(s / secs) + u;
    return std::to_string(s) + "s";
}

} // namespace icsbridge
