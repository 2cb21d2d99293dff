// File: push_shared_items_test.cpp
// The items a feed's writers share (issue 39): shaped once per snapshot, view and kind of calendar, one copy
// for every writer; a new snapshot or a publication replaces the copy while its holders keep theirs; each
// writer's names and hashes are its own, the hashes those of the very bytes it writes (as before sharing).
#include "push/calendar_api.hpp"
#include "push/event_json.hpp"
#include "push/shared_items.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace icsbridge::push;

namespace push_shared_items_test {

/** A feed's calendar of two events, the first named `summary`, with CRLF line ends as rendered. */
std::shared_ptr<std::string const> calendar(std::string const& summary) {
    std::string text;
    for (std::string_view line :
         {"BEGIN:VCALENDAR",
          "VERSION:2.0",
          "PRODID:-//icsbridge//EN",
          "BEGIN:VEVENT",
          "UID:event-1@icsbridge",
          "DTSTAMP:20260101T000000Z",
          "DTSTART:20260301T190000Z",
          "SUMMARY:",
          "URL:https://events.example/e/1",
          "END:VEVENT",
          "BEGIN:VEVENT",
          "UID:event-2@icsbridge",
          "DTSTAMP:20260101T000000Z",
          "DTSTART;VALUE=DATE:20260302",
          "SUMMARY:All day",
          "END:VEVENT",
          "END:VCALENDAR"})
        text += std::string(line) + (line == "SUMMARY:" ? summary : "") + "\r\n";
    return std::make_shared<std::string const>(std::move(text));
}

/** Google's adapter for the writer `name` (nothing is sent: only its shaping is asked). */
struct Google {
    boost::asio::io_context ioc;
    std::unique_ptr<CalendarApi> api;
    explicit Google(std::string name) {
        TargetConfig t;
        t.name = std::move(name);
        t.type = TargetType::google;
        t.api_base = "https://www.googleapis.com/calendar/v3";
        api = google_api(ioc.get_executor(), t, null_logger(), Authorizer{});
    }
};

/** The Google event id of one of our names: its hex digits. */
std::string id_of(std::string const& name) {
    std::string id;
    for (char c : name.substr(owned_prefix.size(), name.size() - owned_prefix.size() - 4))
        if (c != '-')
            id += c;
    return id;
}

constexpr std::chrono::sys_days today{std::chrono::year{2026} / 2 / 1};

} // namespace push_shared_items_test

BOOST_AUTO_TEST_SUITE(push_shared_items_test)

BOOST_AUTO_TEST_CASE(writers_of_one_snapshot_share_one_copy_until_it_is_replaced) {
    // Setup
    Google a("connection-a"), b("connection-b");
    SharedItems cache;
    auto const first = calendar("Jazz");
    std::vector<FeedCalendar> const feeds{{"pub", first, *first, ""}};
    // Run the test
    auto one = cache.get(feeds, true, today, *a.api);
    auto two = cache.get(feeds, true, today, *b.api);
    BOOST_REQUIRE(one);
    BOOST_REQUIRE(two);
    // Check: one copy for both writers, with nothing of either in it
    BOOST_TEST(one->get() == two->get());
    BOOST_TEST((*one)->resources.size() == 2u);
    BOOST_TEST((*one)->resources[0].body.find("connection-a") == std::string::npos);
    BOOST_TEST(cache.size() == 1u);
    // A view or another kind of calendar is another copy; the next day too (a view's days=N moves).
    auto viewed = cache.get({{"pub", first, *first, "days=30"}}, true, today, *a.api);
    BOOST_REQUIRE(viewed);
    BOOST_TEST(viewed->get() != one->get());
    BOOST_TEST(cache.size() == 2u);
    auto tomorrow = cache.get(feeds, true, today + std::chrono::days(1), *a.api);
    BOOST_REQUIRE(tomorrow);
    BOOST_TEST(tomorrow->get() != one->get());
    // A new snapshot replaces the copy; a reconcile holding the old one keeps it whole.
    auto const moved = calendar("Jazz, moved");
    std::vector<FeedCalendar> const next{{"pub", moved, *moved, ""}};
    auto three = cache.get(next, true, today + std::chrono::days(1), *a.api);
    BOOST_REQUIRE(three);
    BOOST_TEST(three->get() != tomorrow->get());
    BOOST_TEST((*tomorrow)->resources.size() == 2u);
    BOOST_TEST((*three)->resources[0].body.find("moved") != std::string::npos);
    // A publication of the feed drops every copy made from it.
    cache.forget("other");
    BOOST_TEST(cache.size() == 2u);
    cache.forget("pub");
    BOOST_TEST(cache.size() == 0u);
}

BOOST_AUTO_TEST_CASE(each_writer_has_its_names_and_the_hash_of_the_bytes_it_writes) {
    // Setup
    Google a("connection-a"), b("connection-b");
    auto const jazz = calendar("Jazz");
    std::vector<FeedCalendar> const feeds{{"pub", jazz, *jazz, ""}};
    auto shared = shared_items(nullptr, feeds, true, today, *a.api);
    BOOST_REQUIRE(shared);
    // Run the test
    auto const mine = writer_items(**shared, *a.api, "connection-a", {}, {});
    auto const theirs = writer_items(**shared, *b.api, "connection-b", {}, {});
    // Check: names and hashes per writer, no body copied; the hash is that of the event the writer sends,
    // google_event() of the item with its id and mark, as before sharing (so states written then hold).
    auto const items = target_items(feeds, true, today);
    BOOST_REQUIRE(items);
    BOOST_REQUIRE(mine.size() == 2u);
    BOOST_REQUIRE(theirs.size() == 2u);
    for (std::size_t i = 0; i < mine.size(); ++i) {
        BOOST_TEST(mine[i].uid == (*shared)->resources[i].uid);
        BOOST_TEST(mine[i].name == resource_name(mine[i].uid, "connection-a"));
        BOOST_TEST(theirs[i].name == resource_name(mine[i].uid, "connection-b"));
        BOOST_TEST(mine[i].body.empty());
        auto const fields = event_fields(items->resources[i].body);
        BOOST_REQUIRE(fields);
        BOOST_TEST(mine[i].hash == hex_sha256(google_event(*fields, id_of(mine[i].name), "connection-a")));
        BOOST_TEST(
            theirs[i].hash == hex_sha256(google_event(*fields, id_of(theirs[i].name), "connection-b"))
        );
    }
    // An item the state names (written by an earlier version) keeps its name while the calendar lists it.
    Known const known{{mine[0].uid, Written{"icsbridge-0123456789abcdef0123456789abcdef.ics", "e1", "h"}}};
    Listing const listing{{"icsbridge-0123456789abcdef0123456789abcdef.ics", "e1"}};
    auto const adopted = writer_items(**shared, *a.api, "connection-a", known, listing);
    BOOST_TEST(adopted[0].name == "icsbridge-0123456789abcdef0123456789abcdef.ics");
    BOOST_TEST(adopted[1].name == mine[1].name);
}

BOOST_AUTO_TEST_SUITE_END()
