// File: merged_feeds_test.cpp
// MergedFeeds on a real Publisher and ServedFeeds: nothing until every part has a snapshot, rebuilt on each
// part's publication, a failing part keeps contributing its last good items, unchanged parts keep the
// ETag, snapshots kept and served again after a restart.
#include "support/config_text.hpp"
#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include <icsbridge/ical.hpp>
#include <icsbridge/merge.hpp>
#include <icsbridge/publish.hpp>
#include <icsbridge/store.hpp>

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>

using namespace icsbridge;
using namespace std::chrono;

namespace merged_feeds_test {

sys_seconds const t0 = sys_days{2026y / March / 1} + 9h;

Config merge_config(std::string const& dir) {
    auto cfg = parse_config(
        "[storage]\ndir = \"" + dir +
            "\"\n"
            "[sources.eb]\ntype = \"events\"\nbase_url = \"http://127.0.0.1:9\"\ntoken = \"t\"\n"
            "[sources.jobs]\ntype = \"jobs\"\nbase_url = \"http://127.0.0.1:9\"\napi_key = \"k\"\n"
            "[feeds.all]\nmerge = [\"ev\", \"jb\"]\ntitle = \"Everything\"\n"
            "[feeds.ev]\nsource = \"eb\"\nselect = \"organizer\"\nrefresh = \"1h\"\n"
            "[feeds.jb]\nsource = \"jobs\"\nselect = \"recent\"\nrefresh = \"30m\"\n",
        "merge.toml",
        test::env_of()
    );
    BOOST_REQUIRE_MESSAGE(cfg.has_value(), (cfg ? std::string() : cfg.error().message));
    return *cfg;
}

std::string events_ics(int n) {
    std::vector<Event> events;
    for (int i = 0; i < n; ++i) {
        Event e;
        e.id = "e" + std::to_string(i);
        e.name = "Event " + e.id;
        e.start = {"Europe/Berlin", {}, t0 + days(i)};
        e.end = {"Europe/Berlin", {}, t0 + days(i) + 1h};
        e.status = "live";
        events.push_back(e);
    }
    CalendarMeta meta;
    meta.feed_name = "ev";
    return *render_events(meta, events, {});
}

std::string jobs_ics(int n) {
    std::vector<JobPost> posts;
    for (int i = 0; i < n; ++i) {
        JobPost p;
        p.id = "j" + std::to_string(i);
        p.title = "Job " + p.id;
        p.posted = {2026, 2, 1 + i, 10, 0, 0};
        posts.push_back(p);
    }
    CalendarMeta meta;
    meta.feed_name = "jb";
    return *render_jobs(meta, posts, {});
}

FeedStatus status_of(ServedFeeds const& store, std::string const& name) {
    for (auto const& s : store.status())
        if (s.name == name)
            return s;
    BOOST_FAIL("no feed " + name);
    return {};
}

struct LibicalFixture {
    LibicalFixture() { init_libical(); }
};

/** @brief What serve runs for merged feeds: the table, a keeper on `dir`, the publisher, the merges. */
struct Merging {
    Config const& cfg;
    ServedFeeds store{cfg};
    std::shared_ptr<SnapshotKeeper> keeper;
    Publisher publisher;
    MergedFeeds merged{cfg, store, publisher, null_logger()};

    explicit Merging(Config const& c, std::string const& dir)
        : cfg(c)
        , keeper(std::make_shared<SnapshotKeeper>(std::make_shared<DiskSnapshots>(dir), null_logger()))
        , publisher(store, keeper, null_logger()) {}

    void publish(std::string const& feed, std::string body, std::size_t items, sys_seconds at) {
        publisher.publish(feed, std::move(body), items, Origin::fetched, at);
    }
};

} // namespace merged_feeds_test

BOOST_FIXTURE_TEST_SUITE(merged_feeds_test, LibicalFixture)

BOOST_AUTO_TEST_CASE(config_gives_the_merge_its_busiest_parts_refresh) {
    test::TempDir dir;
    auto const cfg = merge_config(dir.path());
    auto const* all = cfg.find_feed("all");
    BOOST_REQUIRE(all);
    BOOST_TEST(all->is_merged());
    BOOST_TEST((all->refresh == minutes(30)));
    BOOST_TEST(all->source.empty());
}

BOOST_AUTO_TEST_CASE(built_from_parts_as_they_publish_and_kept_when_one_fails) {
    // Setup
    test::TempDir dir;
    auto const cfg = merge_config(dir.path());
    Merging m(cfg, dir.path());
    auto& store = m.store;

    // Run / Check: no part has a calendar yet, so the merge has none either (503, not an empty calendar).
    m.merged.start();
    BOOST_TEST(!store.get("all"));

    // One part of two: still none. A partial merge would show the other part's events deleted, then back.
    m.publish("ev", events_ics(3), 3, t0);
    BOOST_TEST(!store.get("all"));

    m.publish("jb", jobs_ics(2), 2, t0 + 1min);
    auto const both = store.get("all");
    BOOST_REQUIRE(both);
    BOOST_TEST(both->items == 5u);
    BOOST_TEST(both->body.view().find("X-WR-CALNAME:Everything") != std::string::npos);
    BOOST_TEST((status_of(store, "all").last_success.value() == t0 + 1min));
    BOOST_TEST(status_of(store, "all").merge == std::vector<std::string>({"ev", "jb"}));

    // The jobs part fails from now on; the events part changes: the jobs part's last items stay.
    store.record_failure("jb", Error{errc::upstream_status, "job board: HTTP 500"}, t0 + 2min);
    m.publish("ev", events_ics(4), 4, t0 + 3min);
    auto const after = store.get("all");
    BOOST_TEST(after->items == 6u);
    BOOST_TEST(after->body.view().find("UID:job-j1@") != std::string::npos);
    BOOST_TEST(status_of(store, "all").last_error.empty());

    // A part publishing the same bytes again keeps the merge's validators, and records its success.
    m.publish("ev", events_ics(4), 4, t0 + 4min);
    BOOST_TEST(store.get("all")->etag == after->etag);
    BOOST_TEST((store.get("all")->last_modified == after->last_modified));
    BOOST_TEST((status_of(store, "all").last_success.value() == t0 + 4min));

    // Kept like any feed's snapshot.
    m.keeper->flush();
    auto saved = load_snapshot(dir.path(), "all");
    BOOST_REQUIRE(saved.has_value());
    BOOST_TEST((*saved)->etag == after->etag);
}

BOOST_AUTO_TEST_CASE(a_restart_serves_the_same_merge_from_the_stored_parts) {
    test::TempDir dir;
    auto const cfg = merge_config(dir.path());
    std::string etag;
    {
        Merging m(cfg, dir.path());
        m.merged.start();
        m.publish("ev", events_ics(2), 2, t0);
        m.publish("jb", jobs_ics(3), 3, t0);
        etag = m.store.get("all")->etag;
    } // the keeper writes everything before it goes

    ServedFeeds store(cfg);
    BOOST_TEST(test::restore(store, dir.path(), null_logger()) == 3u);
    Publisher publisher(store, nullptr, null_logger());
    MergedFeeds merged(cfg, store, publisher, null_logger());
    merged.start();
    BOOST_REQUIRE(store.get("all"));
    BOOST_TEST(store.get("all")->etag == etag);
    BOOST_TEST(store.get("all")->items == 5u);
    // Only reloaded, never fetched: the merge is as recent as its parts, not "now".
    BOOST_TEST((status_of(store, "all").last_success.value() == t0));
}

BOOST_AUTO_TEST_CASE(a_kept_merge_is_served_while_a_part_has_no_snapshot_yet) {
    // Setup: a complete merge was kept by the last run, but one part's own snapshot is gone.
    test::TempDir dir;
    auto const cfg = merge_config(dir.path());
    {
        Merging m(cfg, dir.path());
        m.merged.start();
        m.publish("ev", events_ics(2), 2, t0);
        m.publish("jb", jobs_ics(3), 3, t0);
    }
    std::filesystem::remove(dir.file("jb.snapshot"));
    // Run
    Merging m(cfg, dir.path());
    BOOST_TEST(test::restore(m.store, dir.path(), null_logger()) == 2u);
    m.merged.start();
    m.publish("ev", events_ics(1), 1, t0 + 1h);
    // Check: the kept merge (5 items), not a merge of the one part there is (1 item).
    BOOST_REQUIRE(m.store.get("all"));
    BOOST_TEST(m.store.get("all")->items == 5u);
    m.publish("jb", jobs_ics(2), 2, t0 + 2h);
    BOOST_TEST(m.store.get("all")->items == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
