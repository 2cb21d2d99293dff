// File: pg_budget_test.cpp
// The per-source call budget replicas share through a real PostgreSQL 15: three replicas together stay
// within it, calls leave the window, and without the database each replica counts alone.
#include "cluster/schema.hpp"
#include "cluster/shared_budget.hpp"
#include "sources/rate_budget.hpp"
#include "support/postgres_server.hpp"

#include <boost/test/unit_test.hpp>

#include <memory>
#include <thread>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::cluster;
using namespace std::chrono_literals;
using icsbridge::test::shared_postgres;

namespace pg_budget_test {

std::string migrated(std::string const& name) {
    auto const url = shared_postgres().fresh_database(name);
    PgConnection c(url);
    BOOST_REQUIRE(migrate(c));
    return url;
}

} // namespace pg_budget_test

BOOST_AUTO_TEST_SUITE(pg_budget_test)

BOOST_AUTO_TEST_CASE(three_replicas_share_one_budget) {
    // Setup: three replicas' counters on one database, a budget of 5 calls per hour.
    auto const url = migrated("budget3");
    Budget const spec{5, std::chrono::hours(1)};
    std::vector<std::unique_ptr<PgBudget>> replicas;
    for (int i = 0; i < 3; ++i)
        replicas.push_back(std::make_unique<PgBudget>(url));
    // Run: twelve calls, taken in turn by the three.
    int granted = 0;
    std::size_t last_used = 0;
    std::chrono::milliseconds last_wait{0};
    for (int i = 0; i < 12; ++i) {
        auto t = replicas[static_cast<std::size_t>(i % 3)]->try_take("eb", spec);
        BOOST_REQUIRE(t);
        granted += t->wait.count() == 0 ? 1 : 0;
        last_used = t->used;
        last_wait = t->wait;
    }
    // Check: five in all, then a wait of about the period (the oldest call leaves the window then).
    BOOST_TEST(granted == 5);
    BOOST_TEST(last_used == 5u);
    BOOST_TEST(last_wait > 3590s);
    BOOST_TEST(last_wait <= 3600s);
    // Another source has a window of its own; retries recorded count against the budget.
    BOOST_TEST(replicas[0]->try_take("jobs", spec)->wait.count() == 0);
    BOOST_TEST(replicas[1]->record("jobs", spec, 3));
    BOOST_TEST(replicas[2]->try_take("jobs", spec)->used == 5u);
    BOOST_TEST(replicas[2]->try_take("jobs", spec)->wait.count() > 0);
}

BOOST_AUTO_TEST_CASE(calls_leave_the_window) {
    auto const url = migrated("budgetwindow");
    Budget const spec{2, std::chrono::seconds(1)};
    PgBudget a(url), b(url);
    BOOST_TEST(a.try_take("eb", spec)->wait.count() == 0);
    BOOST_TEST(b.try_take("eb", spec)->wait.count() == 0);
    auto full = a.try_take("eb", spec);
    BOOST_REQUIRE(full);
    BOOST_TEST(full->wait.count() > 0);
    BOOST_TEST(full->wait <= 1000ms);
    std::this_thread::sleep_for(full->wait + 50ms);
    BOOST_TEST(b.try_take("eb", spec)->wait.count() == 0);
}

BOOST_AUTO_TEST_CASE(rate_budgets_of_two_replicas_count_together) {
    // Setup: two replicas' RateBudgets for source eb, 3 calls per hour, counting in the database.
    auto const url = migrated("budgetshare");
    Budget const spec{3, std::chrono::hours(1)};
    RateBudget r1(spec), r2(spec);
    r1.share(std::make_shared<PgBudget>(url), "eb");
    r2.share(std::make_shared<PgBudget>(url), "eb");
    auto const now = RateBudget::clock::now();
    // Run: r1 takes two, r2 one; then r2's own window (one call) would have room, the cluster's has not.
    BOOST_TEST(r1.try_take(now).count() == 0);
    BOOST_TEST(r1.try_take(now).count() == 0);
    BOOST_TEST(r2.try_take(now).count() == 0);
    BOOST_TEST(r2.try_take(now).count() > 0);
    BOOST_TEST(r1.try_take(now).count() > 0);
    // Check: the gauges show the cluster's count, not only their own calls.
    BOOST_TEST(r2.used(now) == 3u);
    BOOST_TEST(r2.left(now) == 0u);
}

BOOST_AUTO_TEST_CASE(without_the_database_a_replica_counts_alone) {
    // Nothing listens there: every shared answer is nullopt, and the local window decides.
    Budget const spec{2, std::chrono::hours(1)};
    RateBudget r(spec);
    r.share(std::make_shared<PgBudget>("postgresql://u:secret@/nodb?host=/nonexistent-dir"), "eb");
    auto const now = RateBudget::clock::now();
    BOOST_TEST(r.try_take(now).count() == 0);
    BOOST_TEST(r.try_take(now).count() == 0);
    BOOST_TEST(r.try_take(now).count() > 0);
    BOOST_TEST(r.used(now) == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
