// File: view_test.cpp
// The view builder on the golden calendars: exact item and reminder counts per parameter and their
// combinations, busy-only contents, bad parameters; each view is also written out (with what it must
// hold) for python.check_views, which parses it with python3-icalendar and vobject.
#include "server/agenda_page.hpp"
#include "server/index_page.hpp"
#include "support/server_fixtures.hpp"
#include "views/view.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/ical.hpp>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <boost/url/parse.hpp>

#include <fstream>
#include <sstream>

using namespace icsbridge;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(view_test)

namespace {

std::string golden(std::string const& name) {
    std::ifstream in(std::string(ICSBRIDGE_SOURCE_DIR) + "/tests/fixtures/golden/" + name, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

sys_days const today = sys_days{2026y / December / 1};

Result<views::ViewParams> params(std::string const& query) {
    std::string const target = "/feeds/x.ics?" + query; // the url_view points into it
    auto u = boost::urls::parse_origin_form(target);
    BOOST_REQUIRE(u);
    return views::parse_view_params(u->params(), today);
}

views::ViewText view(std::string const& body, std::string const& query) {
    auto idx = views::index_calendar(body);
    BOOST_REQUIRE(idx);
    auto p = params(query);
    BOOST_REQUIRE_MESSAGE(p, query);
    return views::build_view(body, *idx, *p);
}

std::size_t count(std::string_view text, std::string_view what) {
    std::size_t n = 0;
    for (auto p = text.find(what); p != std::string_view::npos; p = text.find(what, p + 1))
        ++n;
    return n;
}

/** Writes the view and its expectations for tests/python/check_ics.py (run by python.check_views). */
void write_for_python(std::string const& name, views::ViewText const& v, boost::json::object expect) {
    std::string const base = std::string(ICSBRIDGE_BINARY_DIR) + "/view_" + name;
    std::ofstream(base + ".ics", std::ios::binary) << v.body;
    expect["count"] = v.items;
    std::ofstream(base + ".expect.json") << boost::json::serialize(expect);
}

} // namespace

BOOST_AUTO_TEST_CASE(the_golden_calendars_are_indexed_whole) {
    auto const org = golden("organizer.ics");
    auto idx = views::index_calendar(org);
    BOOST_REQUIRE(idx);
    // 33 events and the cancelled one (shown with STATUS:CANCELLED, without an alarm).
    BOOST_TEST(idx->items.size() == 34u);
    BOOST_TEST(idx->header.begin == 0u);
    BOOST_TEST(idx->footer.of(org) == "END:VCALENDAR\r\n");
    // No parameters reproduce the feed byte for byte.
    BOOST_TEST(views::build_view(org, *idx, views::ViewParams{}).body == org);
    auto jobs = views::index_calendar(golden("jobs.ics"));
    BOOST_REQUIRE(jobs);
    BOOST_TEST(jobs->items.size() == 50u);
    BOOST_TEST(!views::index_calendar("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VCALENDAR\r\n"));
    BOOST_TEST(!views::index_calendar("not a calendar"));
}

BOOST_AUTO_TEST_CASE(alarm_none_and_alarm_duration) {
    auto const org = golden("organizer.ics");
    BOOST_TEST(count(org, "BEGIN:VALARM") == 33u);
    auto none = view(org, "alarm=none");
    BOOST_TEST(none.items == 34u);
    BOOST_TEST(count(none.body, "BEGIN:VALARM") == 0u);
    BOOST_TEST(count(none.body, "TRIGGER") == 0u);
    write_for_python("alarm_none", none, {{"valarms", 0}});

    auto half = view(org, "alarm=30m");
    BOOST_TEST(count(half.body, "BEGIN:VALARM") == 33u);
    BOOST_TEST(count(half.body, "TRIGGER:-PT30M\r\n") == 33u);
    write_for_python("alarm_30m", half, {{"valarms", 33}, {"trigger", "-PT30M"}});
    BOOST_TEST(count(view(org, "alarm=1d").body, "TRIGGER:-P1D\r\n") == 33u);
    BOOST_TEST(count(view(org, "alarm=1h30m").body, "TRIGGER:-PT1H30M\r\n") == 33u);
}

BOOST_AUTO_TEST_CASE(date_windows_keep_overlapping_items) {
    auto const org = golden("organizer.ics");
    auto dec = view(org, "from=2026-12-01&to=2026-12-31");
    BOOST_TEST(dec.items == 6u);
    write_for_python("december", dec, {{"valarms", 6}});
    // days=31 from today (2026-12-01) is the same window, so the same bytes.
    BOOST_TEST(view(org, "days=31").body == dec.body);
    BOOST_TEST(view(org, "from=2027-05-01").items == 0u);
    BOOST_TEST(view(org, "to=2026-11-19").items == 0u);
    // The first event runs from 2026-11-20 to 2027-01-06: a day in the middle of it overlaps it.
    BOOST_TEST(view(org, "from=2026-11-25&to=2026-11-25").items == 1u);
    // Job posts: the all-day VEVENT on its due date and each VTODO due that day or spanning it.
    auto const jobs = golden("jobs.ics");
    auto oct1 = view(jobs, "from=2026-10-01&to=2026-10-01");
    BOOST_TEST(oct1.items == 11u);
    write_for_python("jobs_oct1", oct1, {});
}

BOOST_AUTO_TEST_CASE(categories_match_any_case_insensitively) {
    auto const org = golden("organizer.ics");
    BOOST_TEST(view(org, "category=Music").items == 6u); // the cancelled jazz brunch included
    BOOST_TEST(view(org, "category=music&category=ARTS").items == 9u);
    BOOST_TEST(view(org, "category=Science%20%26%20Technology&from=2026-12-01&to=2026-12-31").items == 2u);
    BOOST_TEST(view(org, "category=nothing").items == 0u);
    auto remote = view(golden("jobs.ics"), "category=Remote");
    BOOST_TEST(remote.items == 8u);
    write_for_python("jobs_remote", remote, {});
}

BOOST_AUTO_TEST_CASE(busy_keeps_times_uid_transp_only) {
    auto org = golden("organizer.ics");
    // One cancelled event: nobody is busy at it, so the busy view leaves it out.
    auto at = org.find("STATUS:CONFIRMED");
    org.replace(at, 16, "STATUS:CANCELLED");
    auto busy = view(org, "detail=busy&alarm=30m");
    BOOST_TEST(busy.items == 32u);
    BOOST_TEST(count(busy.body, "SUMMARY:Busy\r\n") == 32u);
    BOOST_TEST(count(busy.body, "TRANSP:OPAQUE") == 32u);
    BOOST_TEST(
        count(busy.body, "\r\nDTSTART") ==
        32u + count(busy.body, "BEGIN:STANDARD") + count(busy.body, "BEGIN:DAYLIGHT")
    );
    for (std::string_view gone :
         {"DESCRIPTION", "\r\nLOCATION", "\r\nURL", "ORGANIZER", "CATEGORIES", "VALARM", "GEO", "STATUS"})
        BOOST_TEST(count(busy.body, gone) == 0u, gone);
    write_for_python(
        "busy",
        busy,
        {{"valarms", 0},
         {"forbidden",
          boost::json::array{"DESCRIPTION", "\r\nLOCATION", "ORGANIZER", "CATEGORIES", "VALARM", "GEO"}}}
    );
    auto jobs = view(golden("jobs.ics"), "detail=busy");
    BOOST_TEST(jobs.items == 50u);
    BOOST_TEST(count(jobs.body, "DUE;VALUE=DATE") == 25u);
    write_for_python("jobs_busy", jobs, {{"forbidden", boost::json::array{"DESCRIPTION", "Bazaarvoice"}}});
}

BOOST_AUTO_TEST_CASE(invalid_values_are_refused_with_one_line) {
    for (std::string q :
         {"alarm=soon",
          "alarm=",
          "alarm=40d",
          "from=yesterday",
          "from=2026-02-30",
          "to=2026-1-01",
          "days=0",
          "days=x",
          "days=9999",
          "detail=x",
          "from=2026-12-02&to=2026-12-01",
          "days=3&from=2026-12-01",
          "alarm=1h&alarm=2h",
          "category="}) {
        auto p = params(q);
        BOOST_TEST(!p, q);
        if (!p) {
            BOOST_TEST(p.error().message.find('\n') == std::string::npos);
            BOOST_TEST(p.error().message.starts_with("invalid "), p.error().message);
        }
    }
    // Unknown parameters (and the token) are not view parameters.
    auto p = params("token=x&utm_source=app&foo");
    BOOST_REQUIRE(p);
    BOOST_TEST(p->empty());
}

BOOST_AUTO_TEST_CASE(keys_are_normalised) {
    BOOST_TEST(
        params("category=B&category=a&alarm=60m")->key() == params("alarm=1h&category=A&category=b")->key()
    );
    BOOST_TEST(params("days=31")->key() == params("from=2026-12-01&to=2026-12-31")->key());
    BOOST_TEST(params("detail=busy&alarm=1h")->key() == params("detail=busy")->key());
    BOOST_TEST(params("alarm=none")->key() != params("alarm=1h")->key());
}

BOOST_AUTO_TEST_CASE(the_cache_builds_once_and_stays_bounded) {
    ViewCache cache(ViewCacheLimits{3, 2, 1u << 30});
    auto snap = make_snapshot(
        golden("organizer.ics"),
        33,
        sys_days{2026y / November / 1},
        sys_days{2026y / November / 1}
    );
    auto a1 = cache.get("org", snap, *params("alarm=none"), true);
    auto a2 = cache.get("org", snap, *params("alarm=none"), true);
    BOOST_REQUIRE(a1);
    BOOST_REQUIRE(a2);
    BOOST_TEST(*a1 == *a2); // the same built view, not a second build
    BOOST_TEST((*a1)->etag != snap->etag);
    BOOST_TEST(!(*a1)->gzip_body.empty());
    BOOST_TEST((*a1)->last_modified == snap->last_modified);
    auto s = cache.stats();
    BOOST_TEST(s.entries == 1u);
    BOOST_TEST(s.hits == 1u);
    BOOST_TEST(s.misses == 1u);
    BOOST_TEST(s.bytes > (*a1)->body.size());
    // Per feed at most 2: the least recently used view of the feed goes.
    (void)cache.get("org", snap, *params("alarm=1h"), true);
    (void)cache.get("org", snap, *params("category=music"), true);
    BOOST_TEST(cache.stats().entries == 2u);
    BOOST_TEST(cache.stats().evictions == 1u);
    // A days view moves at midnight, so its Last-Modified is at least today's midnight.
    auto d = cache.get("org", snap, *params("days=30"), true);
    BOOST_TEST((*d)->last_modified == sys_seconds(today));
    // A new snapshot of the feed: its old views are dropped, the new view is built from the new bytes.
    auto snap2 = make_snapshot(
        golden("search.ics"),
        4,
        sys_days{2026y / November / 2},
        sys_days{2026y / November / 2}
    );
    auto b = cache.get("org", snap2, *params("alarm=none"), true);
    BOOST_TEST((*b)->items == 4u);
    BOOST_TEST(cache.stats().entries == 1u);
    // Not a calendar: no view, an error.
    auto bad = make_snapshot("garbage", 0, sys_days{2026y / November / 2}, sys_days{2026y / November / 2});
    BOOST_TEST(!cache.get("x", bad, *params("alarm=none"), true));
}

BOOST_AUTO_TEST_CASE(agenda_lists_coming_items_by_day) {
    auto org = golden("organizer.ics");
    auto at = org.find("STATUS:CONFIRMED", org.find("Rust & Systems"));
    org.replace(at, 16, "STATUS:CANCELLED");
    auto idx = views::index_calendar(org);
    BOOST_REQUIRE(idx);
    AgendaPage page{"My <events>", "https://cal.example.org/feeds/x.ics", "", 300, {}, {}, {}, {}};
    auto html = agenda_page(*idx, page, sys_days{2026y / December / 1});
    BOOST_REQUIRE(html);
    // The first event runs until 2027-01-06, so all 34 are still coming on 2026-12-01.
    BOOST_TEST(count(*html, "<li") == 34u);
    // The one cancelled here, and the golden's own cancelled event (2027-01-10).
    BOOST_TEST(count(*html, "<li class=\"cancelled\">") == 2u);
    auto const cancelled = html->find("(cancelled)");
    BOOST_TEST((cancelled != std::string::npos && cancelled > html->find("Rust &amp; Systems")));
    BOOST_TEST(html->find("My &lt;events&gt;") != std::string::npos);
    BOOST_TEST(html->find("Times in America/Los_Angeles") != std::string::npos);
    BOOST_TEST(html->find("Thursday, 3 December 2026") != std::string::npos);
    BOOST_TEST(html->find("18:30–21:00") != std::string::npos); // Rust & Systems night, local time
    BOOST_TEST(html->find("<script") == std::string::npos);
    // Later: fewer coming; in Tokyo the same evening is the next morning.
    BOOST_TEST(count(*agenda_page(*idx, page, sys_days{2027y / April / 1}), "<li") < 34u);
    page.tz = "Asia/Tokyo";
    auto tokyo = agenda_page(*idx, page, sys_days{2026y / December / 1});
    BOOST_REQUIRE(tokyo);
    BOOST_TEST(tokyo->find("Friday, 4 December 2026") != std::string::npos);
    BOOST_TEST(tokyo->find("11:30–14:00") != std::string::npos);
    for (std::string bad : {"Mars/Olympus", "../../etc/passwd", "Europe/Berlin;x"}) {
        page.tz = bad;
        auto r = agenda_page(*idx, page, sys_days{2026y / December / 1});
        BOOST_TEST(!r, bad);
    }
}

BOOST_AUTO_TEST_CASE(agenda_shows_the_feeds_own_zone_unless_the_request_asks_another) {
    // Setup: the organizer golden's events are mostly in America/Los_Angeles.
    auto idx = views::index_calendar(golden("organizer.ics"));
    BOOST_REQUIRE(idx);
    AgendaPage page{"Mine", "https://cal.example.org/feeds/x.ics", "", 300, {}, {}, {}, {}};
    page.feed_zone = "Asia/Tokyo";

    // Run + Check: the feed's timezone, not the zone most events use
    auto html = agenda_page(*idx, page, sys_days{2026y / December / 1});
    BOOST_REQUIRE(html);
    BOOST_TEST(html->find("Times in Asia/Tokyo") != std::string::npos);
    BOOST_TEST(html->find("Friday, 4 December 2026") != std::string::npos);
    // ?tz= still wins.
    page.tz = "America/Los_Angeles";
    auto asked = agenda_page(*idx, page, sys_days{2026y / December / 1});
    BOOST_REQUIRE(asked);
    BOOST_TEST(asked->find("Times in America/Los_Angeles") != std::string::npos);
    BOOST_TEST(known_time_zone("America/Los_Angeles"));
    BOOST_TEST(known_time_zone("UTC"));
    for (std::string bad : {"Mars/Olympus", "../../etc/passwd", "", "America/"})
        BOOST_TEST(!known_time_zone(bad), bad);
}

BOOST_AUTO_TEST_CASE(agenda_lists_a_job_post_written_both_ways_once) {
    // Setup: jobs.ics is rendered with jobs_as = "both": a VTODO due on a day and an all-day VEVENT on it.
    std::string const body = golden("jobs.ics");
    auto idx = views::index_calendar(body);
    BOOST_REQUIRE(idx);
    std::size_t due_from_today = 0;
    for (auto p = body.find("\r\nDUE;VALUE=DATE:"); p != std::string::npos;
         p = body.find("\r\nDUE;VALUE=DATE:", p + 1))
        due_from_today += body.compare(p + 17, 8, "20261001") >= 0 ? 1 : 0;
    BOOST_REQUIRE(due_from_today > 2u);
    AgendaPage page{"Jobs", "https://cal.example.org/feeds/j.ics", "", 300, {}, {}, {}, {}};

    // Run
    auto html = agenda_page(*idx, page, sys_days{2026y / October / 1});

    // Check: a row per post, shown as due; a place's parts once each
    BOOST_REQUIRE(html);
    BOOST_TEST(count(*html, "<li") == due_from_today);
    BOOST_TEST(count(*html, ">due<") == due_from_today);
    BOOST_TEST(html->find("Boston, MA, US") != std::string::npos);
    BOOST_TEST(html->find("MA, MA") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(agenda_groups_the_ways_to_add_it_per_app) {
    // Issue 40, item 5: each way under its app, saying what it does and how fresh it keeps the calendar.
    auto idx = views::index_calendar(golden("organizer.ics"));
    BOOST_REQUIRE(idx);
    auto const npos = std::string::npos;
    AgendaPage page{"Mine", "http://127.0.0.1:8080/feeds/x.ics", "", 300, {}, {}, {}, {}};
    auto plain = agenda_page(*idx, page, sys_days{2026y / December / 1});
    BOOST_REQUIRE(plain);
    // A link's label names its URL's scheme; the page links back to the index.
    BOOST_TEST(plain->find("href=\"http://127.0.0.1:8080/feeds/x.ics\">http:// address (.ics)</a>") != npos);
    BOOST_TEST(plain->find("https") == plain->find("https://calendar.google.com"));
    BOOST_TEST(plain->find("<a href=\"/\">← All calendars</a>") != npos);
    BOOST_TEST(plain->find("every 8–24 hours") != npos);
    BOOST_TEST((plain->find("connect-") == npos && plain->find("CalDAV") == npos));

    page.https_url = "https://cal.example.org/feeds/x.ics";
    page.connect = {
        {"connect-google", "Keep my Google Calendar in sync", "/connect/google?feed=x"},
        {"connect-microsoft", "Keep my Outlook calendar in sync", "/connect/microsoft?feed=x"}};
    page.dav_url = "https://cal.example.org/dav/feeds/x/";
    page.index_url = "https://cal.example.org/";
    auto html = agenda_page(*idx, page, sys_days{2026y / December / 1});
    BOOST_REQUIRE(html);
    auto const at = [&](std::string const& s) { return html->find(s); };
    auto const google = at("<h3>Google Calendar</h3>"), apple = at("<h3>Apple Calendar");
    auto const outlook = at("<h3>Outlook</h3>"), thunderbird = at("<h3>Thunderbird</h3>"),
               any = at("<h3>Any app");
    BOOST_TEST(
        (google < apple && apple < outlook && outlook < thunderbird && thunderbird < any && any != npos)
    );
    BOOST_TEST((google < at("id=\"add-google\"") && at("id=\"connect-google\"") < apple));
    BOOST_TEST(at("within seconds") < apple);
    BOOST_TEST((outlook < at("id=\"connect-microsoft\"") && at("id=\"connect-microsoft\"") < thunderbird));
    BOOST_TEST(any < at(">https:// address (.ics)</a>"));
    BOOST_TEST(any < at("<code class=\"url\">https://cal.example.org/dav/feeds/x/</code>"));
    BOOST_TEST(at("<a href=\"https://cal.example.org/\">← All calendars</a>") < at("<h1>"));
}

BOOST_AUTO_TEST_CASE(agenda_and_index_say_when_the_data_changed_and_was_checked) {
    // Issue 28: "changed 3 min ago, checked 20 s ago", in the viewer's words.
    sys_seconds const now = sys_days{2026y / December / 1} + 12h;
    BOOST_TEST(freshness(now - 3min - 5s, now - 20s, now) == "changed 3 min ago, checked 20 s ago");
    BOOST_TEST(freshness(now - 5h, now - 1min, now) == "changed 5 h ago, checked 1 min ago");
    BOOST_TEST(freshness(now - days(9), now - 47h, now) == "changed 9 days ago, checked 47 h ago");
    BOOST_TEST(freshness(std::nullopt, now + 2s, now) == "checked just now");
    BOOST_TEST(freshness(std::nullopt, std::nullopt, now).empty());

    auto idx = views::index_calendar(golden("organizer.ics"));
    BOOST_REQUIRE(idx);
    AgendaPage page{"Mine", "https://cal.example.org/feeds/x.ics", "", 300, now - 3min, now - 20s, {}, {}};
    auto html = agenda_page(*idx, page, now);
    BOOST_REQUIRE(html);
    BOOST_TEST(html->find(">changed 3 min ago, checked 20 s ago</span>") != std::string::npos);

    Config cfg = test::server_test_config();
    ServedFeeds store{cfg};
    test::publish(store, "pub", test::calendar_body(2), 2, now - 3min);
    test::publish(store, "pub", test::calendar_body(2), 2, now - 20s); // same bytes: checked, not changed
    auto index = index_page(cfg, store, now);
    BOOST_TEST(index.find("changed 3 min ago, checked 20 s ago") != std::string::npos, index);
}

BOOST_AUTO_TEST_SUITE_END()
