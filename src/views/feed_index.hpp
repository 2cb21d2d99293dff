// File: feed_index.hpp
// Where each item of a rendered calendar sits in the snapshot's bytes, with the few facts views select
// on (wall-clock start/end, categories, cancelled) and the spans they cut out or keep (VALARMs,
// busy-only lines). Built once per snapshot, so a view is slicing and concatenating, never re-parsing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::views {

/** @brief A half-open byte range [begin, end) of the snapshot body; whole CRLF-terminated lines. */
struct Span {
    std::size_t begin = 0, end = 0;
    std::string_view of(std::string_view body) const { return body.substr(begin, end - begin); }
};

/** @brief One VEVENT or VTODO of the calendar. */
struct IndexedItem {
    Span block;               ///< BEGIN:... through END:... (inclusive)
    std::size_t end_line = 0; ///< offset of the END:VEVENT / END:VTODO line
    bool is_event = true;     ///< VEVENT (else VTODO)
    bool cancelled = false;   ///< STATUS:CANCELLED
    /// Wall-clock seconds since 1970-01-01T00:00 in the item's own zone (UTC for `...Z` times, midnight
    /// for DATE values): views select by the date a subscriber in that zone sees.
    std::optional<long long> start, end;
    std::vector<std::string> categories;   ///< CATEGORIES items, unescaped and lower-cased
    std::string start_tzid, end_tzid;      ///< TZID of DTSTART / DTEND or DUE; empty: UTC or a DATE
    bool all_day = false;                  ///< DTSTART is a DATE
    std::string location_value, url_value; ///< LOCATION and URL as written (escaped, unfolded)
    std::string summary_value;             ///< SUMMARY's value as written (escaped, unfolded)
    std::vector<Span> alarms;              ///< VALARM sub-components
    std::vector<Span> alt_descs;           ///< X-ALT-DESC lines (the HTML description)
    std::vector<Span> busy_lines;          ///< UID, DTSTAMP, DTSTART, DTEND, DUE, TRANSP (as written, folded)
};

/** @brief The calendar cut into header (with VTIMEZONEs), items and footer. */
struct FeedIndex {
    Span header;                    ///< BEGIN:VCALENDAR, calendar properties and VTIMEZONEs
    Span caldesc;                   ///< the X-WR-CALDESC line in the header; empty if there is none
    std::vector<IndexedItem> items; ///< in calendar order
    Span footer;                    ///< END:VCALENDAR
    std::size_t bytes() const;      ///< approximate memory held, for the cache's accounting
};

/** @brief A TEXT value unescaped (RFC 5545 3.3.11): `\\n` is a line break, `\\,` `\\;` `\\\\` the character.
 */
std::string unescape_text(std::string_view value);

/** @brief A-Z to a-z; category names are compared this way (they are mostly ASCII words). */
std::string ascii_lower(std::string_view s);

/**
 * @brief Indexes a calendar icsbridge rendered (one property or BEGIN/END per logical line, CRLF,
 * folded continuation lines starting with a space). Anything unexpected (no VCALENDAR, an item
 * left open) gives nullopt: the caller then refuses views rather than serve a wrong one.
 */
std::optional<FeedIndex> index_calendar(std::string_view body);

} // namespace icsbridge::views
