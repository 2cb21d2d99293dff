// File: ical_builder_test.cpp
// The calendar builder: structure, UIDs, time zones (DST, +05:30, unknown), text escaping and folding,
// cancellation policies, job posts, determinism and the render cache. Also writes the sample calendar
// that tests/python/check_ics.py parses with real parsers (CTest fixture ical_sample).
#include "ical/render_cache.hpp"
#include "support/ics_lines.hpp"
#include <icsbridge/ical.hpp>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace icsbridge {

namespace ical_builder_test {

using namespace std::chrono_literals;
using test::component;
using test::has_line;
using test::property;
using test::unfold;

sys_seconds utc(int y, unsigned mo, unsigned d, int h, int mi, int s = 0) {
    return std::chrono::sys_days(std::chrono::year(y) / mo / d) + std::chrono::hours(h) +
           std::chrono::minutes(mi) + std::chrono::seconds(s);
}

Event make_event(std::string id, std::string zone, sys_seconds start, std::chrono::seconds length = 2h) {
    Event e;
    e.id = std::move(id);
    e.name = "Event " + e.id;
    e.url = "https://events.example.com/e/" + e.id;
    e.start = {zone, {}, start};
    e.end = {zone, {}, start + length};
    e.created = utc(2026, 1, 2, 3, 4, 5);
    e.changed = utc(2026, 2, 3, 4, 5, 6);
    e.status = "live";
    e.category_id = "103";
    e.organizer_name = "Org, Inc; \"quoted\"";
    e.venue = Venue{"v1", "The Hall", "1 Main St, Springfield", 40.5, -73.25};
    return e;
}

// The awkward cases in one feed: text, zones, online/no venue, cancellation.
std::vector<Event> sample_events() {
    std::vector<Event> v;
    auto text = make_event("1001", "America/New_York", utc(2026, 10, 31, 16, 0)); // 12:00 EDT
    text.name = "Caf\u00e9, caf\u00e9; \u6f22\u5b57 \U0001F600 back\\slash literal \\n end";
    text.description_html =
        "<p>Line one, with comma; semicolon.</p><p>Second \\n paragraph &amp; <a "
        "href=\"https://x.example/a?b=1&amp;c=2\">"
        "link</a></"
        "p><ul><li>\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
        "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
        "\u00e9</li>"
        "<li>"
        "\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57"
        "\u6f22"
        "\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57</"
        "li><li>\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600"
        "\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600"
        "\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600</li></ul>";
    text.min_price = Money{"USD", 1000, "10.00"};
    text.max_price = Money{"USD", 2500, "25.00"};
    v.push_back(text);

    auto after_dst = make_event("1002", "America/New_York", utc(2026, 11, 2, 17, 0)); // 12:00 EST
    after_dst.online = true;
    after_dst.venue.reset();
    after_dst.is_free = true;
    v.push_back(after_dst);

    auto kolkata = make_event("1003", "Asia/Kolkata", utc(2026, 3, 10, 4, 0)); // 09:30 IST
    kolkata.venue.reset();
    kolkata.organizer_name.clear();
    v.push_back(kolkata);

    auto unknown = make_event("1004", "Mars/Olympus_Mons", utc(2026, 3, 11, 4, 0));
    unknown.description_html = "Control\x01 chars\x7f and bad \xff\xfe UTF-8";
    v.push_back(unknown);

    auto cancelled = make_event("1005", "America/New_York", utc(2026, 12, 1, 15, 0));
    cancelled.status = "canceled";
    v.push_back(cancelled);
    return v;
}

CalendarMeta sample_meta() {
    CalendarMeta m;
    m.feed_name = "sample";
    m.title = "Sample, events";
    m.uid_domain = "events.example.com";
    return m;
}

std::string render_ok(
    std::vector<Event> const& events, EventRenderOptions const& opts = {}, RenderCache* cache = nullptr
) {
    auto r = render_events(sample_meta(), events, opts, cache);
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    return *r;
}

std::size_t count(std::string const& hay, std::string const& needle) {
    std::size_t n = 0;
    for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size()))
        ++n;
    return n;
}

bool valid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        auto const c = static_cast<unsigned char>(s[i]);
        std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > s.size())
            return false;
        for (std::size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
                return false;
        i += n;
    }
    return true;
}

struct LibicalFixture {
    LibicalFixture() { init_libical(); }
};

} // namespace ical_builder_test

BOOST_FIXTURE_TEST_SUITE(ical_builder_test, LibicalFixture)

BOOST_AUTO_TEST_CASE(calendar_has_the_properties_clients_read) {
    auto const ics = render_ok(sample_events());
    auto const lines = unfold(ics);
    BOOST_TEST(lines.front() == "BEGIN:VCALENDAR");
    BOOST_TEST(ics.ends_with("END:VCALENDAR\r\n"));
    for (std::string want :
         {"VERSION:2.0",
          "PRODID:-//icsbridge//icsbridge " ICSBRIDGE_VERSION "//EN",
          "CALSCALE:GREGORIAN",
          "METHOD:PUBLISH",
          "NAME:Sample\\, events",
          "REFRESH-INTERVAL;VALUE=DURATION:PT15M",
          "X-PUBLISHED-TTL:PT15M"})
        BOOST_TEST(has_line(lines, want), want);
    BOOST_TEST(has_line(lines, "X-WR-CALNAME:Sample, events"));
    BOOST_TEST(count(ics, "X-WR-CALDESC:") == 1u);
    BOOST_TEST(count(ics, "BEGIN:VEVENT") == 5u);
}

BOOST_AUTO_TEST_CASE(uids_are_stable_and_unique) {
    auto events = sample_events();
    events.push_back(events[0]); // the same id on two upstream pages
    auto const ics = render_ok(events);
    for (auto id : {"1001", "1002", "1003", "1004", "1005"})
        BOOST_TEST(count(ics, std::string("UID:event-") + id + "@events.example.com\r\n") == 1u, id);
    BOOST_TEST(count(ics, "BEGIN:VEVENT") == 5u);
}

BOOST_AUTO_TEST_CASE(local_times_come_from_utc_across_dst) {
    auto events = sample_events();
    // A wrong `local` from the upstream must not matter: utc is authoritative.
    events[0].start.local = {2026, 1, 1, 0, 0, 0};
    auto const ics = render_ok(events);
    auto const before = component(ics, "event-1001@events.example.com");
    BOOST_TEST(property(before, "DTSTART;TZID=America/New_York") == "20261031T120000");
    BOOST_TEST(property(before, "DTEND;TZID=America/New_York") == "20261031T140000");
    auto const after = component(ics, "event-1002@events.example.com");
    BOOST_TEST(property(after, "DTSTART;TZID=America/New_York") == "20261102T120000");
    auto const kolkata = component(ics, "event-1003@events.example.com");
    BOOST_TEST(property(kolkata, "DTSTART;TZID=Asia/Kolkata") == "20260310T093000");
}

BOOST_AUTO_TEST_CASE(repeated_hour_at_dst_end_is_written_in_utc) {
    // 01:30 happens twice in New York on 2026-11-01; a TZID time would mean the first one.
    std::vector<Event> events{
        make_event("1", "America/New_York", utc(2026, 11, 1, 5, 30)),
        make_event("2", "America/New_York", utc(2026, 11, 1, 6, 30)),
    };
    auto const ics = render_ok(events);
    BOOST_TEST(
        property(component(ics, "event-1@events.example.com"), "DTSTART;TZID=America/New_York") ==
        "20261101T013000"
    );
    BOOST_TEST(property(component(ics, "event-2@events.example.com"), "DTSTART") == "20261101T063000Z");
}

BOOST_AUTO_TEST_CASE(every_tzid_has_a_plain_vtimezone) {
    auto const ics = render_ok(sample_events());
    auto const lines = unfold(ics);
    BOOST_TEST(count(ics, "BEGIN:VTIMEZONE") == 2u);
    BOOST_TEST(has_line(lines, "TZID:America/New_York"));
    BOOST_TEST(has_line(lines, "TZID:Asia/Kolkata"));
    BOOST_TEST(count(ics, "freeassociation") == 0u);
    BOOST_TEST(count(ics, "Mars") == 0u);
    // Compact RRULE form, not a list of historical transitions.
    auto const ny = ics.find("TZID:America/New_York");
    auto const ny_end = ics.find("END:VTIMEZONE", ny);
    BOOST_TEST(count(ics.substr(ny, ny_end - ny), "RRULE:FREQ=YEARLY") == 2u);
    BOOST_TEST(count(ics.substr(ny, ny_end - ny), "RDATE") == 0u);
    auto const in = ics.find("TZID:Asia/Kolkata");
    BOOST_TEST(count(ics.substr(in, ics.find("END:VTIMEZONE", in) - in), "TZOFFSETTO:+0530") == 1u);
    // Each TZID parameter names a zone defined above.
    for (auto const& l : lines) {
        auto const p = l.find(";TZID=");
        if (p == std::string::npos)
            continue;
        auto const zone = l.substr(p + 6, l.find(':', p) - p - 6);
        BOOST_TEST(has_line(lines, "TZID:" + zone), zone);
    }
}

BOOST_AUTO_TEST_CASE(unknown_zone_is_written_in_utc) {
    auto const ics = render_ok(sample_events());
    auto const comp = component(ics, "event-1004@events.example.com");
    BOOST_TEST(property(comp, "DTSTART") == "20260311T040000Z");
    BOOST_TEST(property(comp, "DTEND") == "20260311T060000Z");
}

BOOST_AUTO_TEST_CASE(text_is_escaped_and_cleaned) {
    auto const ics = render_ok(sample_events());
    auto const comp = component(ics, "event-1001@events.example.com");
    BOOST_TEST(
        property(comp, "SUMMARY") ==
        "Caf\u00e9\\, caf\u00e9\\; \u6f22\u5b57 \U0001F600 back\\\\slash literal \\\\n end"
    );
    auto const description = property(comp, "DESCRIPTION");
    BOOST_TEST(
        description.starts_with("Line one\\, with comma\\; semicolon.\\n\\nSecond \\\\n paragraph & link "
                                "(https://x.example/a?b=1&c=2)\\n\\n\u2022 \u00e9")
    );
    BOOST_TEST(description.ends_with("\\n\\n10.00\u201325.00 USD\\n\\nhttps://events.example.com/e/1001"));
    BOOST_TEST(property(comp, "LOCATION") == "The Hall\\, 1 Main St\\, Springfield");
    BOOST_TEST(property(comp, "GEO") == "40.500000;-73.250000");
    BOOST_TEST(property(comp, "CATEGORIES") == "Music");
    BOOST_TEST(property(comp, "ORGANIZER;CN=\"Org, Inc; ^'quoted^'\"") == "invalid:nomail");

    auto const dirty = property(component(ics, "event-1004@events.example.com"), "DESCRIPTION");
    BOOST_TEST(dirty.starts_with("Control chars and bad \uFFFD\uFFFD UTF-8"));
}

BOOST_AUTO_TEST_CASE(lines_are_crlf_folded_at_75_octets_keeping_utf8_whole) {
    auto const ics = render_ok(sample_events());
    BOOST_TEST(count(ics, "\n") == count(ics, "\r\n"));
    BOOST_TEST(count(ics, "\r") == count(ics, "\r\n"));
    std::size_t folded = 0;
    std::size_t pos = 0;
    while (pos < ics.size()) {
        std::size_t const end = ics.find("\r\n", pos);
        std::string const line = ics.substr(pos, end - pos);
        BOOST_TEST(line.size() <= 75u, line);
        // Each physical line must be valid UTF-8 on its own: the fold did not split a character.
        BOOST_TEST(valid_utf8(line), line);
        folded += line.starts_with(" ") ? 1 : 0;
        pos = end + 2;
    }
    BOOST_TEST(folded > 5u); // the 2-, 3- and 4-byte runs were long enough to fold
}

BOOST_AUTO_TEST_CASE(price_location_and_status_lines) {
    auto const ics = render_ok(sample_events());
    auto const online = component(ics, "event-1002@events.example.com");
    BOOST_TEST(property(online, "LOCATION") == "Online");
    BOOST_TEST(property(online, "DESCRIPTION") == "Free\\n\\nhttps://events.example.com/e/1002");
    BOOST_TEST(property(online, "STATUS") == "CONFIRMED");
    BOOST_TEST(property(online, "TRANSP") == "OPAQUE");
    BOOST_TEST(property(online, "DTSTAMP") == "20260203T040506Z");
    BOOST_TEST(property(online, "CREATED") == "20260102T030405Z");
    BOOST_TEST(property(online, "LAST-MODIFIED") == "20260203T040506Z");
    BOOST_TEST(property(online, "URL") == "https://events.example.com/e/1002");
    auto const no_venue = component(ics, "event-1003@events.example.com");
    BOOST_TEST(property(no_venue, "LOCATION") == "<missing LOCATION>");
    BOOST_TEST(property(no_venue, "ORGANIZER") == "<missing ORGANIZER>");
}

BOOST_AUTO_TEST_CASE(cancelled_policies) {
    EventRenderOptions opts;
    opts.alarm = 1h;
    opts.cancelled = CancelledPolicy::status;
    auto const status = component(render_ok(sample_events(), opts), "event-1005@events.example.com");
    BOOST_TEST(property(status, "STATUS") == "CANCELLED");
    BOOST_TEST(property(status, "SUMMARY") == "Event 1005");
    BOOST_TEST(!has_line(status, "BEGIN:VALARM"));

    opts.cancelled = CancelledPolicy::prefix;
    auto const prefix = component(render_ok(sample_events(), opts), "event-1005@events.example.com");
    BOOST_TEST(property(prefix, "STATUS") == "CANCELLED");
    BOOST_TEST(property(prefix, "SUMMARY") == "Cancelled: Event 1005");

    opts.cancelled = CancelledPolicy::drop;
    auto const dropped = render_ok(sample_events(), opts);
    BOOST_TEST(component(dropped, "event-1005@events.example.com").empty());
    BOOST_TEST(count(dropped, "BEGIN:VEVENT") == 4u);
}

BOOST_AUTO_TEST_CASE(alarm_when_asked) {
    EventRenderOptions opts;
    auto const without = render_ok(sample_events(), opts);
    BOOST_TEST(count(without, "BEGIN:VALARM") == 0u);
    opts.alarm = 1h;
    auto const comp = component(render_ok(sample_events(), opts), "event-1002@events.example.com");
    BOOST_TEST(has_line(comp, "BEGIN:VALARM"));
    BOOST_TEST(has_line(comp, "ACTION:DISPLAY"));
    BOOST_TEST(has_line(comp, "TRIGGER:-PT1H"));
    BOOST_TEST(has_line(comp, "DESCRIPTION:Event 1002"));
}

BOOST_AUTO_TEST_CASE(same_input_same_bytes_in_any_order) {
    auto events = sample_events();
    auto const first = render_ok(events);
    BOOST_TEST(render_ok(events) == first);
    std::reverse(events.begin(), events.end());
    BOOST_TEST(render_ok(events) == first);
    // Events are ordered by start.
    BOOST_TEST(first.find("UID:event-1003@") < first.find("UID:event-1001@"));
    BOOST_TEST(first.find("UID:event-1001@") < first.find("UID:event-1002@"));
}

BOOST_AUTO_TEST_CASE(cache_reuses_blocks_and_rerenders_changed_items) {
    EventRenderOptions opts;
    opts.alarm = 30min;
    auto events = sample_events();
    RenderCache cache;
    auto const fresh = render_ok(events, opts);
    BOOST_TEST(render_ok(events, opts, &cache) == fresh);
    BOOST_TEST(cache.stats().misses == 5u);
    BOOST_TEST(render_ok(events, opts, &cache) == fresh);
    BOOST_TEST(cache.stats().hits == 5u);
    BOOST_TEST(cache.stats().misses == 0u);

    // Same id, new change time and name: rebuilt, and identical to a render without cache.
    events[2].changed = utc(2026, 2, 4, 0, 0);
    events[2].name = "Renamed";
    auto const changed = render_ok(events, opts, &cache);
    BOOST_TEST(cache.stats().misses == 1u);
    BOOST_TEST(changed == render_ok(events, opts));
    BOOST_TEST(changed.find("SUMMARY:Renamed") != std::string::npos);
    BOOST_TEST(changed.find("LAST-MODIFIED:20260204T000000Z") != std::string::npos);

    // Options are part of the key: another policy must not reuse blocks built for the old one.
    opts.cancelled = CancelledPolicy::prefix;
    BOOST_TEST(render_ok(events, opts, &cache) == render_ok(events, opts));
    BOOST_TEST(cache.stats().hits == 0u);

    // New order and a duplicate id: blocks found by id, the duplicate written once, as without cache.
    std::swap(events[0].start, events[2].start);
    std::swap(events[0].end, events[2].end);
    events.push_back(events[1]);
    BOOST_TEST(render_ok(events, opts, &cache) == render_ok(events, opts));
    BOOST_TEST(count(render_ok(events, opts, &cache), "UID:event-1002@") == 1u);
    events.pop_back();

    // Items gone from the feed leave the cache.
    events.resize(2);
    render_ok(events, opts, &cache);
    BOOST_TEST(cache.stats().events == 2u);
}

BOOST_AUTO_TEST_CASE(prerendered_pages_give_the_same_bytes_and_changed_events_are_rebuilt) {
    EventRenderOptions opts;
    opts.alarm = 15min;
    auto events = sample_events();
    auto const fresh = render_ok(events, opts);

    // Page by page into a new cache (as Pipeline::run does while the next pages travel): the render then
    // builds nothing and writes the same bytes.
    RenderCache cache;
    std::span<Event const> all(events);
    prerender_events(sample_meta(), all.first(2), opts, cache);
    prerender_events(sample_meta(), all.subspan(2), opts, cache);
    BOOST_TEST(render_ok(events, opts, &cache) == fresh);
    BOOST_TEST(cache.stats().misses == 0u);
    BOOST_TEST(cache.stats().hits == events.size());

    // An event completed after its page (new text) is rebuilt by the render, not served from its page.
    RenderCache second;
    prerender_events(sample_meta(), events, opts, second);
    events[1].name = "Completed later";
    auto const changed = render_ok(events, opts, &second);
    BOOST_TEST(second.stats().misses == 1u);
    BOOST_TEST(changed == render_ok(events, opts));
    BOOST_TEST(changed.find("SUMMARY:Completed later") != std::string::npos);

    // Built for other options (another alarm): not reused.
    RenderCache third;
    prerender_events(sample_meta(), events, EventRenderOptions{}, third);
    BOOST_TEST(render_ok(events, opts, &third) == changed);
    BOOST_TEST(third.stats().hits == 0u);

    // Prerendered but filtered out before the render: dropped from the cache by the render.
    RenderCache fourth;
    prerender_events(sample_meta(), events, opts, fourth);
    std::vector<Event> const fewer(events.begin(), events.begin() + 2);
    BOOST_TEST(render_ok(fewer, opts, &fourth) == render_ok(fewer, opts));
    BOOST_TEST(fourth.stats().events == 2u);
}

BOOST_AUTO_TEST_CASE(empty_feed_is_a_valid_calendar) {
    auto const ics = render_ok({});
    BOOST_TEST(ics.starts_with("BEGIN:VCALENDAR\r\n"));
    BOOST_TEST(ics.ends_with("END:VCALENDAR\r\n"));
    BOOST_TEST(count(ics, "BEGIN:VTIMEZONE") == 0u);
}

namespace {

JobPost make_job(std::string id) {
    JobPost p;
    p.id = std::move(id);
    p.title = "Senior Engineer, C++";
    p.company = "Acme; Widgets";
    p.description_html = "<p>Build things.</p>";
    p.perks = "<ul><li>Coffee</li></ul>";
    p.howto_apply = "Email <a href=\"mailto:jobs@acme.example\">jobs@acme.example</a>";
    p.posted = {2026, 5, 20, 14, 30, 0};
    p.type = "Full-time";
    p.category = "Software, Web";
    p.location = "Berlin";
    p.remote = true;
    p.url = "https://jobs.example.com/posts/" + p.id;
    p.apply_url = "http://mailto:jobs@acme.example";
    p.latitude = 52.5;
    p.longitude = 13.25;
    return p;
}

std::string render_jobs_ok(std::vector<JobPost> const& posts, JobRenderOptions const& opts) {
    CalendarMeta meta;
    meta.feed_name = "jobs";
    meta.uid_domain = "jobs.example.com";
    auto r = render_jobs(meta, posts, opts);
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    return *r;
}

} // namespace

BOOST_AUTO_TEST_CASE(job_posts_as_todos) {
    JobRenderOptions opts;
    opts.due_after = std::chrono::days(30) + 1h; // rounds up to 31 days
    auto const ics = render_jobs_ok({make_job("7"), make_job("3")}, opts);
    BOOST_TEST(ics.find("UID:job-3@") < ics.find("UID:job-7@"));
    auto const todo = component(ics, "job-7@jobs.example.com");
    BOOST_REQUIRE(!todo.empty());
    BOOST_TEST(todo.front() == "BEGIN:VTODO");
    BOOST_TEST(property(todo, "DTSTAMP") == "20260520T143000Z");
    BOOST_TEST(property(todo, "DTSTART;VALUE=DATE") == "20260520");
    BOOST_TEST(property(todo, "DUE;VALUE=DATE") == "20260620");
    BOOST_TEST(property(todo, "SUMMARY") == "Senior Engineer\\, C++ \u2014 Acme\\; Widgets");
    BOOST_TEST(property(todo, "URL") == "https://jobs.example.com/posts/7"); // apply_url is broken
    BOOST_TEST(property(todo, "LOCATION") == "Berlin");
    BOOST_TEST(property(todo, "STATUS") == "NEEDS-ACTION");
    BOOST_TEST(has_line(todo, "CATEGORIES:Full-time"));
    BOOST_TEST(has_line(todo, "CATEGORIES:Software/ Web"));
    BOOST_TEST(has_line(todo, "CATEGORIES:Remote"));
    BOOST_TEST(
        property(todo, "DESCRIPTION") ==
        "Build things.\\n\\nPerks: \u2022 Coffee\\n\\nHow to apply: Email jobs@acme.example\\n\\nRemote\\n\\n"
        "https://jobs.example.com/posts/7"
    );

    auto good = make_job("8");
    good.apply_url = "https://acme.example/apply";
    good.company.clear();
    good.last_update = utc(2026, 6, 1, 0, 0);
    auto const todo8 = component(render_jobs_ok({good}, opts), "job-8@jobs.example.com");
    BOOST_TEST(property(todo8, "URL") == "https://acme.example/apply");
    BOOST_TEST(property(todo8, "SUMMARY") == "Senior Engineer\\, C++");
    BOOST_TEST(property(todo8, "DTSTAMP") == "20260601T000000Z");
}

BOOST_AUTO_TEST_CASE(job_posts_as_events_and_both) {
    JobRenderOptions opts;
    opts.due_after = std::chrono::days(10);
    opts.jobs_as = JobsAs::vevent;
    auto const ev = component(render_jobs_ok({make_job("7")}, opts), "job-7@jobs.example.com");
    BOOST_REQUIRE(!ev.empty());
    BOOST_TEST(ev.front() == "BEGIN:VEVENT");
    BOOST_TEST(property(ev, "DTSTART;VALUE=DATE") == "20260530");
    BOOST_TEST(property(ev, "DTEND;VALUE=DATE") == "20260531");
    BOOST_TEST(property(ev, "TRANSP") == "TRANSPARENT");

    opts.jobs_as = JobsAs::both;
    auto const ics = render_jobs_ok({make_job("7")}, opts);
    BOOST_TEST(component(ics, "job-7-todo@jobs.example.com").front() == "BEGIN:VTODO");
    BOOST_TEST(component(ics, "job-7-event@jobs.example.com").front() == "BEGIN:VEVENT");
    BOOST_TEST(count(ics, "UID:") == 2u);
}

BOOST_AUTO_TEST_CASE(job_cache_matches_fresh_render) {
    JobRenderOptions opts;
    opts.jobs_as = JobsAs::both;
    std::vector<JobPost> posts{make_job("1"), make_job("2")};
    RenderCache cache;
    auto const fresh = render_jobs_ok(posts, opts);
    CalendarMeta meta;
    meta.feed_name = "jobs";
    meta.uid_domain = "jobs.example.com";
    BOOST_TEST(*render_jobs(meta, posts, opts, &cache) == fresh);
    BOOST_TEST(*render_jobs(meta, posts, opts, &cache) == fresh);
    BOOST_TEST(cache.stats().hits == 2u);
}

// Writes the sample calendar and what it must contain, for tests/python/check_ics.py (real parsers).
BOOST_AUTO_TEST_CASE(only_http_and_https_urls_reach_the_calendar) {
    // Issue 29.6: `javascript:` in an event's url reached URL: and DESCRIPTION.
    auto lowered = [](std::string s) {
        for (char& c : s)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    std::vector<Event> events;
    for (std::string bad :
         {"javascript:alert(1)",
          "JaVaScRiPt:alert(1)//https://x.example",
          " javascript:alert(1)",
          "data:text/html,<script>alert(1)</script>",
          "vbscript:msgbox(1)",
          "file:///etc/passwd",
          "http://",
          "https:///path-without-host"}) {
        auto e = make_event("u" + std::to_string(events.size()), "UTC", utc(2026, 6, 1, 10, 0));
        e.url = bad;
        e.organizer_url = bad;
        e.description_html = "<p><a href=\"" + bad + "\">one</a> <a href=\"mailto:a@b.example\">two</a></p>";
        events.push_back(e);
    }
    auto good = make_event("ok", "UTC", utc(2026, 6, 1, 10, 0));
    good.url = "HTTPS://events.example.com/e/ok";
    good.description_html = "<a href=\"https://events.example.com/more\">more</a>";
    events.push_back(good);
    auto const ics = lowered(render_ok(events));
    for (auto scheme : {"javascript", "data:", "vbscript", "file:", "mailto:", "http://\r", "https:///"})
        BOOST_TEST(ics.find(scheme) == std::string::npos, scheme << " reaches the calendar");
    std::string ok;
    for (auto const& line : component(render_ok(events), "event-ok@events.example.com"))
        ok += line + "\n";
    BOOST_TEST(ok.find("URL:HTTPS://events.example.com/e/ok\n") != std::string::npos, ok);
    BOOST_TEST(ok.find("href=\"https://events.example.com/more\"") != std::string::npos, ok);

    // Job posts: the apply URL and the post URL alike.
    JobPost p = make_job("9");
    p.apply_url = "javascript:alert(1)";
    p.url = "javascript:alert(2)";
    auto const jobs = lowered(render_jobs_ok({p}, JobRenderOptions{}));
    BOOST_TEST(jobs.find("javascript") == std::string::npos);
    p.url = "https://jobs.example.com/posts/9";
    BOOST_TEST(
        render_jobs_ok({p}, JobRenderOptions{}).find("URL:https://jobs.example.com/posts/9") !=
        std::string::npos
    );
}

BOOST_AUTO_TEST_CASE(writes_sample_for_python_check) {
    EventRenderOptions opts;
    opts.alarm = 1h;
    opts.cancelled = CancelledPolicy::prefix;
    auto const events = sample_events();
    auto const ics = render_ok(events, opts);

    namespace json = boost::json;
    auto iso = [](sys_seconds t) {
        auto const dp = std::chrono::floor<std::chrono::days>(t);
        std::chrono::year_month_day const ymd(dp);
        std::chrono::hh_mm_ss const hms(t - dp);
        char buf[32];
        std::snprintf(
            buf,
            sizeof buf,
            "%04d-%02u-%02uT%02d:%02d:%02dZ",
            static_cast<int>(ymd.year()),
            static_cast<unsigned>(ymd.month()),
            static_cast<unsigned>(ymd.day()),
            static_cast<int>(hms.hours().count()),
            static_cast<int>(hms.minutes().count()),
            static_cast<int>(hms.seconds().count())
        );
        return std::string(buf);
    };
    json::array items;
    for (auto const& e : events) {
        json::object o;
        o["uid"] = "event-" + e.id + "@events.example.com";
        o["summary"] = (e.cancelled() ? "Cancelled: " : "") + e.name;
        o["url"] = e.url;
        o["dtstart_utc"] = iso(e.start.utc);
        o["dtend_utc"] = iso(e.end.utc);
        o["description_contains"] = e.url;
        if (e.online)
            o["location"] = "Online";
        else if (e.venue)
            o["location"] = e.venue->name + ", " + e.venue->address;
        items.push_back(std::move(o));
    }
    json::object expect;
    expect["items"] = std::move(items);
    expect["forbidden"] = json::array{"freeassociation", "Mars/Olympus_Mons"};

    std::string const dir = ICSBRIDGE_BINARY_DIR;
    std::ofstream(dir + "/ical_sample.ics", std::ios::binary) << ics;
    std::ofstream(dir + "/ical_sample.expect.json", std::ios::binary) << json::serialize(expect);
    BOOST_TEST(std::ifstream(dir + "/ical_sample.ics").good());
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace icsbridge
