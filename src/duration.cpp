// File: duration.cpp
// Durations as written in the config ("90s", "15m", "6h", "30d", "1h30m"), and the one formatter of
// durations in messages and output.
#include <icsbridge/config.hpp>
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

std::optional<Budget> parse_budget(std::string_view text) {
    auto const slash = text.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash > 9)
        return std::nullopt;
    std::size_t calls = 0;
    for (char c : text.substr(0, slash)) {
        if (c < '0' || c > '9')
            return std::nullopt;
        calls = calls * 10 + static_cast<std::size_t>(c - '0');
    }
    std::string_view unit = text.substr(slash + 1);
    // A bare unit is one of it: "2000/h" is "2000/1h".
    std::string const spelled = unit.size() == 1 ? "1" + std::string(unit) : std::string(unit);
    auto period = parse_duration(spelled);
    if (calls == 0 || !period)
        return std::nullopt;
    return Budget{calls, *period};
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
