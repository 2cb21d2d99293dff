// File: refresh_loop.hpp
// One feed group's loop policy: when it waits, asks whose turn it is, reads the events hooks named, or
// refreshes, and how long it waits after a success or a failure. Pure: every time is given, nothing waits
// (tested alone); the refresher's coroutine carries out each action and reports how it went.
#pragma once

#include "refresh/hook_schedule.hpp"

#include <chrono>
#include <functional>
#include <utility>

namespace icsbridge {

class RefreshLoop {
  public:
    using clock = std::chrono::steady_clock;

    /** @brief What the loop does next; the coroutine does it and calls the matching method. */
    struct Action {
        enum Kind {
            wait,      ///< until `until`, or until a hook moves the schedule: then woke()
            ask_lease, ///< ask for the lease: whose turn the refresh is (cluster mode); then lease()
            patch,     ///< read the events hooks named (HookSchedule::take_patches): then woke()
            refresh,   ///< fetch and publish the group: then refreshed()
        };
        Kind kind = wait;
        clock::time_point until{};
    };

    struct Policy {
        std::chrono::seconds refresh{0}; ///< between successful refreshes, before jitter
        clock::duration retry_initial{}; ///< the first wait after a failure, doubled up to `refresh`
        bool leased = false;             ///< ask whose turn it is before each refresh
        std::function<clock::duration(std::chrono::seconds)> jitter; ///< the wait after a success
    };

    RefreshLoop(Policy policy, HookSchedule::Limits limits)
        : policy_(std::move(policy))
        , schedule_(limits)
        , backoff_(policy_.retry_initial) {}

    /** @brief What webhooks asked of this group; hook() adds to it, then wakes the wait. */
    HookSchedule& schedule() { return schedule_; }
    HookSchedule const& schedule() const { return schedule_; }

    /** @brief The loop begins with a wait of `first` (the group's stagger, or what a reload left of it). */
    Action start(clock::duration first, clock::time_point now) { return nap(first, now); }
    /** @brief A wait ended (its time came or a hook woke it), or the patches were read. */
    Action woke(clock::time_point now);
    /** @brief The lease's answer: zero, ours; otherwise how long until another replica's lease may end. */
    Action lease(clock::duration not_yet, clock::time_point now);
    /** @brief A refresh ended: the next is `refresh` (jittered) away, or after a failure the backoff. */
    Action refreshed(bool ok, clock::time_point now);

  private:
    /** Waits `d` from `now`, reading hooked events meanwhile; a hook's refresh cuts it short. */
    Action nap(clock::duration d, clock::time_point now);

    Policy policy_;
    HookSchedule schedule_;
    clock::duration backoff_;
    clock::time_point nap_until_{};
};

} // namespace icsbridge
