// File: refresh_loop_test.cpp
// RefreshLoop without clocks or sockets: the first wait, the refresh after it (or the turn first in a
// cluster), the jittered interval after a success, the backoff after failures, another replica's turn,
// and hooks that read events during a wait or cut it short.
#include "refresh/refresh_loop.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace std::chrono_literals;

namespace refresh_loop_test {

using tp = RefreshLoop::clock::time_point;
using Kind = RefreshLoop::Action::Kind;

tp const t0 = tp{} + 1000s;
HookSchedule::Limits const limits{500ms, 3s, 2, 60s};

/** A group refreshing every 10 minutes, retrying after 1 s at first; a success waits 9 minutes (jitter). */
RefreshLoop make(bool leased = false) {
    RefreshLoop::Policy p{600s, 1s, leased, [](std::chrono::seconds base) {
                              return RefreshLoop::clock::duration(base * 9 / 10);
                          }};
    return {std::move(p), limits};
}

bool waits_until(RefreshLoop::Action a, tp until) {
    return a.kind == Kind::wait && a.until == until;
}

} // namespace refresh_loop_test

BOOST_AUTO_TEST_SUITE(refresh_loop_test)

BOOST_AUTO_TEST_CASE(waits_first_then_refreshes_then_waits_the_jittered_interval) {
    using namespace refresh_loop_test;
    auto loop = make();
    BOOST_TEST(waits_until(loop.start(2s, t0), t0 + 2s));
    // A wait that ends early (the timer cancelled) waits on for the rest.
    BOOST_TEST(waits_until(loop.woke(t0 + 1s), t0 + 2s));
    BOOST_TEST((loop.woke(t0 + 2s).kind == Kind::refresh));
    BOOST_TEST(waits_until(loop.refreshed(true, t0 + 5s), t0 + 5s + 540s));
    BOOST_TEST((loop.woke(t0 + 545s).kind == Kind::refresh));
}

BOOST_AUTO_TEST_CASE(no_first_wait_refreshes_at_once) {
    using namespace refresh_loop_test;
    auto loop = make();
    BOOST_TEST((loop.start(0s, t0).kind == Kind::refresh));
}

BOOST_AUTO_TEST_CASE(failures_back_off_doubling_up_to_the_interval_and_a_success_resets_it) {
    using namespace refresh_loop_test;
    auto loop = make();
    (void)loop.start(0s, t0);
    tp now = t0;
    for (auto want : {1s, 2s, 4s, 8s, 16s, 32s, 64s, 128s, 256s, 512s, 600s, 600s}) {
        BOOST_TEST(waits_until(loop.refreshed(false, now), now + want));
        now += want;
        BOOST_TEST((loop.woke(now).kind == Kind::refresh));
    }
    (void)loop.refreshed(true, now);
    BOOST_TEST(waits_until(loop.refreshed(false, now), now + 1s));
}

BOOST_AUTO_TEST_CASE(in_a_cluster_it_asks_whose_turn_and_waits_out_another_replicas) {
    using namespace refresh_loop_test;
    auto loop = make(true);
    BOOST_TEST((loop.start(0s, t0).kind == Kind::ask_lease));
    BOOST_TEST(waits_until(loop.lease(30s, t0), t0 + 30s));
    BOOST_TEST((loop.woke(t0 + 30s).kind == Kind::ask_lease));
    BOOST_TEST((loop.lease(0s, t0 + 30s).kind == Kind::refresh));
}

BOOST_AUTO_TEST_CASE(another_replicas_turn_forgets_what_hooks_asked) {
    using namespace refresh_loop_test;
    auto loop = make(true);
    (void)loop.start(0s, t0);
    loop.schedule().hooked("", false, t0);
    // Left set, the hook's refresh would end this wait at t0 + 500ms.
    BOOST_TEST(waits_until(loop.lease(30s, t0), t0 + 30s));
    BOOST_TEST(!loop.schedule().next());
}

BOOST_AUTO_TEST_CASE(hooked_events_are_read_during_the_wait_which_goes_on) {
    using namespace refresh_loop_test;
    auto loop = make();
    (void)loop.start(0s, t0);
    BOOST_TEST(waits_until(loop.refreshed(true, t0), t0 + 540s));
    loop.schedule().hooked("42", true, t0 + 10s);
    BOOST_TEST(waits_until(loop.woke(t0 + 10s), t0 + 10s + 500ms)); // the hook woke the wait: sooner now
    BOOST_TEST((loop.woke(t0 + 10s + 500ms).kind == Kind::patch));
    BOOST_TEST((loop.schedule().take_patches() == std::set<std::string>{"42"}));
    BOOST_TEST(waits_until(loop.woke(t0 + 11s), t0 + 540s));
}

BOOST_AUTO_TEST_CASE(a_hooks_refresh_cuts_the_wait_short) {
    using namespace refresh_loop_test;
    auto loop = make();
    (void)loop.start(0s, t0);
    loop.schedule().refresh_started(t0);
    BOOST_TEST(waits_until(loop.refreshed(true, t0 + 1s), t0 + 1s + 540s));
    loop.schedule().hooked("", true, t0 + 10s);
    BOOST_TEST(waits_until(loop.woke(t0 + 10s), t0 + 10s + 500ms));
    BOOST_TEST((loop.woke(t0 + 10s + 500ms).kind == Kind::refresh));
}

BOOST_AUTO_TEST_CASE(patches_due_when_the_wait_ends_give_way_to_the_refresh) {
    using namespace refresh_loop_test;
    auto loop = make();
    BOOST_TEST(waits_until(loop.start(1s, t0), t0 + 1s));
    loop.schedule().hooked("42", true, t0);
    // Due since t0 + 500ms; woken only when its own time has come, the loop refreshes, which reads it too.
    BOOST_TEST((loop.woke(t0 + 1s).kind == Kind::refresh));
}

BOOST_AUTO_TEST_SUITE_END()
