// File: http_util.cpp
// Backoff, Retry-After / HTTP-date parsing and message formatting for the HTTP client.
#include "net/http_util.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

namespace icsbridge {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

bool parse_uint(std::string_view s, int& out) {
    if (s.empty())
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && out >= 0;
}

// Month names are case-sensitive in the grammar, but being lenient costs nothing.
int month_index(std::string_view m) {
    static constexpr std::array<std::string_view, 12>
        names{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
    if (m.size() != 3)
        return 0;
    std::string lower(m);
    for (auto& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == lower)
            return static_cast<int>(i) + 1;
    return 0;
}

// "HH:MM:SS" into seconds of the day.
std::optional<int> parse_clock(std::string_view s) {
    int h = 0, m = 0, sec = 0;
    if (s.size() != 8 || s[2] != ':' || s[5] != ':')
        return std::nullopt;
    if (!parse_uint(s.substr(0, 2), h) || !parse_uint(s.substr(3, 2), m) || !parse_uint(s.substr(6, 2), sec))
        return std::nullopt;
    if (h > 23 || m > 59 || sec > 60)
        return std::nullopt;
    return h * 3600 + m * 60 + sec;
}

std::optional<std::chrono::system_clock::time_point> make_time(int y, int mon, int d, int secs) {
    using namespace std::chrono;
    year_month_day ymd{year{y}, month{static_cast<unsigned>(mon)}, day{static_cast<unsigned>(d)}};
    if (!ymd.ok())
        return std::nullopt;
    return sys_days{ymd} + seconds{secs};
}

std::vector<std::string_view> split_spaces(std::string_view s) {
    std::vector<std::string_view> parts;
    while (!s.empty()) {
        auto start = s.find_first_not_of(' ');
        if (start == std::string_view::npos)
            break;
        s.remove_prefix(start);
        auto end = s.find(' ');
        parts.push_back(s.substr(0, end));
        s.remove_prefix(end == std::string_view::npos ? s.size() : end);
    }
    return parts;
}

} // namespace

namespace net_detail {

std::chrono::milliseconds backoff_delay(RetryPolicy const& p, int retry, double unit) {
    // Doubling in floating point cannot overflow; the cap keeps it sane.
    double ceiling = static_cast<double>(p.initial_backoff.count()) * std::pow(2.0, std::max(0, retry - 1));
    ceiling = std::min(ceiling, static_cast<double>(p.max_backoff.count()));
    unit = std::clamp(unit, 0.0, 1.0);
    return std::chrono::milliseconds(static_cast<long long>(ceiling * unit));
}

std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view s) {
    auto parts = split_spaces(trim(s));
    int d = 0, y = 0;
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
    if (parts.size() == 6 && parts[0].size() == 4 && parts[0].back() == ',' && parts[5] == "GMT") {
        int mon = month_index(parts[2]);
        auto clock = parse_clock(parts[4]);
        if (mon && clock && parts[1].size() == 2 && parse_uint(parts[1], d) && parts[3].size() == 4 &&
            parse_uint(parts[3], y))
            return make_time(y, mon, d, *clock);
        return std::nullopt;
    }
    // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"; two-digit years within 50 years of now, i.e. 19xx/20xx.
    if (parts.size() == 4 && parts[0].size() > 1 && parts[0].back() == ',' && parts[3] == "GMT") {
        auto date = parts[1];
        auto clock = parse_clock(parts[2]);
        if (date.size() != 9 || date[2] != '-' || date[6] != '-' || !clock)
            return std::nullopt;
        int mon = month_index(date.substr(3, 3));
        if (!mon || !parse_uint(date.substr(0, 2), d) || !parse_uint(date.substr(7, 2), y))
            return std::nullopt;
        y += y < 70 ? 2000 : 1900;
        return make_time(y, mon, d, *clock);
    }
    // asctime: "Sun Nov  6 08:49:37 1994"
    if (parts.size() == 5) {
        int mon = month_index(parts[1]);
        auto clock = parse_clock(parts[3]);
        if (mon && clock && parts[0].size() == 3 && parts[2].size() <= 2 && parse_uint(parts[2], d) &&
            parts[4].size() == 4 && parse_uint(parts[4], y))
            return make_time(y, mon, d, *clock);
    }
    return std::nullopt;
}

std::string format_duration(std::chrono::milliseconds d) {
    auto ms = d.count();
    if (ms < 1000)
        return std::to_string(ms) + "ms";
    if (ms % 60000 == 0)
        return std::to_string(ms / 60000) + "m";
    if (ms % 1000 == 0)
        return std::to_string(ms / 1000) + "s";
    auto tenths = ms / 100;
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "s";
}

std::string format_size(std::size_t bytes) {
    if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
        return std::to_string(bytes / (1024 * 1024)) + " MiB";
    if (bytes >= 1024 && bytes % 1024 == 0)
        return std::to_string(bytes / 1024) + " KiB";
    return std::to_string(bytes) + " bytes";
}

} // namespace net_detail

std::optional<std::chrono::seconds>
parse_retry_after(std::string_view value, std::chrono::system_clock::time_point now) {
    using namespace std::chrono;
    value = trim(value);
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
    auto when = net_detail::parse_http_date(value);
    if (!when)
        return std::nullopt;
    if (*when <= now)
        return seconds(0);
    // Round up so that we never come back before the server's instant.
    return ceil<seconds>(*when - now);
}

} // namespace icsbridge
