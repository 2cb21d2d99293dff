// File: refresher_test.cpp
// Refreshers with a scripted fetch function: the last good snapshot survives failures byte for byte
// (in memory and on disk), shared questions are fetched once, a sudden drop is confirmed first, stop() ends
// run().
#include "fake_upstream/fake_upstream.hpp"
#include "support/fixtures.hpp"
#include "support/run_coro.hpp"
#include "support/server_fixtures.hpp"
#include <icsbridge/files.hpp>
#include <icsbridge/pipeline.hpp>
#include <icsbridge/publish.hpp>
#include <icsbridge/refresh.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <deque>

using namespace icsbridge;
namespace net = boost::asio;

BOOST_AUTO_TEST_SUITE(refresher_test)

namespace {

/** @brief A fetch function that plays back a script of results, one per call, and counts calls. */
struct Script {
    std::deque<Result<Calendar>> steps;
    int calls = 0;

    GroupFetch fn() {
        return [this](FeedGroup const& g, sys_seconds) -> net::awaitable<std::vector<Result<Calendar>>> {
            ++calls;
            Result<Calendar> r = fail(errc::upstream_io, "script exhausted");
            if (!steps.empty()) {
                r = steps.front();
                steps.pop_front();
            }
            co_return std::vector<Result<Calendar>>(g.feeds.size(), r);
        };
    }
};

Result<Calendar> ok(int n) {
    return Calendar{test::calendar_body(n), static_cast<std::size_t>(n)};
}

RefreshOptions fast() {
    RefreshOptions o;
    o.retry_initial = std::chrono::milliseconds(10);
    o.confirm_delay = std::chrono::milliseconds(10);
    o.stagger = std::chrono::milliseconds(0);
    return o;
}

/** @brief The publisher serve builds over `store`, keeping snapshots under `dir` (nothing when empty). */
struct Publishing {
    std::shared_ptr<SnapshotKeeper> keeper;
    Publisher publisher;
    explicit Publishing(ServedFeeds& store, std::string const& dir = {}, Logger const& log = null_logger())
        : keeper(
              dir.empty() ? nullptr
                          : std::make_shared<SnapshotKeeper>(std::make_shared<DiskSnapshots>(dir), log)
          )
        , publisher(store, keeper, log) {}
    /** @brief Waits for the snapshots published so far to be on disk. */
    void flush() const {
        if (keeper)
            keeper->flush();
    }
};

/** @brief One public feed "a" (and optionally "b" asking the same question). */
Config one_feed(bool twin = false) {
    Config cfg;
    FeedConfig f;
    f.name = "a";
    f.source = "eb";
    f.select = "search";
    f.params = {{"q", "rust"}};
    cfg.feeds.push_back(f);
    if (twin) {
        f.name = "b";
        f.title = "B";
        f.cancelled = CancelledPolicy::drop; // rendering differs, the question does not
        cfg.feeds.push_back(f);
    }
    return cfg;
}

} // namespace

BOOST_AUTO_TEST_CASE(failures_keep_the_last_good_snapshot_byte_identical) {
    // Setup
    test::TempDir dir;
    auto cfg = one_feed();
    ServedFeeds store(cfg);
    Publishing pub(store, dir.path());
    Script script;
    script.steps = {
        ok(12),
        fail(errc::upstream_status, "events API: HTTP 500"),
        fail(errc::upstream_malformed, "events API: malformed JSON"),
        ok(0)};
    test::StringLogger logs;
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        Refreshers r(ex, cfg, store, pub.publisher, script.fn(), logs.logger(), fast());
        // Run
        {
            bool const ok_ = co_await r.refresh_once(0);
            BOOST_TEST(ok_);
        }
        auto good = store.get("a");
        pub.flush();
        auto on_disk = read_file(dir.file("a.snapshot")).value();
        {
            bool const ok_ = co_await r.refresh_once(0);
            BOOST_TEST(!ok_);
        }
        {
            bool const ok_ = co_await r.refresh_once(0);
            BOOST_TEST(!ok_);
        }
        // Check: same object, same bytes, same file
        BOOST_TEST(store.get("a") == good);
        BOOST_TEST(store.get("a")->body == test::calendar_body(12));
        pub.flush();
        BOOST_TEST(read_file(dir.file("a.snapshot")).value() == on_disk);
        auto st = store.status()[0];
        BOOST_TEST(st.refreshes_failed == 2u);
        BOOST_TEST(st.last_error == "events API: malformed JSON");
        // An empty answer after 12 items is confirmed by a second fetch, which fails: still nothing lost.
        {
            bool const ok_ = co_await r.refresh_once(0);
            BOOST_TEST(!ok_);
        }
        BOOST_TEST(script.calls == 5);
        BOOST_TEST(store.get("a") == good);
    });
    BOOST_TEST(logs.joined().find("keeping the last good snapshot") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_refresh_past_fetch_timeout_fails_and_keeps_the_last_good_snapshot) {
    // Issue 16: a whole refresh had no deadline, so one slow upstream could hold the loop for an hour.
    auto cfg = one_feed();
    cfg.feeds[0].fetch_timeout = std::chrono::seconds(1);
    ServedFeeds store(cfg);
    Publishing pub(store);
    bool hang = false;
    GroupFetch fetch = [&](FeedGroup const& g, sys_seconds) -> net::awaitable<std::vector<Result<Calendar>>> {
        if (hang) {
            // An upstream that trickles forever; cancelled when the deadline wins.
            net::steady_timer t(co_await net::this_coro::executor, std::chrono::hours(1));
            co_await t.async_wait(net::as_tuple(net::use_awaitable));
            co_return std::vector<Result<Calendar>>(g.feeds.size(), fail(errc::shutdown, "cancelled"));
        }
        co_return std::vector<Result<Calendar>>(g.feeds.size(), ok(3));
    };
    test::StringLogger logs;
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        Refreshers r(ex, cfg, store, pub.publisher, fetch, logs.logger(), fast());
        bool const first = co_await r.refresh_once(0);
        BOOST_TEST(first);
        auto good = store.get("a");
        hang = true;
        auto started = std::chrono::steady_clock::now();
        bool const second = co_await r.refresh_once(0);
        BOOST_TEST(!second);
        BOOST_TEST((std::chrono::steady_clock::now() - started < std::chrono::seconds(30)));
        BOOST_TEST(store.get("a") == good);
        BOOST_TEST(store.status()[0].last_error.find("fetch_timeout = 1s") != std::string::npos);
    });
}

BOOST_AUTO_TEST_CASE(an_unchanged_refresh_stores_its_time_for_the_next_restart) {
    // Setup: a snapshot on disk fetched long ago, loaded as at a restart.
    test::TempDir dir;
    auto cfg = one_feed();
    sys_seconds long_ago = std::chrono::sys_days{std::chrono::year{2020} / 1 / 1};
    auto old = make_snapshot(test::calendar_body(12), 12, long_ago, long_ago);
    BOOST_TEST_REQUIRE(save_snapshot(dir.path(), "a", *old).has_value());
    ServedFeeds store(cfg);
    Publishing pub(store, dir.path());
    test::StringLogger logs;
    BOOST_TEST_REQUIRE(test::restore(store, dir.path(), logs.logger()) == 1u);
    auto loaded = store.get("a");
    Script script;
    script.steps = {ok(12)};
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        Refreshers r(ex, cfg, store, pub.publisher, script.fn(), logs.logger(), fast());
        // Run
        bool const ok_ = co_await r.refresh_once(0);
        BOOST_TEST(ok_);
    });
    // Check: the same bytes and validators are served, and the file now says they were fetched just now.
    BOOST_TEST(store.get("a") == loaded);
    pub.flush();
    auto stored = load_snapshot(dir.path(), "a").value();
    BOOST_TEST(stored->last_modified == long_ago);
    BOOST_TEST(stored->fetched_at == store.status()[0].last_success.value());
    BOOST_TEST(stored->fetched_at > long_ago);
}

BOOST_AUTO_TEST_CASE(a_sudden_drop_is_published_only_after_a_second_fetch) {
    auto cfg = one_feed();
    ServedFeeds store(cfg);
    Publishing pub(store);
    Script script;
    script.steps = {ok(40), ok(3), ok(39), ok(3), ok(3), ok(5)};
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        Refreshers r(ex, cfg, store, pub.publisher, script.fn(), null_logger(), fast());
        co_await r.refresh_once(0);
        // 40 -> 3 looks like an upstream hiccup: the second fetch says 39, which is published.
        co_await r.refresh_once(0);
        BOOST_TEST(script.calls == 3);
        BOOST_TEST(store.get("a")->items == 39u);
        // 39 -> 3 twice: confirmed, published.
        co_await r.refresh_once(0);
        BOOST_TEST(script.calls == 5);
        BOOST_TEST(store.get("a")->items == 3u);
        // 3 -> 5 is below the threshold for suspicion: one fetch.
        co_await r.refresh_once(0);
        BOOST_TEST(script.calls == 6);
        BOOST_TEST(store.get("a")->items == 5u);
    });
}

BOOST_AUTO_TEST_CASE(feeds_asking_the_same_question_share_one_fetch) {
    auto cfg = one_feed(true);
    FeedConfig other = cfg.feeds[0];
    other.name = "c";
    other.params = {{"q", "go"}};
    cfg.feeds.push_back(other);
    auto groups = group_feeds(cfg);
    BOOST_TEST_REQUIRE(groups.size() == 2u);
    BOOST_TEST(groups[0].feeds.size() == 2u);
    BOOST_TEST(groups[1].feeds.front()->name == "c");
    FeedConfig windowed = cfg.feeds[0];
    windowed.window = std::chrono::hours(24 * 90);
    BOOST_TEST(fetch_key(windowed) != fetch_key(cfg.feeds[0]));
    windowed = cfg.feeds[0];
    windowed.organization_id = "42";
    BOOST_TEST(fetch_key(windowed) != fetch_key(cfg.feeds[0]));

    ServedFeeds store(cfg);
    Publishing pub(store);
    Script script;
    script.steps = {ok(4)};
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        Refreshers r(ex, cfg, store, pub.publisher, script.fn(), null_logger(), fast());
        {
            bool const ok_ = co_await r.refresh_once(0);
            BOOST_TEST(ok_);
        }
    });
    BOOST_TEST(script.calls == 1);
    BOOST_TEST(store.get("a")->items == 4u);
    BOOST_TEST(store.get("b")->items == 4u);
    BOOST_TEST(!store.get("c"));
}

BOOST_AUTO_TEST_CASE(run_refreshes_at_once_and_returns_after_stop) {
    auto cfg = one_feed();
    ServedFeeds store(cfg);
    Publishing pub(store);
    Script script;
    script.steps = {fail(errc::upstream_timeout, "events API: timed out"), ok(2)};
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        Refreshers r(ex, cfg, store, pub.publisher, script.fn(), null_logger(), fast());
        net::co_spawn(ex, r.run(), net::detached);
        // The first refresh fails, the retry (10 ms backoff) succeeds.
        net::steady_timer t(ex);
        while (!store.get("a")) {
            t.expires_after(std::chrono::milliseconds(5));
            co_await t.async_wait(net::use_awaitable);
        }
        r.stop();
        co_await net::co_spawn(
            ex,
            r.run(),
            net::use_awaitable
        ); // a second run() after stop() returns at once
    });
    BOOST_TEST(script.calls == 2);
    BOOST_TEST(store.status()[0].refreshes_failed == 1u);
}

BOOST_AUTO_TEST_CASE(real_pipeline_keeps_the_last_good_feed_through_upstream_faults) {
    // Setup: the real Pipeline against the fake upstream.
    test::FakeUpstream upstream;
    Config cfg;
    SourceConfig src;
    src.name = "eb";
    src.type = SourceType::events;
    src.base_url = upstream.base_url();
    src.secret = "demo-events-token";
    src.timeout = std::chrono::seconds(5);
    cfg.sources["eb"] = src;
    FeedConfig f;
    f.name = "mine";
    f.source = "eb";
    f.select = "organizer";
    cfg.feeds.push_back(f);
    ServedFeeds store(cfg);
    test::TempDir dir;
    Publishing pub(store, dir.path());
    UpstreamMetrics upstream_metrics;
    test::StringLogger logs;
    test::run_coro(
        [&](net::any_io_executor ex) -> net::awaitable<void> {
            // Every upstream attempt is also counted for /metrics, as `serve` wires it.
            Pipeline pipeline(
                cfg,
                ex,
                logs.logger(),
                [&upstream_metrics](
                    std::string_view source,
                    unsigned status,
                    std::chrono::duration<double> took
                ) { upstream_metrics.record(source, status, took); }
            );
            Refreshers r(ex, cfg, store, pub.publisher, pipeline_fetch(pipeline), logs.logger(), fast());
            // Run
            {
                bool const ok_ = co_await r.refresh_once(0);
                BOOST_TEST_REQUIRE(ok_);
            }
            auto good = store.get("mine");
            BOOST_TEST(good->items > 0u);
            BOOST_TEST(good->body.view().find("BEGIN:VEVENT") != std::string::npos);
            pub.flush();
            auto file = read_file(dir.file("mine.snapshot")).value();
            for (auto kind : {test::Fault::malformed_json, test::Fault::status500}) {
                test::Fault fault;
                fault.kind = kind;
                upstream.set_fault(fault);
                {
                    bool const ok_ = co_await r.refresh_once(0);
                    BOOST_TEST(!ok_);
                }
                // Check
                BOOST_TEST(store.get("mine") == good);
                pub.flush();
                BOOST_TEST(read_file(dir.file("mine.snapshot")).value() == file);
            }
            upstream.set_fault({});
            {
                bool const ok_ = co_await r.refresh_once(0);
                BOOST_TEST(ok_);
            }
            BOOST_TEST(store.get("mine") == good); // same upstream data: same bytes, same snapshot
            BOOST_TEST(store.status()[0].refreshes_failed == 2u);
            // One histogram entry per request the upstream saw: 200s, the 500s of every retry, and the
            // malformed answers (200s too).
            std::uint64_t counted = 0, server_errors = 0;
            for (auto const& series : upstream_metrics.series()) {
                BOOST_TEST(series.source == "eb");
                std::uint64_t n = 0;
                for (auto c : series.counts)
                    n += c;
                counted += n;
                if (series.code == "5xx")
                    server_errors = n;
            }
            BOOST_TEST(counted == upstream.requests().size());
            BOOST_TEST(server_errors >= 2u); // retried, each attempt counted
        },
        std::chrono::seconds(60)
    );
    BOOST_TEST(logs.joined().find("demo-events-token") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_hook_refreshes_its_sources_feeds_soon_and_a_burst_at_most_twice) {
    auto cfg = one_feed();
    FeedConfig other = cfg.feeds.front();
    other.name = "other";
    other.source = "jobs";
    cfg.feeds.push_back(other);
    ServedFeeds store(cfg);
    Publishing pub(store);
    int eb_calls = 0;
    int jobs_calls = 0;
    GroupFetch fetch = [&](FeedGroup const& g, sys_seconds) -> net::awaitable<std::vector<Result<Calendar>>> {
        ++(g.feeds.front()->source == "eb" ? eb_calls : jobs_calls);
        co_return std::vector<Result<Calendar>>(g.feeds.size(), ok(1));
    };
    auto opts = fast();
    opts.hook_delay = std::chrono::milliseconds(100);
    opts.hook_gap = std::chrono::milliseconds(600);
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        // Refreshes are an hour apart: every later one is a hook's.
        for (auto& f : cfg.feeds)
            f.refresh = std::chrono::hours(1);
        Refreshers r(ex, cfg, store, pub.publisher, fetch, null_logger(), opts);
        net::co_spawn(ex, r.run(), net::detached);
        net::steady_timer t(ex);
        auto pause = [&](int ms) {
            t.expires_after(std::chrono::milliseconds(ms));
            return t.async_wait(net::use_awaitable);
        };
        while (eb_calls < 1 || jobs_calls < 1)
            co_await pause(5);
        // One hook: one refresh, soon.
        r.poke("eb");
        for (int i = 0; i < 200 && eb_calls < 2; ++i)
            co_await pause(10);
        BOOST_TEST(eb_calls == 2);
        // A burst, spread over longer than hook_delay: at most two more.
        co_await pause(700); // past the gap of the refresh above
        for (int round = 0; round < 5; ++round) {
            for (int i = 0; i < 10; ++i)
                r.poke("eb");
            co_await pause(60);
        }
        co_await pause(1500);
        BOOST_TEST(eb_calls >= 3);
        BOOST_TEST(eb_calls <= 4);
        BOOST_TEST(jobs_calls == 1); // another source's hooks are not this one's
        r.stop();
    });
}

BOOST_AUTO_TEST_SUITE_END()
