// File: hook_schedule_test.cpp
// HookSchedule without clocks: a hook naming an event is one read after the delay (a burst: one read of
// each event), others a refresh, hook refreshes at most `refreshes` per window, a refresh covers what is
// pending.
#include "refresh/hook_schedule.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace std::chrono_literals;
using tp = HookSchedule::clock::time_point;

namespace hook_schedule_test {
tp const t0 = tp{} + 1000s;
HookSchedule::Limits const limits{500ms, 3s, 2, 60s};
} // namespace hook_schedule_test

BOOST_AUTO_TEST_SUITE(hook_schedule_test)

BOOST_AUTO_TEST_CASE(hooks_naming_events_are_one_read_each_after_the_delay) {
    HookSchedule s(limits);
    BOOST_TEST(!s.next());
    s.hooked("42", true, t0);
    s.hooked("42", true, t0 + 100ms);
    s.hooked("7", true, t0 + 200ms);
    BOOST_TEST((*s.next() == t0 + 500ms)); // from the first hook: a burst does not push it on
    BOOST_TEST(!s.patches_due(t0 + 499ms));
    BOOST_TEST(s.patches_due(t0 + 500ms));
    BOOST_TEST(!s.refresh_due(t0 + 10s));
    BOOST_TEST((s.take_patches() == std::set<std::string>{"42", "7"}));
    BOOST_TEST(!s.next());
}

BOOST_AUTO_TEST_CASE(a_hook_naming_nothing_or_a_group_that_cannot_patch_refreshes) {
    HookSchedule s(limits);
    s.refresh_started(t0); // the last refresh began at t0
    s.hooked("", true, t0 + 1s);
    BOOST_TEST((*s.next() == t0 + 3s)); // not sooner than the gap after the last start
    HookSchedule search(limits);
    search.hooked("42", false, t0);
    BOOST_TEST(search.refresh_due(t0 + 500ms));
    BOOST_TEST(!search.patches_due(t0 + 500ms));
}

BOOST_AUTO_TEST_CASE(at_most_two_hook_refreshes_a_minute) {
    HookSchedule s(limits);
    tp now = t0;
    int refreshes = 0;
    // Ten hooks that each ask for a refresh, 6 s apart (past the gap each time): a minute's worth.
    for (int i = 0; i < 10; ++i, now += 6s) {
        s.hooked("", false, now);
        if (s.refresh_due(now + 500ms)) {
            BOOST_TEST(s.refresh_started(now + 500ms));
            ++refreshes;
        }
    }
    BOOST_TEST(refreshes == 2);
    // The third waits for the first to leave the window, then goes.
    BOOST_TEST((*s.next() == t0 + 500ms + 60s));
}

BOOST_AUTO_TEST_CASE(a_refresh_covers_pending_reads_and_a_timed_one_is_not_a_hooks) {
    HookSchedule s(limits);
    s.hooked("42", true, t0);
    BOOST_TEST(!s.refresh_started(t0 + 100ms)); // the timer's refresh, not the hook's
    BOOST_TEST(!s.next());
    BOOST_TEST(s.take_patches().empty());
    s.hooked("42", true, t0 + 200ms);
    s.refresh_needed(t0 + 300ms); // the read failed: a refresh instead, which also reads 42
    BOOST_TEST(s.refresh_due(t0 + 3100ms));
    BOOST_TEST(!s.patches_due(t0 + 3100ms));
    s.forget(); // another replica's turn
    BOOST_TEST(!s.next());
}

BOOST_AUTO_TEST_CASE(a_reload_carries_what_is_pending_due_when_it_was) {
    HookSchedule old(limits);
    old.hooked("42", true, t0);
    old.hooked("7", true, t0 + 100ms);
    auto pending = old.pending();
    HookSchedule::Pending reading{{"9"}, t0 - 1s, std::nullopt}; // a read under way
    pending.add(reading);
    BOOST_TEST((pending.patch_at == t0 - 1s)); // the earlier of the two

    HookSchedule next(limits); // the new refreshers', whose group can patch
    next.resume(old.pending(), true);
    BOOST_TEST((*next.next() == t0 + 500ms)); // not a new delay from the reload on
    BOOST_TEST(next.patches_due(t0 + 500ms));
    BOOST_TEST((next.take_patches() == std::set<std::string>{"42", "7"}));

    HookSchedule search(limits); // a group that cannot patch refreshes then instead
    search.resume(old.pending(), false);
    BOOST_TEST(search.refresh_due(t0 + 500ms));
    BOOST_TEST(!search.refresh_due(t0 + 499ms));

    HookSchedule refreshing(limits); // a refresh hooks asked for, under way at the reload: again at once
    refreshing.resume({{}, std::nullopt, t0}, true);
    BOOST_TEST(refreshing.refresh_due(t0));
    HookSchedule idle(limits);
    idle.resume(HookSchedule(limits).pending(), true);
    BOOST_TEST(!idle.next());
}

BOOST_AUTO_TEST_SUITE_END()
