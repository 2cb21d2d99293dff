// File: rate_budget_test.cpp
// A source's call budget without clocks or sockets: the sliding window, retries and what the upstream
// reports all count; the wait ends when the oldest call leaves the window; the budget syntax; the gauges
// /metrics shows from what the budget pushes.
#include "sources/rate_budget.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace icsbridge {

namespace rate_budget_test {
using namespace std::chrono_literals;
using clock = RateBudget::clock;
clock::time_point const t0{std::chrono::hours(1000)};

/** A cluster's counter that answers what it is told to. */
struct FakeShared : SharedCalls {
    std::optional<Taken> answer;
    std::optional<Taken> try_take(std::string const&, Budget const&) override { return answer; }
    bool record(std::string const&, Budget const&, int) override { return true; }
};

/** The one budget `metrics` shows, as it stands at `t`. */
BudgetGauge shown(UpstreamMetrics const& metrics, clock::time_point t) {
    auto const all = metrics.budgets(t);
    BOOST_TEST_REQUIRE(all.size() == 1u);
    return all.front();
}
} // namespace rate_budget_test

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

BOOST_AUTO_TEST_CASE(the_gauges_shown_follow_the_window_between_pushes) {
    // Setup: 3 calls a minute, shown in the metrics; three calls, and a fourth that must wait 30 s.
    UpstreamMetrics metrics;
    RateBudget b(Budget{3, 60s});
    b.show_in(metrics, "eb");
    BOOST_TEST(shown(metrics, t0).left == 3u);
    for (auto t : {t0, t0 + 10s, t0 + 20s})
        BOOST_TEST((b.try_take(t) == clock::duration::zero()));
    BOOST_TEST((b.try_take(t0 + 30s) == clock::duration(30s)));
    // What was pushed then reads right later, with no push in between: the wait counts down, and calls
    // leave the window as they grow old.
    auto g = shown(metrics, t0 + 30s);
    BOOST_TEST(g.source == "eb");
    BOOST_TEST(g.limit == 3u);
    BOOST_TEST(g.period_seconds == 60);
    BOOST_TEST(g.used == 3u);
    BOOST_TEST(g.left == 0u);
    BOOST_TEST(g.waiting_seconds == 30);
    BOOST_TEST(shown(metrics, t0 + 45s).waiting_seconds == 15);
    g = shown(metrics, t0 + 65s);
    BOOST_TEST(g.used == 2u);
    BOOST_TEST(g.left == 1u);
    BOOST_TEST(g.waiting_seconds == 0);
    BOOST_TEST(shown(metrics, t0 + 200s).used == 0u);
    // Retries and the upstream's own count are pushed too; after stop_showing() nothing is.
    b.record_retries(2, t0 + 200s);
    BOOST_TEST(shown(metrics, t0 + 200s).used == 2u);
    b.upstream_reports(3, t0 + 201s);
    BOOST_TEST(shown(metrics, t0 + 201s).used == 3u);
    b.stop_showing();
    (void)b.try_take(t0 + 300s);
    BOOST_TEST(shown(metrics, t0 + 300s).used == 0u);
    // A reload that drops the source's budget drops its gauges.
    metrics.keep_budgets({"jobs"});
    BOOST_TEST(metrics.budgets(t0).empty());
}

BOOST_AUTO_TEST_CASE(the_gauges_shown_count_the_clusters_calls_while_their_window_lasts) {
    // Setup: the cluster has spent 8 of 8 calls a minute; the next slot opens in 20 s.
    UpstreamMetrics metrics;
    auto shared = std::make_shared<FakeShared>();
    shared->answer = SharedCalls::Taken{20s, 8};
    RateBudget b(Budget{8, 60s});
    b.share(shared, "tight");
    b.show_in(metrics, "tight");
    BOOST_TEST((b.try_take(t0) == clock::duration(20s)));
    auto g = shown(metrics, t0 + 5s);
    BOOST_TEST(g.used == 8u);
    BOOST_TEST(g.left == 0u);
    BOOST_TEST(g.waiting_seconds == 15);
    BOOST_TEST(shown(metrics, t0 + 5s).used == b.used(t0 + 5s));
    g = shown(metrics, t0 + 60s);
    BOOST_TEST(g.used == 0u);
    BOOST_TEST(g.left == 8u);
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
