// File: merge_test.cpp
// merge_calendars() on calendars the real renderer wrote: items carried byte for byte with their own UIDs,
// a UID given twice kept once, events and to-dos together, one VTIMEZONE per TZID (rebuilt over both
// ranges when parts differ). Also writes the merge sample that tests/python/check_ics.py parses.
#include "support/ics_lines.hpp"
#include <icsbridge/ical.hpp>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace icsbridge {

namespace merge_test {

using namespace std::chrono_literals;
using test::component;
using test::property;
using test::unfold;

sys_seconds utc(int y, unsigned mo, unsigned d, int h) {
    return std::chrono::sys_days(std::chrono::year(y) / mo / d) + std::chrono::hours(h);
}

Event event(std::string id, std::string zone, sys_seconds start) {
    Event e;
    e.id = std::move(id);
    e.name = "Event " + e.id + ", with a comma";
    e.description_text = "Line one\nline two; with a semicolon";
    e.url = "https://events.example.com/e/" + e.id;
    e.start = {zone, {}, start};
    e.end = {zone, {}, start + 2h};
    e.created = utc(2026, 1, 2, 3);
    e.changed = utc(2026, 2, 3, 4);
    e.status = "live";
    return e;
}

JobPost job(std::string id) {
    JobPost p;
    p.id = std::move(id);
    p.title = "Designer " + p.id;
    p.description_html = "<p>Draw things.</p>";
    p.company = "Acme";
    p.posted = {2026, 5, 20, 14, 30, 0};
    p.url = "https://jobs.example.com/posts/" + p.id;
    return p;
}

std::string events_calendar(std::string const& feed, std::vector<Event> const& events) {
    CalendarMeta meta;
    meta.feed_name = feed;
    meta.uid_domain = "events.example.com";
    EventRenderOptions opts;
    opts.alarm = 1h;
    auto r = render_events(meta, events, opts);
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    return *r;
}

std::string jobs_calendar(std::vector<JobPost> const& posts) {
    CalendarMeta meta;
    meta.feed_name = "jobs";
    meta.uid_domain = "jobs.example.com";
    JobRenderOptions opts;
    opts.jobs_as = JobsAs::both; // one VTODO and one VEVENT per post, each with its own UID
    auto r = render_jobs(meta, posts, opts);
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    return *r;
}

Calendar merge_ok(std::vector<CalendarPart> const& parts, MergeOptions const& opts = {}) {
    CalendarMeta meta;
    meta.feed_name = "all";
    meta.title = "Everything";
    auto r = merge_calendars(meta, parts, opts);
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    return *r;
}

std::vector<std::string> uids(std::string const& ics) {
    std::vector<std::string> out;
    for (auto const& l : unfold(ics))
        if (l.starts_with("UID:"))
            out.push_back(l.substr(4));
    return out;
}

std::size_t count_lines(std::string const& ics, std::string const& line) {
    std::size_t n = 0;
    for (auto const& l : unfold(ics))
        n += l == line ? 1 : 0;
    return n;
}

struct LibicalFixture {
    LibicalFixture() { init_libical(); }
};

} // namespace merge_test

BOOST_FIXTURE_TEST_SUITE(merge_test, LibicalFixture)

BOOST_AUTO_TEST_CASE(events_and_todos_keep_their_uids_and_bytes) {
    // Setup
    auto const events = events_calendar(
        "ev",
        {event("1", "America/New_York", utc(2026, 3, 10, 15)),
         event("2", "Europe/Berlin", utc(2026, 7, 1, 8))}
    );
    auto const jobs = jobs_calendar({job("7"), job("8"), job("9")});

    // Run
    auto const merged = merge_ok({{"ev", events}, {"jb", jobs}});

    // Check: 2 events + 3 posts as VTODO and VEVENT each, every UID once, each item as its part wrote it.
    BOOST_TEST(merged.items == 8u);
    auto const got = uids(merged.ics);
    std::vector<std::string> want = uids(events);
    for (auto const& u : uids(jobs))
        want.push_back(u);
    BOOST_TEST(got == want, boost::test_tools::per_element());
    BOOST_TEST(std::set<std::string>(got.begin(), got.end()).size() == got.size());
    BOOST_TEST(count_lines(merged.ics, "BEGIN:VTODO") == 3u);
    BOOST_TEST(count_lines(merged.ics, "BEGIN:VEVENT") == 5u);
    for (auto const& u : uids(events))
        BOOST_TEST(component(merged.ics, u) == component(events, u), boost::test_tools::per_element());
    for (auto const& u : uids(jobs))
        BOOST_TEST(component(merged.ics, u) == component(jobs, u), boost::test_tools::per_element());
    BOOST_TEST(count_lines(merged.ics, "BEGIN:VALARM") == 2u);
    BOOST_TEST(property(unfold(merged.ics), "X-WR-CALNAME") == "Everything");
    BOOST_TEST(merged.ics.starts_with("BEGIN:VCALENDAR\r\n"));
    BOOST_TEST(merged.ics.ends_with("END:VCALENDAR\r\n"));
}

BOOST_AUTO_TEST_CASE(a_uid_in_two_parts_is_kept_once_from_the_first) {
    auto first = event("1", "America/New_York", utc(2026, 3, 10, 15));
    auto second = first;
    second.name = "The same event, as the second feed has it";
    auto const a = events_calendar("a", {first});
    auto const b = events_calendar("b", {second, event("2", "America/New_York", utc(2026, 4, 1, 15))});

    auto const merged = merge_ok({{"a", a}, {"b", b}});

    BOOST_TEST(merged.items == 2u);
    BOOST_TEST(
        property(component(merged.ics, "event-1@events.example.com"), "SUMMARY") == "Event 1\\, with a comma"
    );
    BOOST_TEST(uids(merged.ics).size() == 2u);
}

BOOST_AUTO_TEST_CASE(one_vtimezone_per_tzid) {
    auto const a = events_calendar("a", {event("1", "America/New_York", utc(2026, 3, 10, 15))});
    auto const b = events_calendar(
        "b",
        {event("2", "America/New_York", utc(2026, 4, 1, 15)), event("3", "Asia/Kolkata", utc(2026, 4, 2, 4))}
    );

    auto const merged = merge_ok({{"a", a}, {"b", b}});

    // Same zone over the same years: one copy, as both parts wrote it.
    BOOST_TEST(count_lines(merged.ics, "BEGIN:VTIMEZONE") == 2u);
    BOOST_TEST(count_lines(merged.ics, "TZID:America/New_York") == 1u);
    BOOST_TEST(count_lines(merged.ics, "TZID:Asia/Kolkata") == 1u);
    auto const vtz = a.substr(a.find("BEGIN:VTIMEZONE"), a.find("END:VTIMEZONE") - a.find("BEGIN:VTIMEZONE"));
    BOOST_TEST(merged.ics.find(vtz) != std::string::npos);
    // Before the items, as the renderer puts them.
    BOOST_TEST(merged.ics.rfind("END:VTIMEZONE") < merged.ics.find("BEGIN:VEVENT"));
}

BOOST_AUTO_TEST_CASE(one_zone_over_different_years_covers_them_all) {
    auto const a = events_calendar("a", {event("1", "America/New_York", utc(2026, 3, 10, 15))});
    auto const b = events_calendar("b", {event("2", "America/New_York", utc(2031, 6, 1, 15))});
    auto const tzuntil = [](std::string const& ics) { return property(unfold(ics), "TZUNTIL"); };
    BOOST_REQUIRE(tzuntil(a) != tzuntil(b));

    auto const merged = merge_ok({{"a", a}, {"b", b}});

    BOOST_TEST(count_lines(merged.ics, "TZID:America/New_York") == 1u);
    // The later part's range reaches further: the one VTIMEZONE must reach at least as far.
    BOOST_TEST(tzuntil(merged.ics) >= tzuntil(b));
    BOOST_TEST(merged.items == 2u);
}

BOOST_AUTO_TEST_CASE(same_parts_same_bytes_and_empty_parts_are_fine) {
    auto const a = events_calendar("a", {event("1", "Europe/Berlin", utc(2026, 3, 10, 15))});
    auto const empty = events_calendar("none", {});
    auto const once = merge_ok({{"a", a}, {"none", empty}});
    BOOST_TEST(once.ics == merge_ok({{"a", a}, {"none", empty}}).ics);
    BOOST_TEST(once.items == 1u);
    BOOST_TEST(merge_ok({{"none", empty}}).items == 0u);
}

BOOST_AUTO_TEST_CASE(a_part_that_does_not_parse_is_named) {
    CalendarMeta meta;
    meta.feed_name = "all";
    std::vector<CalendarPart> const parts{{"broken", "this is not a calendar"}};
    auto r = merge_calendars(meta, parts);
    BOOST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().code == errc::render_failed);
    BOOST_TEST(r.error().message.find("'broken'") != std::string::npos);
}

// The merge's own filter reads the items as the parts published them, on top of the parts' filters.
BOOST_AUTO_TEST_CASE(the_merges_filter_selects_among_the_parts_items) {
    // Setup: a music event online, a tech event in person, a cancelled music event, a remote and an
    // on-site post (VTODO + VEVENT each).
    auto jazz = event("1", "America/New_York", utc(2026, 3, 10, 15));
    jazz.name = "Jazz night";
    jazz.category_id = "103";
    jazz.online = true;
    auto rust = event("2", "Asia/Kolkata", utc(2026, 4, 2, 4));
    rust.name = "Rust meetup";
    rust.category_id = "102";
    auto gone = event("3", "America/New_York", utc(2026, 3, 11, 15));
    gone.name = "Jazz brunch, SOLD OUT";
    gone.category_id = "103";
    auto const events = events_calendar("ev", {jazz, rust, gone});
    auto remote = job("7");
    remote.remote = true;
    remote.category = "Design";
    auto onsite = job("8");
    onsite.category = "Programming";
    auto const jobs = jobs_calendar({remote, onsite});
    std::vector<CalendarPart> const parts{{"ev", events}, {"jb", jobs}};
    // kept(set): the UIDs the merge keeps with the filter `set` fills in.
    auto const kept = [&](auto set) {
        MergeOptions opts;
        set(opts.filter);
        return uids(merge_ok(parts, opts).ics);
    };
    using V = std::vector<std::string>;
    std::string const j1 = "event-1@events.example.com", j2 = "event-2@events.example.com",
                      j3 = "event-3@events.example.com";
    auto const posts = [](std::string const& id) {
        return V{"job-" + id + "-todo@jobs.example.com", "job-" + id + "-event@jobs.example.com"};
    };
    BOOST_REQUIRE(uids(jobs) == (V{posts("7")[0], posts("7")[1], posts("8")[0], posts("8")[1]}));

    // Run + Check: categories as CATEGORIES shows them, any case.
    BOOST_TEST(
        kept([](FeedFilter& f) { f.categories = {"music"}; }) == (V{j1, j3}),
        boost::test_tools::per_element()
    );
    BOOST_TEST(
        kept([](FeedFilter& f) { f.categories = {"Design"}; }) == posts("7"),
        boost::test_tools::per_element()
    );
    // Keywords in SUMMARY or DESCRIPTION; exclusions win.
    BOOST_TEST(
        kept([](FeedFilter& f) {
            f.keywords = {"JAZZ"};
            f.exclude_keywords = {"sold out"};
        }) == V{j1},
        boost::test_tools::per_element()
    );
    BOOST_TEST(kept([](FeedFilter& f) {
                   f.keywords = {"draw things"};
               }).size() == 4u); // the posts' description
    // Online: the events' "Online" location, the posts' "Remote" category.
    V online{j1};
    for (auto const& u : posts("7"))
        online.push_back(u);
    BOOST_TEST(kept([](FeedFilter& f) { f.online = true; }) == online, boost::test_tools::per_element());
    V in_person{j3, j2}; // the renderer orders events by start
    for (auto const& u : posts("8"))
        in_person.push_back(u);
    BOOST_TEST(kept([](FeedFilter& f) { f.online = false; }) == in_person, boost::test_tools::per_element());

    // A zone only filtered-out items used is not written.
    MergeOptions music;
    music.filter.categories = {"Music"};
    auto const merged = merge_ok(parts, music);
    BOOST_TEST(merged.items == 2u);
    BOOST_TEST(count_lines(merged.ics, "TZID:America/New_York") == 1u);
    BOOST_TEST(count_lines(merged.ics, "TZID:Asia/Kolkata") == 0u);
    BOOST_TEST(count_lines(merge_ok(parts).ics, "TZID:Asia/Kolkata") == 1u);
}

BOOST_AUTO_TEST_CASE(the_merges_alarm_replaces_the_parts_reminders) {
    // Setup: the events part has 1h reminders; the posts part none.
    auto gone = event("2", "Europe/Berlin", utc(2026, 7, 1, 8));
    gone.status = "canceled";
    auto const events = events_calendar("ev", {event("1", "America/New_York", utc(2026, 3, 10, 15)), gone});
    auto const jobs = jobs_calendar({job("7")});
    BOOST_REQUIRE(count_lines(events, "TRIGGER:-PT1H") == 1u);
    MergeOptions opts;
    opts.alarm = 30min;

    // Run
    auto const merged = merge_ok({{"ev", events}, {"jb", jobs}}, opts);

    // Check: one 30-minute reminder on each event that is not cancelled (the post's all-day VEVENT too),
    // none on the cancelled event or the VTODO, none of the part's own left.
    BOOST_TEST(merged.items == 4u);
    BOOST_TEST(count_lines(merged.ics, "TRIGGER:-PT1H") == 0u);
    BOOST_TEST(count_lines(merged.ics, "TRIGGER:-PT30M") == 2u);
    BOOST_TEST(count_lines(merged.ics, "BEGIN:VALARM") == 2u);
    auto const first = component(merged.ics, "event-1@events.example.com");
    BOOST_TEST(test::has_line(first, "TRIGGER:-PT30M"));
    BOOST_TEST(test::has_line(first, "DESCRIPTION:Event 1\\, with a comma"));
    BOOST_TEST(!test::has_line(component(merged.ics, "event-2@events.example.com"), "BEGIN:VALARM"));
    BOOST_TEST(!test::has_line(component(merged.ics, "job-7-todo@jobs.example.com"), "BEGIN:VALARM"));
    BOOST_TEST(test::has_line(component(merged.ics, "job-7-event@jobs.example.com"), "TRIGGER:-PT30M"));
    // Pure: the same parts and options, the same bytes.
    BOOST_TEST(merged.ics == merge_ok({{"ev", events}, {"jb", jobs}}, opts).ics);
}

// The sample for tests/python/check_ics.py: both real parsers must read it and count exactly.
BOOST_AUTO_TEST_CASE(writes_sample_for_python_check) {
    auto const events = events_calendar(
        "ev",
        {event("1", "America/New_York", utc(2026, 11, 1, 15)),
         event("2", "Asia/Kolkata", utc(2026, 3, 10, 4)),
         event("3", "America/New_York", utc(2026, 11, 2, 17))}
    );
    auto const more = events_calendar("ev2", {event("3", "America/New_York", utc(2026, 11, 2, 17))});
    auto const jobs = jobs_calendar({job("7"), job("8")});
    auto const merged = merge_ok({{"ev", events}, {"jb", jobs}, {"ev2", more}});
    BOOST_TEST(merged.items == 7u);

    namespace json = boost::json;
    json::array items;
    for (auto const& u : uids(merged.ics))
        items.push_back(json::object{{"uid", u}});
    json::object expect{{"count", merged.items}, {"valarms", 3}, {"items", std::move(items)}};
    std::string const dir = ICSBRIDGE_BINARY_DIR;
    std::ofstream(dir + "/merge_sample.ics", std::ios::binary) << merged.ics;
    std::ofstream(dir + "/merge_sample.expect.json", std::ios::binary) << json::serialize(expect);
    BOOST_TEST(std::ifstream(dir + "/merge_sample.ics").good());
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace icsbridge
