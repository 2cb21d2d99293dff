// File: push_resources_test.cpp
// split_calendar(): one VCALENDAR per UID with only the time zones its item names, no calendar-level
// name or method, the same bytes (and hash) for the same item, and VTODOs left out where not allowed.
#include "push/resources.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace icsbridge::push;

namespace push_resources_test {

std::string crlf(std::string_view text) {
    std::string out;
    for (char c : text)
        out += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return out;
}

std::string const calendar = crlf(R"(BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//icsbridge//EN
CALSCALE:GREGORIAN
X-WR-CALNAME:My events
BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:STANDARD
DTSTART:19701025T030000
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
END:STANDARD
END:VTIMEZONE
BEGIN:VTIMEZONE
TZID:America/New_York
BEGIN:STANDARD
DTSTART:19701101T020000
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
END:STANDARD
END:VTIMEZONE
BEGIN:VEVENT
UID:event-1@icsbridge
DTSTAMP:20260101T000000Z
DTSTART;TZID=Europe/Berlin:20260301T190000
DTEND;TZID=Europe/Berlin:20260301T210000
SUMMARY:Berlin meetup
END:VEVENT
BEGIN:VEVENT
UID:event-2@icsbridge
DTSTAMP:20260101T000000Z
DTSTART:20260302T170000Z
DTEND:20260302T180000Z
SUMMARY:Online
END:VEVENT
BEGIN:VTODO
UID:job-1@icsbridge
DTSTAMP:20260101T000000Z
DUE;VALUE=DATE:20260330
SUMMARY:Apply
END:VTODO
END:VCALENDAR
)");

Split split(bool todos) {
    auto index = views::index_calendar(calendar);
    BOOST_TEST_REQUIRE(index.has_value());
    return split_calendar(calendar, *index, todos);
}

} // namespace push_resources_test

BOOST_AUTO_TEST_SUITE(push_resources_test)

BOOST_AUTO_TEST_CASE(one_resource_per_uid_with_only_the_zones_it_names) {
    auto const s = split(true);
    BOOST_TEST_REQUIRE(s.resources.size() == 3u);
    auto const& berlin = s.resources[0];
    BOOST_TEST(berlin.uid == "event-1@icsbridge");
    BOOST_TEST(berlin.name.empty()); // named per writer by name_resources()
    BOOST_TEST(berlin.body.starts_with("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//icsbridge//EN\r\n"));
    BOOST_TEST(berlin.body.find("TZID:Europe/Berlin\r\n") != std::string::npos);
    BOOST_TEST(berlin.body.find("America/New_York") == std::string::npos);
    BOOST_TEST(berlin.body.find("X-WR-CALNAME") == std::string::npos);
    BOOST_TEST(berlin.body.find("event-2") == std::string::npos);
    BOOST_TEST(berlin.body.ends_with("END:VEVENT\r\nEND:VCALENDAR\r\n"));
    BOOST_TEST(s.resources[1].body.find("VTIMEZONE") == std::string::npos);
    BOOST_TEST(s.resources[2].body.find("BEGIN:VTODO") != std::string::npos);
    BOOST_TEST(s.skipped_todos == 0u);
}

BOOST_AUTO_TEST_CASE(the_same_item_gives_the_same_hash_and_a_change_another) {
    auto const a = split(true);
    auto const b = split(true);
    BOOST_TEST(a.resources[0].hash == b.resources[0].hash);
    BOOST_TEST(a.resources[0].hash.size() == 64u);
    BOOST_TEST(a.resources[0].hash != a.resources[1].hash);
}

BOOST_AUTO_TEST_CASE(vtodos_are_skipped_and_counted_where_the_calendar_takes_none) {
    auto const s = split(false);
    BOOST_TEST(s.resources.size() == 2u);
    BOOST_TEST(s.skipped_todos == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
