// File: snapshot_check.cpp
// The shape and hash check every kept calendar passes before it is served.
#include <icsbridge/digest.hpp>
#include <icsbridge/store.hpp>

namespace icsbridge {

std::string kept_body_defect(std::string_view body, std::string_view etag) {
    // The envelope first: a foreign body (an HTML page, JSON, another program's data) whose writer
    // computed a matching hash is still not a calendar a subscriber's app can read.
    constexpr std::string_view head = "BEGIN:VCALENDAR\r\n";
    constexpr std::string_view tail = "END:VCALENDAR\r\n";
    if (body.size() < head.size() + tail.size() || !body.starts_with(head) || !body.ends_with(tail))
        return "is not an iCalendar stream (BEGIN:VCALENDAR ... END:VCALENDAR)";
    if (make_etag(body) != etag)
        return "does not match its ETag";
    return {};
}

} // namespace icsbridge
