// File: lease_test.cpp
// The lease decisions of cluster mode (cluster/lease.hpp), without a database.
#include "cluster/lease.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace icsbridge::cluster;
using namespace std::chrono_literals;

namespace lease_test {

LeaseClaim claim(bool held, std::chrono::milliseconds remaining) {
    return LeaseClaim{held, held ? "me" : "other", 3, remaining};
}

} // namespace lease_test

BOOST_AUTO_TEST_SUITE(lease_test)

BOOST_AUTO_TEST_CASE(turn_follows_the_claim) {
    // Setup / Run / Check
    BOOST_TEST((refresh_turn(claim(true, 30s), 5s) == RefreshTurn::mine));
    BOOST_TEST((refresh_turn(claim(false, 30s), 5s) == RefreshTurn::theirs));
    // Held, but about to run out: the refresh could outlive it and race the next holder.
    BOOST_TEST((refresh_turn(claim(true, 2s), 5s) == RefreshTurn::theirs));
    // No database: keep the feeds fresh alone rather than let them go stale.
    Result<LeaseClaim> away = fail(errc::io_error, "database away");
    BOOST_TEST((refresh_turn(away, 5s) == RefreshTurn::alone));
}

BOOST_AUTO_TEST_CASE(renewal_leaves_two_thirds_in_reserve) {
    BOOST_TEST(renew_after(30s).count() == 10000);
    BOOST_TEST(renew_after(3s).count() == 1000);
}

BOOST_AUTO_TEST_CASE(recheck_waits_for_the_holder_to_lapse) {
    // A holder with 12 s left: ask again just after it lapses, so a dead holder is replaced at once.
    BOOST_TEST(recheck_after(claim(false, 12s), 30s).count() == 12050);
    // Never longer than a lease, never a busy loop.
    BOOST_TEST(recheck_after(claim(false, 90s), 30s).count() == 30000);
    BOOST_TEST(recheck_after(claim(false, 0ms), 30s).count() == 100);
}

BOOST_AUTO_TEST_SUITE_END()
