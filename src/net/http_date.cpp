// File: http_date.cpp
// The three HTTP-date forms: IMF-fixdate out; IMF-fixdate, RFC 850 and asctime in.
#include "net/http_date.hpp"

#include "util/ascii.hpp"
#include "util/trim.hpp"

#include <array>
#include <cstdio>

namespace icsbridge {

namespace {

constexpr std::array<std::string_view, 7> day_names = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 12> month_names = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/** @brief A tiny cursor over the date text; every getter fails softly so malformed input yields nullopt. */
struct Cursor {
    std::string_view s;
    bool ok = true;

    bool lit(std::string_view l) {
        if (!ok || s.substr(0, l.size()) != l)
            return ok = false;
        s.remove_prefix(l.size());
        return true;
    }
    void skip_spaces() {
        while (!s.empty() && s.front() == ' ')
            s.remove_prefix(1);
    }
    int digits(std::size_t min, std::size_t max) {
        std::size_t n = 0;
        int v = 0;
        while (ok && n < max && n < s.size() && s[n] >= '0' && s[n] <= '9')
            v = v * 10 + (s[n++] - '0');
        if (n < min)
            ok = false;
        s.remove_prefix(n);
        return v;
    }
    // Month names are case-sensitive in the grammar, but being lenient costs nothing.
    int month() {
        for (std::size_t i = 0; i < month_names.size(); ++i)
            if (s.size() >= 3 && ascii_iequals(s.substr(0, 3), month_names[i])) {
                s.remove_prefix(3);
                return static_cast<int>(i) + 1;
            }
        ok = false;
        return 0;
    }
    void word() {
        std::size_t n = 0;
        while (n < s.size() && ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z')))
            ++n;
        if (n < 3)
            ok = false;
        s.remove_prefix(n);
    }
    void time(int& h, int& m, int& sec) {
        h = digits(2, 2);
        lit(":");
        m = digits(2, 2);
        lit(":");
        sec = digits(2, 2);
    }
};

std::optional<std::chrono::sys_seconds> make_time(int y, int mon, int d, int h, int m, int s) {
    using namespace std::chrono;
    year_month_day ymd{year{y}, month{static_cast<unsigned>(mon)}, day{static_cast<unsigned>(d)}};
    if (!ymd.ok() || h > 23 || m > 59 || s > 60)
        return std::nullopt;
    return sys_days{ymd} + hours{h} + minutes{m} + seconds{s};
}

} // namespace

std::string format_http_date(std::chrono::sys_seconds t) {
    using namespace std::chrono;
    auto days = floor<std::chrono::days>(t);
    year_month_day ymd{days};
    hh_mm_ss hms{t - days};
    weekday wd{days};
    char buf[40];
    std::snprintf(
        buf,
        sizeof buf,
        "%s, %02u %s %04d %02d:%02d:%02d GMT",
        day_names[wd.c_encoding()].data(),
        static_cast<unsigned>(ymd.day()),
        month_names[static_cast<unsigned>(ymd.month()) - 1].data(),
        static_cast<int>(ymd.year()),
        static_cast<int>(hms.hours().count()),
        static_cast<int>(hms.minutes().count()),
        static_cast<int>(hms.seconds().count())
    );
    return buf;
}

std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view text) {
    Cursor c{trim_ows(text)};
    c.word();
    int y = 0, mon = 0, d = 0, h = 0, m = 0, s = 0;
    if (c.ok && !c.s.empty() && c.s.front() == ',') {
        c.lit(", ");
        d = c.digits(1, 2);
        if (c.ok && !c.s.empty() && c.s.front() == '-') {
            // RFC 850: two-digit year; RFC 9110 says to read a year more than 50 years ahead as the past
            // century.
            c.lit("-");
            mon = c.month();
            c.lit("-");
            y = c.digits(2, 2);
            y += y < 70 ? 2000 : 1900;
        } else {
            // IMF-fixdate
            c.lit(" ");
            mon = c.month();
            c.lit(" ");
            y = c.digits(4, 4);
        }
        c.lit(" ");
        c.time(h, m, s);
        c.lit(" GMT");
    } else {
        // asctime: "Sun Nov  6 08:49:37 1994"
        c.lit(" ");
        mon = c.month();
        c.lit(" ");
        c.skip_spaces();
        d = c.digits(1, 2);
        c.lit(" ");
        c.time(h, m, s);
        c.lit(" ");
        y = c.digits(4, 4);
    }
    if (!c.ok || !c.s.empty())
        return std::nullopt;
    return make_time(y, mon, d, h, m, s);
}

} // namespace icsbridge
