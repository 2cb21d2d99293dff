// File: fetch_within_test.cpp
// fetch_within(): a fetch that ends in time gives its result; one that does not is cancelled at the
// deadline and gives nullopt, or for one feed the error that names fetch_timeout.
#include "pipeline/fetch_within.hpp"
#include "support/run_coro.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>

namespace fetch_within_test {

namespace net = boost::asio;
using namespace icsbridge;
using namespace std::chrono_literals;

/** A fetch that takes `d` and gives `value`; `finished` says whether it ran to its end. */
net::awaitable<int> slow(std::chrono::milliseconds d, int value, bool& finished) {
    net::steady_timer t(co_await net::this_coro::executor, d);
    auto [ec] = co_await t.async_wait(use_tuple);
    if (ec)
        co_return -1; // cancelled: the loser of `||` still runs to here, with operation_aborted
    finished = true;
    co_return value;
}

net::awaitable<Result<Calendar>> slow_feed(std::chrono::milliseconds d) {
    net::steady_timer t(co_await net::this_coro::executor, d);
    co_await t.async_wait(use_tuple);
    co_return Calendar{"BEGIN:VCALENDAR", 0};
}

} // namespace fetch_within_test

BOOST_AUTO_TEST_SUITE(fetch_within_test)

BOOST_AUTO_TEST_CASE(in_time_gives_the_result_late_gives_nothing) {
    using namespace fetch_within_test;
    test::run_coro([](net::any_io_executor) -> net::awaitable<void> {
        bool finished = false;
        auto quick = fetch_within(slow(10ms, 7, finished), 5s);
        auto got = co_await std::move(quick);
        BOOST_TEST(got.has_value());
        BOOST_TEST(got.value_or(0) == 7);
        BOOST_TEST(finished);
        finished = false;
        auto const t0 = std::chrono::steady_clock::now();
        auto late = fetch_within(slow(5s, 8, finished), 50ms);
        auto none = co_await std::move(late);
        BOOST_TEST(!none.has_value());
        BOOST_TEST(!finished);                                    // cancelled at the deadline, not waited for
        BOOST_TEST((std::chrono::steady_clock::now() - t0 < 2s)); // a time_point cannot be printed
    });
}

BOOST_AUTO_TEST_CASE(a_late_feed_fails_with_the_key_to_raise) {
    using namespace fetch_within_test;
    test::run_coro([](net::any_io_executor) -> net::awaitable<void> {
        FeedConfig feed;
        feed.name = "club";
        feed.fetch_timeout = 1s;
        auto late = fetch_within(slow_feed(5s), feed);
        auto r = co_await std::move(late);
        BOOST_REQUIRE(!r);
        BOOST_TEST(r.error().code == errc::upstream_timeout);
        BOOST_TEST(
            r.error().message == "the fetch took longer than fetch_timeout = 1s (every page and retry "
                                 "included); raise [feeds.club] fetch_timeout if the upstream is just slow"
        );
        auto quick = fetch_within(slow_feed(10ms), feed);
        auto ok = co_await std::move(quick);
        BOOST_TEST(ok.has_value());
    });
}

BOOST_AUTO_TEST_SUITE_END()
