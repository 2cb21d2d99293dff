// File: events_json_test.cpp
// The events API parsers on real payloads (UPSTREAM.md part 1), quirky fields, and the error mapping.
#include "sources/events_json.hpp"
#include "sources/json_read.hpp"
#include "sources/upstream_call.hpp"
#include "sources/upstream_error.hpp"
#include "support/fixtures.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>

using namespace icsbridge;
using icsbridge::test::read_fixture;
using namespace std::chrono_literals;

namespace events_json_test {

sys_seconds utc(int y, unsigned mo, unsigned d, int h, int mi, int s = 0) {
    return std::chrono::sys_days{std::chrono::year{y} / mo / d} + std::chrono::hours{h} +
           std::chrono::minutes{mi} + std::chrono::seconds{s};
}

// A minimal valid event with one member replaced, to point at one field at a time.
std::string page_with_third_event(std::string const& start) {
    std::string ok =
        R"({"id":"1","name":{"text":"a"},"start":{"local":"2020-01-01T10:00:00","utc":"2020-01-01T09:00:00Z"},)"
        R"("end":{"local":"2020-01-01T11:00:00","utc":"2020-01-01T10:00:00Z"}})";
    std::string bad = R"({"id":"3","name":{"text":"c"},"start":)" + start +
                      R"(,"end":{"local":"2020-01-01T11:00:00","utc":"2020-01-01T10:00:00Z"}})";
    return R"({"events":[)" + ok + "," + ok + "," + ok + "," + bad + "]}";
}

} // namespace events_json_test

BOOST_AUTO_TEST_SUITE(events_json_test)

BOOST_AUTO_TEST_CASE(search_payload_reads_events_and_ignores_top_match_events) {
    // Run
    auto page = parse_events_page(read_fixture("events/search_fx_srch.json"));

    // Check
    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST_REQUIRE(page->events.size() == 1u);
    auto const& e = page->events[0];
    BOOST_TEST(e.id == "46990677381");
    BOOST_TEST(e.name == "Michael Nau & The Mighty Thread (Cotton Jones) @ Cafe du Nord");
    BOOST_TEST(e.start.timezone == "America/Los_Angeles");
    BOOST_TEST((e.start.local == LocalDateTime{2018, 10, 16, 19, 30, 0}));
    BOOST_TEST((e.start.utc == utc(2018, 10, 17, 2, 30)));
    BOOST_TEST((e.end.utc == utc(2018, 10, 17, 13, 0)));
    BOOST_TEST((e.changed == utc(2018, 7, 26, 18, 36, 54)));
    BOOST_TEST(e.description_html.find("<P>Michael Nau returns") == 0u);
    BOOST_TEST(e.category_id == "103");
    BOOST_TEST((e.is_free == false));
    BOOST_TEST(!e.venue.has_value());
    // No expand was sent with that request, so the client must complete the event.
    BOOST_TEST((page->incomplete == std::vector<bool>{true}));
    BOOST_TEST((page->pagination.object_count == 1u));
    BOOST_TEST((page->pagination.has_more_items == false));
    BOOST_TEST(page->pagination.continuation.empty());
}

BOOST_AUTO_TEST_CASE(expanded_event_reads_venue_organizer_and_prices) {
    auto e = parse_event_body(read_fixture("events/event_expanded_fona.json"));

    BOOST_TEST_REQUIRE(e.has_value());
    BOOST_TEST(e->name == "March 19, 20, & 21  - Full Moon Hikes");
    BOOST_TEST(e->summary == "Guided night hike under the full moon at the U.S. National Arboretum.");
    BOOST_TEST((e->published == utc(2018, 12, 18, 20, 41, 12)));
    BOOST_TEST_REQUIRE(e->venue.has_value());
    BOOST_TEST(e->venue->id == "27665366");
    BOOST_TEST(e->venue->name == "24th & R St NE / National Arboretum");
    BOOST_TEST(e->venue->address == "R Street Northeast, Washington, DC 20002");
    BOOST_TEST_REQUIRE(e->venue->latitude.has_value());
    BOOST_TEST(*e->venue->latitude == 38.9126307, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*e->venue->longitude == -76.97188589999996, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(e->organizer_name == "The Friends of the National Arboretum");
    BOOST_TEST(
        e->organizer_url == "https://www.eventbrite.com/o/the-friends-of-the-national-arboretum-13276552841"
    );
    BOOST_TEST_REQUIRE(e->min_price.has_value());
    BOOST_TEST(e->min_price->minor == 1500);
    BOOST_TEST(e->min_price->major_value == "15.00");
    BOOST_TEST(e->min_price->currency == "USD");
    BOOST_TEST(e->max_price->minor == 2000);
    BOOST_TEST((e->sold_out == false));
    BOOST_TEST(!e->cancelled());
}

BOOST_AUTO_TEST_CASE(quirky_fields_are_read_tolerantly) {
    auto page = parse_events_page(read_fixture("events/quirky_events.json"));

    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST_REQUIRE(page->events.size() == 3u);
    BOOST_TEST((page->pagination.object_count == 3u));
    BOOST_TEST((page->pagination.page_number == 1));

    auto const& ars = page->events[0];
    BOOST_TEST(ars.id == "50607739110"); // a number on the wire
    BOOST_TEST(ars.description_html.empty());
    BOOST_TEST(!ars.changed.has_value()); // "not a date" is dropped, not fatal
    BOOST_TEST(!ars.published.has_value());
    BOOST_TEST((ars.is_free == false));        // "0"
    BOOST_TEST((ars.sold_out == true));        // 1
    BOOST_TEST(ars.min_price->minor == 15000); // "15000"
    BOOST_TEST(!ars.max_price.has_value());
    BOOST_TEST_REQUIRE(ars.venue.has_value());
    BOOST_TEST(ars.venue->id == "26447893");
    BOOST_TEST(ars.venue->address == "Av. Corrientes 1234, Buenos Aires, CABA, C1043, AR");
    BOOST_TEST(*ars.venue->latitude == -34.6037, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*ars.venue->longitude == -58.3816, boost::test_tools::tolerance(1e-9));

    auto const& online = page->events[1];
    BOOST_TEST(online.name == "Online: \u4f1a\u8b70 \U0001F389, with; commas\\backslash");
    BOOST_TEST(online.online);
    BOOST_TEST(online.cancelled());
    BOOST_TEST(online.end.timezone.empty());
    BOOST_TEST((online.start.local == LocalDateTime{2021, 3, 28, 1, 30, 0}));
    BOOST_TEST((online.start.utc == utc(2021, 3, 27, 20, 0)));

    BOOST_TEST((page->incomplete == (std::vector<bool>{false, true, true})));
}

BOOST_AUTO_TEST_CASE(malformed_required_field_names_its_json_path) {
    auto r = parse_events_page(page_with_third_event(R"({"local":"2020-01-01T10:00:00","utc":"yesterday"})"));
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_malformed));
    BOOST_TEST(r.error().message == "events[3].start.utc is not a date-time");

    r = parse_events_page(page_with_third_event(R"({"utc":"2020-01-01T09:00:00Z"})"));
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == "events[3].start.local is missing");

    // A utc value without its zone designator is not an instant.
    r = parse_events_page(
        page_with_third_event(R"({"local":"2020-01-01T10:00:00","utc":"2020-01-01T09:00:00"})")
    );
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == "events[3].start.utc is not a date-time");

    r = parse_events_page(R"({"events":[{"name":{"text":"x"}}]})");
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == "events[0].id is missing");

    r = parse_events_page(R"({"events":[{"id":"1","name":{"text":null,"html":null}}]})");
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == "events[0].name.text is missing");

    r = parse_events_page(R"({"pagination":{}})");
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == "events is missing");

    r = parse_events_page("<html>502 Bad Gateway</html>");
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_malformed));
    BOOST_TEST(r.error().message.find("not JSON") == 0u);
}

BOOST_AUTO_TEST_CASE(pagination_with_a_continuation_token) {
    auto page =
        parse_events_page(R"({"pagination":{"object_count":123,"page_number":2,"page_size":50,"page_count":3,
        "has_more_items":true,"continuation":"AEtFRy"},"events":[]})");
    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST(page->events.empty());
    BOOST_TEST(page->pagination.continuation == "AEtFRy");
    BOOST_TEST((page->pagination.page_count == 3));
    BOOST_TEST((page->pagination.has_more_items == true));
}

BOOST_AUTO_TEST_CASE(organization_listing_and_its_discovery) {
    auto orgs = parse_organizations_page(read_fixture("events/organizations.json"));
    BOOST_TEST_REQUIRE(orgs.has_value());
    BOOST_TEST((orgs->ids == std::vector<std::string>{"207140026882"}));

    auto page = parse_events_page(read_fixture("events/organization_events_gbe.json"));
    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST_REQUIRE(page->events.size() == 1u);
    // Always the `id` member, never the id inside url/resource_uri (they disagree in this payload).
    BOOST_TEST(page->events[0].id == "12122222111111");
    BOOST_TEST(page->events[0].summary == "The Test Burlesque Expo");
}

BOOST_AUTO_TEST_CASE(ticket_classes_free_and_paid) {
    auto page = parse_ticket_classes_page(read_fixture("events/ticket_classes_gbe.json"));
    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST_REQUIRE(page->ticket_classes.size() == 2u);
    auto const& paid = page->ticket_classes[0];
    BOOST_TEST(paid.id == "278648077");
    BOOST_TEST(paid.name == "Regular Price");
    BOOST_TEST(!paid.free);
    BOOST_TEST_REQUIRE(paid.cost.has_value());
    BOOST_TEST(paid.cost->minor == 10000);
    BOOST_TEST(paid.cost->currency == "USD");
    auto const& free = page->ticket_classes[1];
    BOOST_TEST(free.free);
    BOOST_TEST(!free.cost.has_value());
    BOOST_TEST(page->pagination.continuation.empty()); // null on the wire
}

BOOST_AUTO_TEST_CASE(instants_with_offsets_and_fractions) {
    BOOST_TEST((jsonr::parse_instant("2015-10-16T17:57:01-05:00") == utc(2015, 10, 16, 22, 57, 1)));
    BOOST_TEST((jsonr::parse_instant("2021-03-28T01:30:00+0530") == utc(2021, 3, 27, 20, 0)));
    BOOST_TEST((jsonr::parse_instant("2018-07-02T18:14:06.123Z") == utc(2018, 7, 2, 18, 14, 6)));
    BOOST_TEST(!jsonr::parse_instant("2018-02-30T10:00:00Z").has_value());
    BOOST_TEST(!jsonr::parse_instant("2018-07-02T18:14:06Zjunk").has_value());
    BOOST_TEST(!jsonr::parse_local_datetime("2018-07-02T24:00:00").has_value());
    BOOST_TEST(jsonr::format_local(jsonr::to_local(utc(2024, 2, 29, 23, 5, 9))) == "2024-02-29T23:05:09");
}

BOOST_AUTO_TEST_CASE(error_bodies_map_to_clear_errors) {
    auto e = upstream_error(
        401,
        R"({"status_code": 401, "error": "NO_AUTH", "error_description": "An OAuth token is required for all requests"})",
        Api::events,
        "/v3/users/me/events/"
    );
    BOOST_TEST((e.code == errc::upstream_auth));
    BOOST_TEST(e.message.find("events API rejected the token (401 NO_AUTH)") == 0u);

    // INVALID_AUTH is a 400, not a 401.
    e = upstream_error(400, R"({"status_code": 400, "error": "INVALID_AUTH"})", Api::events, "/v3/x/");
    BOOST_TEST((e.code == errc::upstream_auth));
    BOOST_TEST(e.message == "events API rejected the token (400 INVALID_AUTH)");

    e = upstream_error(
        403,
        R"({"error_description": "This user is not able to use legacy user endpoints, please use the organization equivalent.", "status_code": 403, "error": "NOT_AUTHORIZED"})",
        Api::events,
        "/v3/users/me/events/"
    );
    BOOST_TEST((e.code == errc::upstream_auth));
    BOOST_TEST(e.message.find("403 NOT_AUTHORIZED") != std::string::npos);
    BOOST_TEST(e.message.find(R"(select = "organization")") != std::string::npos);

    e = upstream_error(404, R"({"error": "NOT_FOUND"})", Api::events, "/v3/events/search/");
    BOOST_TEST((e.code == errc::upstream_not_found));
    BOOST_TEST(e.message.find("shut down in December 2019") != std::string::npos);

    e = upstream_error(
        429,
        R"({"error": "HIT_RATE_LIMIT", "error_description": "Hourly rate limit"})",
        Api::events,
        "/v3/e/"
    );
    BOOST_TEST((e.code == errc::upstream_rate_limited));
    BOOST_TEST(
        e.message == "events API rate limit reached (429 HIT_RATE_LIMIT) for GET /v3/e/: Hourly rate limit"
    );

    // Not the documented envelope: no upstream text in the message, just the status.
    e = upstream_error(502, "<html><body>Bad\r\nGateway</body></html>", Api::events, "/v3/users/me/events/");
    BOOST_TEST((e.code == errc::upstream_status));
    BOOST_TEST(e.message == "events API answered 502 for GET /v3/users/me/events/");

    e = upstream_error(
        400,
        R"({"error":"BAD_PAGE","error_description":"Page\r\n   number does not exist"})",
        Api::events,
        "/v3/e/"
    );
    BOOST_TEST((e.code == errc::upstream_status));
    BOOST_TEST(e.message == "events API answered 400 BAD_PAGE for GET /v3/e/: Page number does not exist");
}

BOOST_AUTO_TEST_CASE(request_urls_keep_the_base_prefix_and_encode_every_value) {
    boost::asio::io_context ioc;
    HttpClient http(ioc.get_executor(), ClientOptions{});
    SourceConfig src;
    src.base_url = "https://events.example.com/proxy/";
    src.secret = "the-token";
    Logger const log = null_logger();
    UpstreamCall const call(src, http, log, Api::events);

    Query const q{
        {"q", "rust & c++"},
        {"location.address", "San Francisco, CA"},
        {"expand", "venue,organizer"}};
    BOOST_TEST(
        call.url("/v3/events/search/", q) ==
        "https://events.example.com/proxy/v3/events/search/"
        "?q=rust%20%26%20c%2B%2B&location.address=San%20Francisco,%20CA&expand=venue,organizer"
    );
    // The bearer token travels in a header, never in the URL.
    BOOST_TEST(
        call.url("/v3/users/me/events/", {}) == "https://events.example.com/proxy/v3/users/me/events/"
    );
    BOOST_TEST(path_segment("a/b c") == "a%2Fb%20c");
    BOOST_TEST(scrub_secret("x the-token y the-token", src.secret) == "x *** y ***");
}

BOOST_AUTO_TEST_SUITE_END()
