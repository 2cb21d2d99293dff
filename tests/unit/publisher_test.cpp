// File: publisher_test.cpp
// Publisher: the one publication sequence. An unchanged ETag changes nothing but the time; a change is
// served, kept and told to subscribers in order; a subscriber's own publication runs after, not inside;
// restored and adopted snapshots are served but neither counted as refreshes nor kept again. Prepared on
// threads of its own (serve), each feed's publications take effect in order on the publishing thread, and
// one made before a reload redefined its feed is dropped.
#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include <icsbridge/publish.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace icsbridge;
using namespace std::chrono;

namespace publisher_test {

sys_seconds const t0 = sys_days{2026y / March / 1} + 9h;

/** @brief A backend that records each save, so a test sees what the keeper wrote and in which order. */
struct RecordingBackend final : SnapshotBackend {
    std::mutex mtx;
    std::vector<std::string> saved; ///< "feed etag"
    Result<void> save(std::string const& feed, Snapshot const& snap, sys_seconds) override {
        std::lock_guard lock(mtx);
        saved.push_back(feed + " " + snap.etag);
        return {};
    }
    Result<std::shared_ptr<Snapshot const>> load(std::string const&, bool) override { return nullptr; }
    std::string where() const override { return "memory"; }
};

struct Fixture {
    Config cfg = test::server_test_config();
    ServedFeeds store{cfg};
    std::shared_ptr<RecordingBackend> backend = std::make_shared<RecordingBackend>();
    std::shared_ptr<SnapshotKeeper> keeper = std::make_shared<SnapshotKeeper>(backend, null_logger());
    Publisher publisher{store, keeper, null_logger()};
    std::vector<std::string> told; ///< "subscriber:feed:changed:origin"

    Fixture() {
        subs.push_back(publisher.subscribe([this](Publication const& p) { note("first", p); }));
        subs.push_back(publisher.subscribe([this](Publication const& p) { note("second", p); }));
    }
    void note(std::string const& who, Publication const& p) {
        // The table already serves what subscribers are told of.
        BOOST_TEST(store.get(p.feed) == p.snapshot);
        told.push_back(
            who + ":" + p.feed + ":" + (p.changed ? "changed" : "same") + ":" +
            std::string(to_string(p.origin))
        );
    }
    std::vector<Publisher::Subscription> subs;

    /** serve's arrangement: prepared on two threads, in effect on `control`'s thread (this one, in run()). */
    boost::asio::io_context control;
    void prepare_on_workers() {
        publisher.prepare_on(2, [this](std::function<void()> step) {
            boost::asio::post(control, std::move(step));
        });
    }
    /** Runs the publishing thread until `done` (checked after each step), for at most 20 s. */
    void run_until(std::function<bool()> const& done) {
        auto const end = steady_clock::now() + 20s;
        while (!done() && steady_clock::now() < end) {
            control.restart();
            control.run_for(10ms);
        }
    }
};

} // namespace publisher_test

BOOST_FIXTURE_TEST_SUITE(publisher_test, Fixture)

BOOST_AUTO_TEST_CASE(a_change_is_served_kept_and_told_in_order) {
    publisher.publish("pub", test::calendar_body(3), 3, Origin::fetched, t0);
    auto const first = store.get("pub");
    BOOST_REQUIRE(first);
    BOOST_TEST(first->last_modified == t0);
    keeper->flush();
    BOOST_TEST(backend->saved == std::vector<std::string>{"pub " + first->etag});
    BOOST_TEST(told == (std::vector<std::string>{"first:pub:changed:fetched", "second:pub:changed:fetched"}));
    BOOST_TEST(store.status()[0].refreshes_ok == 1u);
}

BOOST_AUTO_TEST_CASE(an_unchanged_etag_moves_only_the_time) {
    publisher.publish("pub", test::calendar_body(3), 3, Origin::fetched, t0);
    auto const first = store.get("pub");
    told.clear();
    publisher.publish("pub", test::calendar_body(3), 3, Origin::fetched, t0 + 1h);
    // The same object is served (validators and Last-Modified intact); the success is an hour later.
    BOOST_TEST(store.get("pub") == first);
    BOOST_TEST(store.get("pub")->last_modified == t0);
    BOOST_TEST(store.status()[0].last_success.value() == t0 + 1h);
    // Subscribers hear that nothing changed (a merge's time follows its parts'), the views keep theirs.
    BOOST_TEST(told == (std::vector<std::string>{"first:pub:same:fetched", "second:pub:same:fetched"}));
}

BOOST_AUTO_TEST_CASE(a_subscribers_publication_runs_after_the_current_one) {
    // A subscriber that publishes another feed, as the merged feeds do.
    auto chain = publisher.subscribe([this](Publication const& p) {
        if (p.feed == "pub")
            publisher.publish("later", test::calendar_body(1, "m"), 1, Origin::merged, p.at);
        told.push_back("chain:" + p.feed);
    });
    publisher.publish("pub", test::calendar_body(2), 2, Origin::fetched, t0);
    // Every subscriber heard of "pub" before anyone heard of "later".
    BOOST_TEST(
        told == (std::vector<std::string>{
                    "first:pub:changed:fetched",
                    "second:pub:changed:fetched",
                    "chain:pub",
                    "first:later:changed:merged",
                    "second:later:changed:merged",
                    "chain:later"})
    );
}

BOOST_AUTO_TEST_CASE(restored_and_adopted_snapshots_are_served_not_counted_nor_kept_again) {
    auto kept = make_snapshot(test::calendar_body(4), 4, t0 - 2h, t0 - 1h);
    publisher.adopt("pub", kept, Origin::restored);
    BOOST_TEST(store.get("pub") == kept);
    BOOST_TEST(store.status()[0].last_success.value() == t0 - 1h); // the kept fetch time
    BOOST_TEST(store.status()[0].refreshes_ok == 0u);
    auto row = make_snapshot(test::calendar_body(5), 5, t0, t0);
    publisher.adopt("pub", row, Origin::adopted);
    BOOST_TEST(store.get("pub") == row);
    keeper->flush();
    BOOST_TEST(backend->saved.empty()); // both came from where they are kept
    BOOST_TEST(told.back() == "second:pub:changed:adopted");
}

BOOST_AUTO_TEST_CASE(a_feed_gone_from_the_config_is_not_published) {
    publisher.publish("removed", test::calendar_body(1), 1, Origin::fetched, t0);
    keeper->flush();
    BOOST_TEST(!store.get("removed"));
    BOOST_TEST(told.empty());
    BOOST_TEST(backend->saved.empty());
}

BOOST_AUTO_TEST_CASE(the_keeper_writes_the_newest_pending_snapshot_and_everything_before_it_goes) {
    std::string last_etag;
    {
        auto slow = std::make_shared<RecordingBackend>();
        SnapshotKeeper keeper2(slow, null_logger());
        for (int i = 1; i <= 50; ++i) {
            auto snap = make_snapshot(test::calendar_body(i), static_cast<std::size_t>(i), t0, t0);
            last_etag = snap->etag;
            keeper2.keep("pub", snap, t0);
        }
        // Destroyed with writes pending: they are written first.
        backend = slow;
    }
    BOOST_REQUIRE(!backend->saved.empty());
    BOOST_TEST(backend->saved.back() == "pub " + last_etag); // the newest is written, and last
    BOOST_TEST(backend->saved.size() <= 50u);
}

BOOST_AUTO_TEST_CASE(a_snapshot_made_under_another_definition_is_never_served) {
    // Setup: "secret" is a token feed; a snapshot kept while it was something else.
    auto const def = store.definition("secret");
    BOOST_TEST_REQUIRE(def.size() == 64u);
    auto other = make_snapshot(test::calendar_body(2), 2, t0, t0, true, {}, std::string(64, '0'));
    auto legacy = make_snapshot(test::calendar_body(3), 3, t0, t0, true, {}, "");
    auto same = make_snapshot(test::calendar_body(4), 4, t0, t0, true, {}, def);
    // Run / Check
    publisher.adopt("secret", other, Origin::restored);
    BOOST_TEST(!store.get("secret"));
    publisher.adopt("secret", legacy, Origin::restored); // kept before definitions were: accepted
    BOOST_TEST(store.get("secret") == legacy);
    publisher.adopt("secret", same, Origin::adopted);
    BOOST_TEST(store.get("secret") == same);
    // What this publisher builds carries the definition in force.
    publisher.publish("secret", test::calendar_body(5), 5, Origin::fetched, t0);
    BOOST_TEST(store.get("secret")->definition == def);
}

BOOST_AUTO_TEST_CASE(a_reload_that_makes_a_private_feed_public_drops_its_snapshot) {
    publisher.publish("secret", test::calendar_body(2, "s"), 2, Origin::fetched, t0);
    publisher.publish("pub", test::calendar_body(3), 3, Origin::fetched, t0);
    auto const pub = store.get("pub");
    auto next = cfg;
    next.feeds[1].token.clear();         // "secret" is public from now on
    next.feeds[0].title = "A new title"; // "pub" only renamed: the same question, the same readers
    store.reconfigure(next);
    BOOST_TEST(!store.get("secret")); // 503 until it is fetched under its new definition
    BOOST_TEST(store.get("pub") == pub);
    // Another question (a parameter) is another definition too.
    auto asked = next;
    asked.feeds[0].params.emplace_back("q", "rust");
    BOOST_TEST(definition_of(asked, asked.feeds[0]) != definition_of(next, next.feeds[0]));
    store.reconfigure(asked);
    BOOST_TEST(!store.get("pub"));
}

BOOST_AUTO_TEST_CASE(prepared_elsewhere_each_feeds_publications_take_effect_in_order_on_the_publishing_thread
) {
    std::mutex mtx;
    std::set<std::thread::id> preparing; ///< guarded by mtx
    publisher.prepare_with([&](std::string const&, std::shared_ptr<Snapshot const> const&) {
        std::lock_guard lock(mtx);
        preparing.insert(std::this_thread::get_id());
    });
    prepare_on_workers();
    std::vector<std::string> seen; ///< "feed:items", in the order they took effect
    std::set<std::thread::id> told_on;
    auto order = publisher.subscribe([&](Publication const& p) {
        seen.push_back(p.feed + ":" + std::to_string(p.snapshot->items));
        told_on.insert(std::this_thread::get_id());
    });
    int const n = 12;
    for (int i = 1; i <= n; ++i) {
        publisher.publish("pub", test::calendar_body(i), static_cast<std::size_t>(i), Origin::fetched, t0);
        publisher
            .publish("secret", test::calendar_body(i, "s"), static_cast<std::size_t>(i), Origin::fetched, t0);
    }
    // Nothing takes effect before the publishing thread runs it.
    BOOST_TEST(!store.get("pub"));
    run_until([&] { return seen.size() == 2u * n; });
    BOOST_TEST_REQUIRE(seen.size() == 2u * n);
    for (std::string const feed : {"pub", "secret"}) {
        std::vector<std::string> mine;
        for (auto const& s : seen)
            if (s.rfind(feed + ":", 0) == 0)
                mine.push_back(s);
        std::vector<std::string> expected;
        for (int i = 1; i <= n; ++i)
            expected.push_back(feed + ":" + std::to_string(i));
        BOOST_TEST(mine == expected);
        BOOST_TEST(store.get(feed)->items == static_cast<std::size_t>(n));
    }
    BOOST_TEST(told_on == std::set<std::thread::id>{std::this_thread::get_id()});
    std::lock_guard lock(mtx);
    BOOST_TEST(preparing.size() >= 1u);
    BOOST_TEST(!preparing.count(std::this_thread::get_id()));
}

BOOST_AUTO_TEST_CASE(a_publication_made_before_a_reload_redefined_its_feed_is_not_served) {
    std::atomic<int> prepared = 0;
    publisher.prepare_with([&](std::string const&, std::shared_ptr<Snapshot const> const&) { ++prepared; });
    prepare_on_workers();
    publisher.publish("secret", test::calendar_body(2, "s"), 2, Origin::fetched, t0);
    publisher.publish("pub", test::calendar_body(3), 3, Origin::fetched, t0);
    auto next = cfg;
    next.feeds[1].token.clear(); // "secret" is public from now on: what was fetched before is not served
    store.reconfigure(next);
    run_until([&] { return store.get("pub") != nullptr && prepared == 2; });
    publisher.stop_preparing(); // both were prepared: their steps are posted once the threads end
    control.restart();
    control.poll();
    BOOST_TEST(store.get("pub"));
    BOOST_TEST(!store.get("secret"));
    BOOST_TEST(told == (std::vector<std::string>{"first:pub:changed:fetched", "second:pub:changed:fetched"}));
}

BOOST_AUTO_TEST_SUITE_END()
