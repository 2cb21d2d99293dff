// File: push_loop_policy_test.cpp
// LoopPolicy, the push loop's steps without sockets or timers: a reconcile at start, then one per period or
// per wake; a refusal holds wakes off until the next period; in a cluster the lease is asked for first
// and another replica's lease waited out; stop ends the loop at its next step.
#include "push/loop_policy.hpp"

#include <boost/test/unit_test.hpp>

namespace push_loop_policy_test {

using icsbridge::errc;
using icsbridge::push::LoopPolicy;
using Kind = LoopPolicy::Action::Kind;
using namespace std::chrono_literals;

LoopPolicy::clock::time_point const t0{std::chrono::hours(1000)};

LoopPolicy::Action wait_until(LoopPolicy::clock::time_point t) {
    return {Kind::wait_until, t};
}

LoopPolicy::Action const reconcile{Kind::reconcile, {}};
LoopPolicy::Action const ask_lease{Kind::ask_lease, {}};
LoopPolicy::Action const done{Kind::done, {}};

} // namespace push_loop_policy_test

BOOST_AUTO_TEST_SUITE(push_loop_policy_test)

BOOST_AUTO_TEST_CASE(reconciles_at_start_then_each_period_and_on_each_wake) {
    using namespace push_loop_policy_test;
    // Setup
    LoopPolicy p(60s, false);
    // Run the test
    BOOST_TEST((p.next(t0) == reconcile)); // what drifted while down is repaired first
    p.reconciled(std::nullopt, t0 + 1s);
    BOOST_TEST((p.next(t0 + 1s) == wait_until(t0 + 61s)));
    p.waited(t0 + 61s); // the period came round
    BOOST_TEST((p.next(t0 + 61s) == reconcile));
    p.reconciled(std::nullopt, t0 + 62s);
    BOOST_TEST((p.next(t0 + 62s) == wait_until(t0 + 122s)));
    p.woken(); // a mirrored feed was published: the wait is cut short
    p.waited(t0 + 70s);
    BOOST_TEST((p.next(t0 + 70s) == reconcile));
    p.woken(); // published again while reconciling: one more reconcile right after
    p.reconciled(std::nullopt, t0 + 71s);
    BOOST_TEST((p.next(t0 + 71s) == reconcile));
}

BOOST_AUTO_TEST_CASE(a_refusal_holds_wakes_off_until_the_next_period) {
    using namespace push_loop_policy_test;
    // Setup
    LoopPolicy p(60s, false);
    BOOST_TEST((p.next(t0) == reconcile));
    // Run the test
    p.reconciled(errc::upstream_auth, t0);
    BOOST_TEST((p.next(t0) == wait_until(t0 + 60s)));
    p.woken();
    p.waited(t0 + 5s); // woken within the refusal's wait: no retry storm
    BOOST_TEST((p.next(t0 + 5s) == wait_until(t0 + 60s)));
    p.waited(t0 + 60s);
    BOOST_TEST((p.next(t0 + 60s) == reconcile));
    // A failure that is no refusal (a network error) retries on the next wake.
    p.reconciled(errc::upstream_timeout, t0 + 61s);
    BOOST_TEST((p.next(t0 + 61s) == wait_until(t0 + 121s)));
    p.woken();
    p.waited(t0 + 62s);
    BOOST_TEST((p.next(t0 + 62s) == reconcile));
    BOOST_TEST(LoopPolicy::is_refusal(errc::upstream_rate_limited));
    BOOST_TEST(!LoopPolicy::is_refusal(errc::shutdown));
}

BOOST_AUTO_TEST_CASE(in_a_cluster_the_lease_comes_first) {
    using namespace push_loop_policy_test;
    // Setup
    LoopPolicy p(60s, true);
    // Run the test
    BOOST_TEST((p.next(t0) == ask_lease));
    p.lease_answered(30000ms, t0); // another replica holds the lease for up to 30 s
    BOOST_TEST((p.next(t0) == wait_until(t0 + 30s)));
    p.woken();
    p.waited(t0 + 1s); // a wake does not end another replica's lease sooner
    BOOST_TEST((p.next(t0 + 1s) == wait_until(t0 + 30s)));
    p.waited(t0 + 30s);
    BOOST_TEST((p.next(t0 + 30s) == ask_lease));
    p.lease_answered(0ms, t0 + 30s);
    BOOST_TEST((p.next(t0 + 30s) == reconcile));
    p.reconciled(std::nullopt, t0 + 31s);
    BOOST_TEST((p.next(t0 + 31s) == wait_until(t0 + 91s)));
}

BOOST_AUTO_TEST_CASE(stop_ends_the_loop_at_its_next_step) {
    using namespace push_loop_policy_test;
    // Setup
    LoopPolicy p(60s, true);
    BOOST_TEST((p.next(t0) == ask_lease));
    p.lease_answered(0ms, t0);
    // Run the test
    p.stop();
    BOOST_TEST(p.stopped());
    BOOST_TEST((p.next(t0) == done)); // not even the reconcile its lease allowed
    p.waited(t0 + 1s);
    BOOST_TEST((p.next(t0 + 1s) == done));
}

BOOST_AUTO_TEST_SUITE_END()
