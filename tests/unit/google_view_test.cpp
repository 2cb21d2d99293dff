// File: google_view_test.cpp
// The google view (`?for=google`, issue 28): a 10,000-event feed with HTML descriptions and reminders cut
// to under 900 KB, nearest items first, no VALARM or X-ALT-DESC, and a description that says what was left
// out; written out for python3-icalendar and ical.js (python.check_view_google, js.check_view_google).
#include "views/view.hpp"
#include <icsbridge/ical.hpp>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <boost/url/parse.hpp>

#include <fstream>

using namespace icsbridge;
using namespace std::chrono;

namespace google_view_test {

struct LibicalFixture {
    LibicalFixture() { init_libical(); }
};

sys_days const today = sys_days{2026y / December / 1};
std::string const full_url = "https://cal.example.org/feeds/big.ics";

Result<views::ViewParams> params(std::string const& query) {
    std::string const target = "/feeds/big.ics?" + query; // the url_view points into it
    auto u = boost::urls::parse_origin_form(target);
    BOOST_REQUIRE(u);
    return views::parse_view_params(u->params(), today);
}

/** The view `query` of `body`, linking full_url. */
views::ViewText google_view(std::string const& body, std::string const& query) {
    auto idx = views::index_calendar(body);
    BOOST_REQUIRE(idx);
    auto p = params(query);
    BOOST_REQUIRE_MESSAGE(p, query);
    p->full_url = full_url;
    return views::build_view(body, *idx, *p);
}

/** 10,000 events three hours apart from 30 days before `today`, each with ~1 KB of HTML. */
std::string big_calendar() {
    std::vector<Event> events;
    std::string const para = "<p>Bring <b>your laptop</b> &amp; a friend. We talk about "
                             "<a href=\"https://example.org/more\">what is new</a> in the field, then "
                             "work through examples together.</p>";
    std::string html;
    while (html.size() < 1000)
        html += para;
    sys_seconds const first = sys_seconds(today - days(30)) + hours(9);
    for (int i = 0; i < 10000; ++i) {
        Event e;
        e.id = std::to_string(100000 + i);
        e.name = "Meetup number " + std::to_string(i);
        e.description_html = html;
        e.url = "https://events.example.com/e/" + e.id;
        sys_seconds const start = first + hours(3) * i;
        std::string const zone = i % 2 ? "Europe/Berlin" : "UTC";
        e.start = {zone, {}, start};
        e.end = {zone, {}, start + hours(2)};
        e.status = "live";
        e.venue = Venue{"v1", "The Hall", "1 Main St, Springfield", 40.5, -73.25};
        events.push_back(std::move(e));
    }
    CalendarMeta meta;
    meta.feed_name = "big";
    meta.title = "Big, busy calendar";
    meta.uid_domain = "events.example.com";
    EventRenderOptions opts;
    opts.alarm = minutes(30);
    auto ics = render_events(meta, events, opts);
    BOOST_REQUIRE_MESSAGE(ics, (ics ? "" : ics.error().message));
    return *ics;
}

std::size_t count(std::string_view text, std::string_view what) {
    std::size_t n = 0;
    for (auto p = text.find(what); p != std::string_view::npos; p = text.find(what, p + 1))
        ++n;
    return n;
}

std::string unfolded(std::string s) {
    for (auto p = s.find("\r\n "); p != std::string::npos; p = s.find("\r\n ", p))
        s.erase(p, 3);
    return s;
}

} // namespace google_view_test

BOOST_FIXTURE_TEST_SUITE(google_view_test, LibicalFixture)

BOOST_AUTO_TEST_CASE(for_google_is_from_today_and_strict) {
    auto p = params("for=google");
    BOOST_TEST_REQUIRE(p.has_value());
    BOOST_TEST(p->google);
    BOOST_TEST(!p->empty());
    BOOST_TEST((p->from == today));
    BOOST_TEST(!p->to);
    BOOST_TEST(p->uses_today);
    auto chosen = params("for=google&from=2026-11-01");
    BOOST_TEST_REQUIRE(chosen.has_value());
    BOOST_TEST((chosen->from == sys_days{2026y / November / 1}));
    // Reminders never reach Google: an alarm does not make another google view.
    BOOST_TEST(params("for=google&alarm=30m")->key() == p->key());
    auto bad = params("for=outlook");
    BOOST_TEST_REQUIRE(!bad.has_value());
    BOOST_TEST(bad.error().message == "invalid for: expected google");
}

BOOST_AUTO_TEST_CASE(a_ten_thousand_event_feed_fits_google) {
    std::string const body = big_calendar();
    BOOST_TEST_REQUIRE(body.size() > 10'000'000u); // what Google drops today
    auto const v = google_view(body, "for=google");

    BOOST_TEST(v.body.size() < views::google_view_limit);
    BOOST_TEST(v.body.size() > views::google_view_limit - 20'000); // filled, not half empty
    BOOST_TEST(count(v.body, "BEGIN:VALARM") == 0u);
    BOOST_TEST(count(v.body, "X-ALT-DESC") == 0u);
    BOOST_TEST(count(v.body, "BEGIN:VEVENT") == v.items);
    BOOST_TEST(count(v.body, "DESCRIPTION:Bring your laptop") == v.items); // the plain text stays

    // From today on (events 237.. start on or after it), the nearest kept, the farthest left out.
    std::size_t const from_today = 10000 - 237;
    BOOST_TEST_REQUIRE(v.items > 100u);
    BOOST_TEST_REQUIRE(v.items < from_today);
    BOOST_TEST(v.body.find("UID:event-100236@") == std::string::npos); // ended yesterday
    BOOST_TEST(v.body.find("UID:event-100237@") != std::string::npos);
    BOOST_TEST(v.body.find("UID:event-" + std::to_string(100237 + v.items - 1) + "@") != std::string::npos);
    BOOST_TEST(v.body.find("UID:event-" + std::to_string(100237 + v.items) + "@") == std::string::npos);

    std::string const text = unfolded(v.body);
    std::string const left_out = std::to_string(from_today - v.items);
    BOOST_TEST(count(text, "X-WR-CALDESC:") == 1u);
    BOOST_TEST(
        text.find(
            "\\n\\n" + left_out +
            " later items are left out so that Google Calendar takes this calendar (it drops calendars over "
            "about 1 MB). The full calendar: " +
            full_url + "\r\n"
        ) != std::string::npos,
        text.substr(0, 600)
    );

    // What python3-icalendar and vobject (python.check_view_google) and ical.js (js.check_view_google)
    // must find in it.
    std::string const base = std::string(ICSBRIDGE_BINARY_DIR) + "/view_google";
    std::ofstream(base + ".ics", std::ios::binary) << v.body;
    boost::json::object expect{
        {"count", v.items},
        {"valarms", 0},
        {"forbidden", boost::json::array{"X-ALT-DESC", "BEGIN:VALARM", "UID:event-100236@"}}};
    std::ofstream(base + ".expect.json") << boost::json::serialize(expect);
}

BOOST_AUTO_TEST_CASE(a_view_that_fits_keeps_every_item_and_its_description) {
    auto const small = google_view(big_calendar(), "from=2027-12-01&to=2027-12-03&for=google");
    BOOST_TEST(small.items == 24u); // eight a day, none left out
    BOOST_TEST(count(small.body, "BEGIN:VALARM") == 0u);
    BOOST_TEST(count(small.body, "X-ALT-DESC") == 0u);
    BOOST_TEST(small.body.find("left out") == std::string::npos);
    BOOST_TEST(small.body.find("X-WR-CALDESC:Events from Big") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(google_gets_the_view_only_when_the_feed_is_too_big) {
    std::string const ua = "Google-Calendar-Importer";
    BOOST_TEST(views::google_wants_smaller(ua, views::google_view_limit + 1));
    BOOST_TEST(!views::google_wants_smaller(ua, views::google_view_limit));
    BOOST_TEST(!views::google_wants_smaller("Mozilla/5.0", 50'000'000));
    BOOST_TEST(views::google_size_warning(999'999).empty());
    BOOST_TEST(
        views::google_size_warning(23'400'000).starts_with("the calendar is 23.4 MB: Google Calendar drops")
    );
}

BOOST_AUTO_TEST_SUITE_END()
