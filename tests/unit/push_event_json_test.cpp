// File: push_event_json_test.cpp
// One item as Google's and Graph's event JSON: wall time and zone for Google, UTC for Graph, all-day dates
// with an exclusive end, a job post (VTODO) as an all-day event on its due date, the URL in the text once,
// the alarm as a reminder, a cancelled event shown free, ownership marked, a TZID that is a path no zone.
#include "push/event_json.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace icsbridge::push;
namespace json = boost::json;

namespace push_event_json_test {

std::string crlf(std::string_view text) {
    std::string out;
    for (char c : text)
        out += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return out;
}

std::string calendar(std::string_view item) {
    return crlf(
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//icsbridge//EN\n" + std::string(item) + "END:VCALENDAR\n"
    );
}

std::string const timed = calendar(R"(BEGIN:VEVENT
UID:event-1@icsbridge
DTSTAMP:20261101T000000Z
DTSTART;TZID=Europe/Berlin:20261201T180000
DTEND;TZID=Europe/Berlin:20261201T203000
SUMMARY:Jazz\, live
DESCRIPTION:Line one\nLine two
LOCATION:Club
URL:https://events.example/e/1
STATUS:CONFIRMED
BEGIN:VALARM
ACTION:DISPLAY
DESCRIPTION:Reminder
TRIGGER:-PT30M
END:VALARM
END:VEVENT
)");

json::object parse(std::string const& text) {
    return json::parse(text).as_object();
}

} // namespace push_event_json_test

BOOST_AUTO_TEST_SUITE(push_event_json_test)

BOOST_AUTO_TEST_CASE(timed_event_keeps_its_zone_for_google_and_is_utc_for_graph) {
    auto f = event_fields(timed);
    BOOST_REQUIRE(f);
    BOOST_TEST(f->summary == "Jazz, live");
    BOOST_TEST(f->description == "Line one\nLine two\n\nhttps://events.example/e/1");
    auto g = parse(google_event(*f, "0123456789abcdef0123456789abcdef", "office"));
    BOOST_TEST(g.at("start").at("dateTime").as_string() == "2026-12-01T18:00:00");
    BOOST_TEST(g.at("start").at("timeZone").as_string() == "Europe/Berlin");
    BOOST_TEST(g.at("end").at("dateTime").as_string() == "2026-12-01T20:30:00");
    BOOST_TEST(g.at("iCalUID").as_string() == "event-1@icsbridge");
    BOOST_TEST(g.at("id").as_string() == "0123456789abcdef0123456789abcdef");
    BOOST_TEST(g.at("extendedProperties").at("private").at("icsbridge").as_string() == "office");
    BOOST_TEST(g.at("reminders").at("overrides").at(0).at("minutes").as_int64() == 30);
    BOOST_TEST(g.at("source").at("url").as_string() == "https://events.example/e/1");
    BOOST_TEST(g.at("transparency").as_string() == "opaque");
    auto m = parse(graph_event(*f));
    // Berlin is UTC+1 in December.
    BOOST_TEST(m.at("start").at("dateTime").as_string() == "2026-12-01T17:00:00");
    BOOST_TEST(m.at("start").at("timeZone").as_string() == "UTC");
    BOOST_TEST(m.at("end").at("dateTime").as_string() == "2026-12-01T19:30:00");
    BOOST_TEST(m.at("subject").as_string() == "Jazz, live");
    BOOST_TEST(m.at("isAllDay").as_bool() == false);
    BOOST_TEST(m.at("reminderMinutesBeforeStart").as_int64() == 30);
    BOOST_TEST(m.at("showAs").as_string() == "busy");
}

BOOST_AUTO_TEST_CASE(job_post_becomes_an_all_day_event_on_its_due_date) {
    auto f = event_fields(calendar(R"(BEGIN:VTODO
UID:job-7@icsbridge
DTSTAMP:20261101T000000Z
DTSTART;VALUE=DATE:20261130
DUE;VALUE=DATE:20261231
SUMMARY:Senior designer
URL:https://jobs.example/7
END:VTODO
)"));
    BOOST_REQUIRE(f);
    BOOST_TEST(f->task);
    auto g = parse(google_event(*f, "fedcba9876543210fedcba9876543210", "office"));
    BOOST_TEST(g.at("start").at("date").as_string() == "2026-12-31");
    BOOST_TEST(g.at("end").at("date").as_string() == "2027-01-01");
    BOOST_TEST(g.at("transparency").as_string() == "transparent");
    BOOST_TEST(g.at("description").as_string() == "https://jobs.example/7");
    auto m = parse(graph_event(*f));
    BOOST_TEST(m.at("isAllDay").as_bool());
    BOOST_TEST(m.at("start").at("dateTime").as_string() == "2026-12-31T00:00:00");
    BOOST_TEST(m.at("end").at("dateTime").as_string() == "2027-01-01T00:00:00");
    BOOST_TEST(m.at("showAs").as_string() == "free");
}

BOOST_AUTO_TEST_CASE(utc_and_cancelled_event) {
    auto f = event_fields(calendar(R"(BEGIN:VEVENT
UID:event-2@icsbridge
DTSTAMP:20261101T000000Z
DTSTART:20260701T100000Z
SUMMARY:Cancelled: Picnic
DESCRIPTION:See https://events.example/e/2
URL:https://events.example/e/2
STATUS:CANCELLED
END:VEVENT
)"));
    BOOST_REQUIRE(f);
    BOOST_TEST(f->description == "See https://events.example/e/2"); // the URL is there already
    auto g = parse(google_event(*f, "0123456789abcdef0123456789abcdef", "office"));
    BOOST_TEST(g.at("start").at("dateTime").as_string() == "2026-07-01T10:00:00Z");
    BOOST_TEST(g.at("end").at("dateTime").as_string() == "2026-07-01T10:00:00Z"); // no DTEND: zero length
    BOOST_TEST(g.at("transparency").as_string() == "transparent");
    BOOST_TEST(g.at("reminders").as_object().contains("overrides") == false);
    auto m = parse(graph_event(*f));
    BOOST_TEST(m.at("isReminderOn").as_bool() == false);
}

BOOST_AUTO_TEST_CASE(all_day_event_and_a_calendar_without_an_item) {
    auto f = event_fields(calendar(R"(BEGIN:VEVENT
UID:event-3@icsbridge
DTSTAMP:20261101T000000Z
DTSTART;VALUE=DATE:20261224
DTEND;VALUE=DATE:20261227
SUMMARY:Holidays
END:VEVENT
)"));
    BOOST_REQUIRE(f);
    auto g = parse(google_event(*f, "0123456789abcdef0123456789abcdef", "office"));
    BOOST_TEST(g.at("start").at("date").as_string() == "2026-12-24");
    BOOST_TEST(g.at("end").at("date").as_string() == "2026-12-27");
    BOOST_TEST(g.contains("source") == false);
    auto none = event_fields(calendar(""));
    BOOST_REQUIRE(!none);
    BOOST_TEST(none.error().code == errc::render_failed);
}

BOOST_AUTO_TEST_CASE(a_tzid_that_is_a_path_is_no_zone) {
    // libical would open ZONEINFO_DIR/TZID: a name climbing out of it is refused by the one zone lookup
    // (ical::builtin_zone), here as for a feed's timezone and the agenda's ?tz=, and the time read as UTC.
    auto f = event_fields(calendar(R"(BEGIN:VEVENT
UID:event-4@icsbridge
DTSTAMP:20261101T000000Z
DTSTART;TZID=../../../../usr/share/zoneinfo/Europe/Berlin:20261201T180000
SUMMARY:Climbing
END:VEVENT
)"));
    BOOST_REQUIRE(f);
    BOOST_TEST(f->tzid == "");
    auto g = parse(google_event(*f, "0123456789abcdef0123456789abcdef", "office"));
    BOOST_TEST(g.at("start").at("dateTime").as_string() == "2026-12-01T18:00:00Z");
}

BOOST_AUTO_TEST_CASE(a_shared_google_event_with_a_writers_parts_is_that_writers_event_byte_for_byte) {
    // Setup: text that looks like the owner property, quotes and backslashes, a source link (the member
    // after the property), and an item without one.
    auto tricky = event_fields(calendar(R"(BEGIN:VEVENT
UID:event-4@icsbridge
DTSTAMP:20261101T000000Z
DTSTART:20260701T100000Z
SUMMARY:"icsbridge":""}} and a \\ backslash
DESCRIPTION:{"id":""
URL:https://events.example/e/"icsbridge":""}}
END:VEVENT
)"));
    auto plain = event_fields(calendar(R"(BEGIN:VEVENT
UID:event-5@icsbridge
DTSTAMP:20261101T000000Z
DTSTART;VALUE=DATE:20261224
SUMMARY:Holidays
END:VEVENT
)"));
    BOOST_REQUIRE(tricky);
    BOOST_REQUIRE(plain);
    for (auto const* f : {&*tricky, &*plain}) {
        // Run the test
        auto const shared = google_shared_event(*f);
        auto const mine = google_event_for(shared, "0123456789abcdef0123456789abcdef01234567", "office");
        auto const theirs = google_event_for(shared, "fedcba9876543210fedcba9876543210fedcba98", "con\"x");
        // Check: the bytes a writer wrote before (and their hash) come out again; nothing of one writer
        // is in the shared event.
        BOOST_TEST(mine == google_event(*f, "0123456789abcdef0123456789abcdef01234567", "office"));
        BOOST_TEST(theirs == google_event(*f, "fedcba9876543210fedcba9876543210fedcba98", "con\"x"));
        BOOST_TEST(shared.find("office") == std::string::npos);
        BOOST_TEST(
            parse(theirs).at("extendedProperties").at("private").at("icsbridge").as_string() == "con\"x"
        );
    }
    BOOST_TEST(google_event_for("{\"summary\":\"x\"}", "0123", "office").empty());
}

BOOST_AUTO_TEST_SUITE_END()
