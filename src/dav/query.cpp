// File: query.cpp
// calendar-query's filter (RFC 4791 9.7) over one resource: component names, time ranges on the start and
// end FeedIndex found, and property filters on the item's own lines (not its VTIMEZONEs or VALARMs).
#include "dav/dav_detail.hpp"
#include "util/ascii.hpp"
#include "views/feed_index.hpp"

#include <algorithm>

namespace icsbridge::dav::detail {

namespace {

/// FeedIndex's times are wall-clock in the item's own zone: a range is widened by the largest UTC offset
/// either way, so an item near an edge is sent rather than missed (a client filters what it gets again).
constexpr long long zone_slack = 14LL * 3600;

bool overlaps(TimeRange const& r, Item const& item) {
    if (!item.start && !item.end)
        return true; // RFC 4791 9.9: a VTODO with neither start nor due matches any range
    if (item.data.find("\nRRULE") != std::string::npos || item.data.find("\nRDATE") != std::string::npos)
        return true; // a series' instances are not expanded here: sent rather than missed
    long long const start = item.start.value_or(*item.end);
    long long end = item.end.value_or(start);
    if (end == start)
        end += 86400; // a DATE start without an end lasts its day; a moment is kept in by the slack anyway
    bool const before_end = !r.end || start < *r.end + zone_slack;
    bool const after_start = !r.start || end > *r.start - zone_slack;
    return before_end && after_start;
}

/**
 * A content line's value: folds undone, after the first ':' outside quotes (ALTREP="http://..."). An item's
 * lines end in LF (Item::data), or CRLF where it kept them.
 */
std::string value_of(std::string_view line) {
    std::string s;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line.substr(i, 2) == "\r\n")
            continue; // the LF next, then the fold's space or tab
        if (line[i] == '\n') {
            ++i; // with the fold's space or tab skipped by the next round's ++i
            continue;
        }
        s += line[i];
    }
    bool quoted = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '"')
            quoted = !quoted;
        else if (s[i] == ':' && !quoted)
            return s.substr(i + 1);
    }
    return {};
}

/** The end of the logical line starting at `p` (past its line break and any folded continuation). */
std::size_t line_end(std::string_view body, std::size_t p) {
    for (;;) {
        auto const lf = body.find('\n', p);
        if (lf == std::string_view::npos)
            return body.size();
        p = lf + 1;
        if (p >= body.size() || (body[p] != ' ' && body[p] != '\t'))
            return p;
    }
}

/** Where the line that is exactly `line` starts in `body`; npos when there is none. */
std::size_t find_line(std::string_view body, std::string_view line) {
    for (auto p = body.find(line); p != std::string_view::npos; p = body.find(line, p + 1)) {
        auto const rest = body.substr(p + line.size());
        if ((p == 0 || body[p - 1] == '\n') && (rest.starts_with("\n") || rest.starts_with("\r\n")))
            return p;
    }
    return std::string_view::npos;
}

/** The values of the lines named `prop` in the item's first VEVENT/VTODO (not its sub-components). */
std::vector<std::string> values_of(Item const& item, std::string_view prop) {
    std::vector<std::string> out;
    std::string_view const body = item.data;
    auto p = find_line(body, item.todo ? "BEGIN:VTODO" : "BEGIN:VEVENT");
    if (p == std::string_view::npos)
        return out;
    p = line_end(body, p);
    for (int nested = 0; p < body.size();) {
        std::size_t const e = line_end(body, p);
        std::string_view const line = body.substr(p, e - p);
        p = e;
        if (line.starts_with("BEGIN:"))
            ++nested;
        else if (line.starts_with("END:") && nested-- == 0)
            break;
        auto const name_end = line.find_first_of(";:");
        if (nested == 0 && name_end != std::string_view::npos &&
            ascii_iequals(line.substr(0, name_end), prop))
            out.push_back(views::unescape_text(value_of(line)));
    }
    return out;
}

bool text_matches(TextMatch const& m, std::string const& value) {
    bool found = false;
    if (m.octet)
        found = value.find(m.text) != std::string::npos;
    else
        found = views::ascii_lower(value).find(views::ascii_lower(m.text)) != std::string::npos;
    return found != m.negate;
}

bool prop_matches(PropFilter const& f, Item const& item) {
    auto const values = values_of(item, f.name);
    if (f.not_defined)
        return values.empty();
    if (values.empty())
        return false;
    if (!f.match)
        return true;
    return std::any_of(values.begin(), values.end(), [&](auto const& v) {
        return text_matches(*f.match, v);
    });
}

/** A filter on the item's own component (VEVENT, VTODO) or one inside it (VALARM: presence only). */
bool comp_matches(CompFilter const& f, Item const& item) {
    bool present = false;
    if (f.name == "VEVENT" || f.name == "VTODO")
        present = (f.name == "VTODO") == item.todo;
    else
        present = find_line(item.data, "BEGIN:" + f.name) != std::string_view::npos;
    if (f.not_defined)
        return !present;
    if (!present)
        return false;
    if (f.name != "VEVENT" && f.name != "VTODO")
        return true;
    std::vector<bool> results;
    if (f.range)
        results.push_back(overlaps(*f.range, item));
    for (auto const& p : f.props)
        results.push_back(prop_matches(p, item));
    for (auto const& c : f.comps)
        results.push_back(comp_matches(c, item));
    if (results.empty())
        return true;
    return f.anyof ? std::find(results.begin(), results.end(), true) != results.end()
                   : std::find(results.begin(), results.end(), false) == results.end();
}

} // namespace

bool matches(CompFilter const& vcalendar, Item const& item) {
    if (vcalendar.name != "VCALENDAR" || vcalendar.not_defined)
        return false;
    for (auto const& c : vcalendar.comps)
        if (!comp_matches(c, item))
            return false;
    return true;
}

} // namespace icsbridge::dav::detail
