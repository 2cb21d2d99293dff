// File: prerender_pool_test.cpp
// Blocks built on worker threads while the pages travel (PrerenderPool, prebuild_events, adopt_blocks): the
// calendar is the render's byte for byte, events changed after their page are rebuilt, blocks the cache
// holds are not built again, and a pool given up halfway leaves the cache as it was.
#include "pipeline/prerender_pool.hpp"
#include <icsbridge/ical.hpp>

#include <boost/test/unit_test.hpp>

#include <array>
#include <chrono>
#include <span>
#include <string>
#include <vector>

namespace icsbridge {

namespace prerender_pool_test {

using namespace std::chrono_literals;

CalendarMeta meta() {
    CalendarMeta m;
    m.feed_name = "pool";
    m.uid_domain = "events.example.com";
    return m;
}

// Enough events for many chunks on every worker, in several zones (each worker resolves them itself), some
// cancelled. Ids are unique, as the events source leaves them.
std::vector<Event> many_events(std::size_t n) {
    std::array<char const*, 4> const zones = {"Europe/Berlin", "America/New_York", "Asia/Kolkata", ""};
    std::vector<Event> v;
    for (std::size_t i = 0; i < n; ++i) {
        Event e;
        e.id = std::to_string(5000 + i);
        e.name = "Event " + e.id;
        e.description_html = "<p>About <b>event</b> " + e.id + " &amp; more</p><ul><li>one</li></ul>";
        e.url = "https://events.example.com/e/" + e.id;
        sys_seconds const start = std::chrono::sys_days(std::chrono::year(2027) / 1 / 1) +
                                  std::chrono::hours(7 * static_cast<long>(i));
        e.start = {zones[i % zones.size()], {}, start};
        e.end = {zones[i % zones.size()], {}, start + 2h};
        e.status = i % 17 == 0 ? "canceled" : "live";
        v.push_back(std::move(e));
    }
    return v;
}

std::string render_ok(std::vector<Event> const& events, EventRenderOptions const& opts, RenderCache* cache) {
    auto r = render_events(meta(), events, opts, cache);
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    return *r;
}

// The pages as the source hands them over, each the pool's own copy.
void add_pages(PrerenderPool& pool, std::vector<Event> const& events, std::size_t page) {
    std::span<Event const> all(events);
    for (std::size_t b = 0; b < all.size(); b += page) {
        auto const p = all.subspan(b, std::min(page, all.size() - b));
        pool.add(std::vector<Event>(p.begin(), p.end()));
    }
}

BOOST_AUTO_TEST_SUITE(prerender_pool_test)

BOOST_AUTO_TEST_CASE(built_on_workers_the_calendar_is_the_plain_renders_byte_for_byte) {
    EventRenderOptions opts;
    opts.alarm = 30min;
    auto const events = many_events(1000);
    auto const plain = render_ok(events, opts, nullptr);
    for (unsigned workers : {0u, 1u, 3u}) {
        RenderCache cache;
        {
            PrerenderPool pool(meta(), opts, cache, workers);
            add_pages(pool, events, 250);
            pool.finish_into(cache);
        }
        BOOST_TEST(render_ok(events, opts, &cache) == plain, workers << " workers");
        // Every block came from the workers: the render only assembled.
        BOOST_TEST(cache.stats().misses == 0u, workers << " workers");
        BOOST_TEST(cache.stats().events == 1000u, workers << " workers");
    }
}

BOOST_AUTO_TEST_CASE(cancelled_events_dropped_by_the_feed_are_not_built) {
    EventRenderOptions opts;
    opts.cancelled = CancelledPolicy::drop;
    auto const events = many_events(200);
    RenderCache cache;
    PrerenderPool pool(meta(), opts, cache, 2);
    add_pages(pool, events, 50);
    pool.finish_into(cache);
    std::size_t const live = 200 - (200 + 16) / 17;
    BOOST_TEST(cache.stats().events == live);
    BOOST_TEST(render_ok(events, opts, &cache) == render_ok(events, opts, nullptr));
    BOOST_TEST(cache.stats().misses == 0u);
}

BOOST_AUTO_TEST_CASE(an_event_changed_after_its_page_is_rebuilt_by_the_render) {
    EventRenderOptions opts;
    auto events = many_events(300);
    RenderCache cache;
    PrerenderPool pool(meta(), opts, cache, 2);
    add_pages(pool, events, 100);
    // The source completes an event after handing over its page: the pool built from its own copy.
    events[42].name = "Completed later";
    events[42].description_html = "<p>With the venue's address now</p>";
    pool.finish_into(cache);
    auto const ics = render_ok(events, opts, &cache);
    BOOST_TEST(cache.stats().misses == 1u);
    BOOST_TEST(ics == render_ok(events, opts, nullptr));
    BOOST_TEST(ics.find("SUMMARY:Completed later") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(blocks_the_cache_holds_are_not_built_again) {
    EventRenderOptions opts;
    auto events = many_events(120);
    RenderCache cache;
    render_ok(events, opts, &cache); // as the previous refresh left it
    BOOST_TEST(prebuild_events(meta(), events, opts, &cache).empty());

    events[7].name = "Renamed";
    events.push_back(events[8]);
    events.back().id = "new-one";
    auto const blocks = prebuild_events(meta(), events, opts, &cache);
    BOOST_REQUIRE(blocks.size() == 2u);
    BOOST_TEST(blocks[0].key == events[7].id);
    BOOST_TEST(blocks[1].key == "new-one");
    adopt_blocks(cache, blocks);
    BOOST_TEST(render_ok(events, opts, &cache) == render_ok(events, opts, nullptr));
    BOOST_TEST(cache.stats().misses == 0u);
}

BOOST_AUTO_TEST_CASE(a_pool_given_up_halfway_joins_and_leaves_the_cache_as_it_was) {
    EventRenderOptions opts;
    auto const events = many_events(2000);
    RenderCache cache;
    render_ok(std::vector<Event>(events.begin(), events.begin() + 10), opts, &cache);
    {
        // A fetch that fails or times out after some pages: the pool goes with the run.
        PrerenderPool pool(meta(), opts, cache, 3);
        add_pages(pool, events, 500);
    }
    BOOST_TEST(cache.stats().events == 10u);
}

BOOST_AUTO_TEST_CASE(zones_first_used_by_several_workers_at_once_give_the_right_wall_times) {
    // libical extends each zone's table of transitions on demand, process-wide. Zones this process has not
    // used yet, and a century of dates, so that the workers extend the same zones' tables concurrently,
    // as a fresh `icsbridge push` or `export` does: libical 3.0.16 then gave some events the wrong offset.
    std::array<char const*, 6> const zones = {
        "America/Chicago",
        "Europe/Paris",
        "Australia/Sydney",
        "America/Denver",
        "Europe/Lisbon",
        "Pacific/Auckland"};
    std::vector<Event> events;
    for (std::size_t i = 0; i < 4000; ++i) {
        Event e;
        e.id = std::to_string(90000 + i);
        e.name = "Far " + e.id;
        sys_seconds const start = std::chrono::sys_days(std::chrono::year(2030) / 1 / 1) +
                                  std::chrono::hours(24 * 9 * static_cast<long>(i) + 7 * (i % 3));
        e.start = {zones[i % zones.size()], {}, start};
        e.end = {zones[i % zones.size()], {}, start + 90min};
        e.status = "live";
        events.push_back(std::move(e));
    }
    EventRenderOptions const opts;
    RenderCache cache;
    {
        PrerenderPool pool(meta(), opts, cache, 4);
        add_pages(pool, events, 500);
        pool.finish_into(cache);
    }
    auto const pooled = render_ok(events, opts, &cache);
    BOOST_TEST(cache.stats().misses == 0u);
    // One thread, the tables now complete: the reference.
    auto const plain = render_ok(events, opts, nullptr);
    BOOST_TEST(pooled == plain);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace prerender_pool_test

} // namespace icsbridge
