// File: rate_budget_test.cpp
// A source's call budget without clocks or sockets: the sliding window, retries and what the upstream
// reports all count; the wait ends when the oldest call leaves the window; the budget syntax.
#include "sources/rate_budget.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>

namespace icsbridge {

namespace {
using namespace std::chrono_literals;
using clock = RateBudget::clock;
clock::time_point const t0{std::chrono::hours(1000)};
} // namespace

BOOST_AUTO_TEST_SUITE(rate_budget_test)

BOOST_AUTO_TEST_CASE(budget_syntax) {
    BOOST_TEST((parse_budget("2000/h") == Budget{2000, 3600s}));
    BOOST_TEST((parse_budget("20/m") == Budget{20, 60s}));
    BOOST_TEST((parse_budget("100/15m") == Budget{100, 900s}));
    BOOST_TEST((parse_budget("5/1s") == Budget{5, 1s}));
    for (auto bad : {"", "2000", "/h", "0/h", "2000/", "2000/x", "-1/h", "20/0s", "1e3/h", "2000/h/h"})
        BOOST_TEST(!parse_budget(bad).has_value(), bad);
}

BOOST_AUTO_TEST_CASE(calls_beyond_the_budget_wait_for_the_oldest_to_leave_the_window) {
    RateBudget b(Budget{3, 60s});
    BOOST_TEST((b.try_take(t0) == clock::duration::zero()));
    BOOST_TEST((b.try_take(t0 + 10s) == clock::duration::zero()));
    BOOST_TEST((b.try_take(t0 + 20s) == clock::duration::zero()));
    BOOST_TEST(b.left(t0 + 20s) == 0u);
    // The fourth waits until the first is 60 s old.
    BOOST_TEST((b.try_take(t0 + 30s) == clock::duration(30s)));
    BOOST_TEST(b.waiting_until().has_value());
    BOOST_TEST((b.try_take(t0 + 60s) == clock::duration::zero()));
    BOOST_TEST(b.used(t0 + 60s) == 3u);
    BOOST_TEST(b.used(t0 + 200s) == 0u);
}

BOOST_AUTO_TEST_CASE(retries_and_upstream_reports_count) {
    RateBudget b(Budget{10, 60s});
    BOOST_TEST((b.try_take(t0) == clock::duration::zero()));
    b.record_retries(3, t0);
    BOOST_TEST(b.used(t0) == 4u);
    b.upstream_reports(9, t0 + 1s); // another client of the same token spent some
    BOOST_TEST(b.used(t0 + 1s) == 9u);
    b.upstream_reports(50, t0 + 1s); // never more than the budget itself
    BOOST_TEST(b.used(t0 + 1s) == 10u);
    BOOST_TEST(b.try_take(t0 + 2s) > clock::duration::zero());
}

BOOST_AUTO_TEST_CASE(upstream_rate_limit_headers) {
    BOOST_TEST((reported_use("key[abc]: 1180 of 2000 hourly; ip: 3 of 100 per minute", "", "") == 1180u));
    BOOST_TEST((reported_use("", "2000", "1500") == 500u));
    BOOST_TEST((reported_use("", "2000", "2500") == 0u));
    BOOST_TEST(!reported_use("", "", "").has_value());
    BOOST_TEST(!reported_use("garbage", "x", "y").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace icsbridge
