// File: calendar_claims.cpp
// CalendarClaims: a map from writer to calendar, asked before every reconcile writes.
#include "push/calendar_claims.hpp"

#include <algorithm>
#include <cctype>

namespace icsbridge::push {

std::string calendar_key(std::string_view calendar) {
    auto const scheme_end = calendar.find("://");
    if (scheme_end == std::string_view::npos)
        return std::string(calendar);
    auto const path_at = std::min(calendar.find('/', scheme_end + 3), calendar.size());
    std::string origin(calendar.substr(0, path_at));
    std::transform(origin.begin(), origin.end(), origin.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    for (std::string_view const port : {std::string_view("http://"), std::string_view("https://")})
        if (origin.starts_with(port)) {
            std::string const default_port = port.size() == 7 ? ":80" : ":443";
            if (origin.ends_with(default_port))
                origin.resize(origin.size() - default_port.size());
        }
    std::string path(calendar.substr(path_at));
    while (!path.empty() && path.back() == '/')
        path.pop_back();
    return origin + path + "/";
}

Result<void> CalendarClaims::claim(std::string const& writer, std::string const& calendar) {
    // Google's "primary" is each account's own: two targets' are one calendar only when they signed in
    // as one account, which this process cannot see (their items stay apart by their writers' marks).
    if (calendar == "primary") {
        calendars_.erase(writer);
        return {};
    }
    auto const key = calendar_key(calendar);
    for (auto const& [other, held] : calendars_)
        if (other != writer && held == key)
            return fail(
                errc::config_invalid,
                "targets " + other + " and " + writer + " both write into the calendar " + calendar +
                    "; nothing written to " + writer +
                    ": give each target its own calendar, or push the feeds into one target (a target takes "
                    "several feeds)"
            );
    calendars_[writer] = key;
    return {};
}

void CalendarClaims::release(std::string const& writer) {
    calendars_.erase(writer);
}

} // namespace icsbridge::push
