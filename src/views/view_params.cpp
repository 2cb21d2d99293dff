// File: view_params.cpp
// parse_view_params() and ViewParams::key(): strict values (a typo gets a 400, not a surprising calendar).
#include "views/view.hpp"
#include <icsbridge/config.hpp>

#include <algorithm>
#include <charconv>

namespace icsbridge::views {

namespace {

namespace chr = std::chrono;

/// The longest window and reminder lead a view accepts: beyond them a value is surely a typo.
constexpr int max_days = 3660;
constexpr chr::seconds max_alarm = chr::days(28);

Error bad(std::string_view param, std::string_view why) {
    return fail(errc::usage, "invalid " + std::string(param) + ": " + std::string(why));
}

/** Strict YYYY-MM-DD naming a real day. */
std::optional<chr::sys_days> parse_date(std::string_view s) {
    int y = 0;
    unsigned m = 0, d = 0;
    auto num = [&](std::string_view part, auto& out) {
        auto r = std::from_chars(part.data(), part.data() + part.size(), out);
        return r.ec == std::errc{} && r.ptr == part.data() + part.size();
    };
    if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !num(s.substr(0, 4), y) || !num(s.substr(5, 2), m) ||
        !num(s.substr(8, 2), d))
        return std::nullopt;
    chr::year_month_day ymd{chr::year(y), chr::month(m), chr::day(d)};
    if (!ymd.ok())
        return std::nullopt;
    return chr::sys_days(ymd);
}

std::string format_date(chr::sys_days d) {
    chr::year_month_day ymd(d);
    char buf[16];
    std::snprintf(
        buf,
        sizeof buf,
        "%04d-%02u-%02u",
        static_cast<int>(ymd.year()),
        unsigned(ymd.month()),
        unsigned(ymd.day())
    );
    return buf;
}

/** for=APP: only google, a view from today on unless the subscriber chose the dates. */
bool for_google(std::string_view app, chr::sys_days today, ViewParams& p) {
    if (app != "google")
        return false;
    p.google = true;
    if (!p.from && !p.to) {
        p.from = today;
        p.uses_today = true;
    }
    return true;
}

} // namespace

Result<ViewParams> parse_view_params(boost::urls::params_view params, chr::sys_days today) {
    ViewParams p;
    std::optional<std::string> alarm, from, to, days, detail, for_app;
    for (auto const& param : params) {
        std::string_view const k = param.key;
        std::optional<std::string>* slot = k == "alarm"    ? &alarm
                                           : k == "from"   ? &from
                                           : k == "to"     ? &to
                                           : k == "days"   ? &days
                                           : k == "detail" ? &detail
                                           : k == "for"    ? &for_app
                                                           : nullptr;
        if (k == "category") {
            if (param.value.empty() || param.value.size() > 200)
                return bad("category", "expected a category name");
            p.categories.push_back(ascii_lower(param.value));
        } else if (slot) {
            // Two different values would leave the view ambiguous.
            if (*slot && **slot != param.value)
                return bad(k, "given more than once");
            *slot = param.value;
        }
    }
    if (alarm) {
        if (*alarm == "none")
            p.alarm = chr::seconds(0);
        else if (auto d = parse_duration(*alarm); d && *d <= max_alarm)
            p.alarm = *d;
        else
            return bad("alarm", "expected none or a duration up to 28d, like 30m or 1h");
    }
    if (from && !(p.from = parse_date(*from)))
        return bad("from", "expected a date YYYY-MM-DD");
    if (to && !(p.to = parse_date(*to)))
        return bad("to", "expected a date YYYY-MM-DD");
    if (days) {
        int n = 0;
        auto r = std::from_chars(days->data(), days->data() + days->size(), n);
        if (r.ec != std::errc{} || r.ptr != days->data() + days->size() || n < 1 || n > max_days)
            return bad("days", "expected a number of days from 1 to 3660");
        if (from || to)
            return bad("days", "use either days or from/to");
        p.from = today;
        p.to = today + chr::days(n - 1);
        p.uses_today = true;
    }
    if (p.from && p.to && *p.to < *p.from)
        return bad("to", "is before from");
    if (detail) {
        if (*detail == "busy")
            p.busy = true;
        else if (*detail != "full")
            return bad("detail", "expected busy or full");
    }
    if (for_app && !for_google(*for_app, today, p))
        return bad("for", "expected google");
    std::sort(p.categories.begin(), p.categories.end());
    p.categories.erase(std::unique(p.categories.begin(), p.categories.end()), p.categories.end());
    return p;
}

std::string ViewParams::key() const {
    std::string k;
    // Busy and google views have no reminders, so the alarm does not make a different view.
    if (google)
        k += "for=google;url=" + full_url + ';';
    else if (alarm && !busy)
        k += "alarm=" + std::to_string(alarm->count()) + ';';
    if (from)
        k += "from=" + format_date(*from) + ';';
    if (to)
        k += "to=" + format_date(*to) + ';';
    for (auto const& c : categories)
        k += "category=" + c + '\x1f';
    if (busy)
        k += "busy;";
    return k;
}

} // namespace icsbridge::views
