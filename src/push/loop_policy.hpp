// File: loop_policy.hpp
// When a push target's loop reconciles: at start, when a mirrored feed is published, once per period; after a
// refusal (credentials, rights, quota, throttling) not before the next period; in a cluster only while it
// holds the lease, asking again when another replica's may have ended. Sans-io: every time is given, and
// next() returns what to do; TargetLoop::run only carries it out (tested alone, like HookSchedule).
#pragma once

#include <icsbridge/error.hpp>

#include <chrono>
#include <optional>

namespace icsbridge::push {

class LoopPolicy {
  public:
    using clock = std::chrono::steady_clock;

    /** @brief What the loop does next. */
    struct Action {
        enum class Kind {
            wait_until, ///< sleep until `until`, or until woken or stopped; then waited()
            ask_lease,  ///< ask for the target's lease (is it this replica's turn?); then lease_answered()
            reconcile,  ///< reconcile the target; then reconciled()
            done,       ///< stopped: the loop ends
        };
        Kind kind = Kind::done;
        clock::time_point until{};
        friend bool operator==(Action const&, Action const&) = default;
    };

    /** @param leased whether the lease must be asked for first (a cluster; not on one box) */
    LoopPolicy(std::chrono::seconds period, bool leased)
        : period_(period)
        , leased_(leased) {}

    /** @brief The next step as of `now`. */
    Action next(clock::time_point now);

    /** @brief A feed the target mirrors was published: reconcile soon (once any refusal's wait is over). */
    void woken() { dirty_ = true; }
    /** @brief The loop ends at its next step. */
    void stop() { stopping_ = true; }
    /** @brief The wait of a wait_until ended (its time came, or a wake or stop cut it short). */
    void waited(clock::time_point now);
    /** @brief Zero: the lease is this replica's. Otherwise another's: ask again after `wait`. */
    void lease_answered(std::chrono::milliseconds wait, clock::time_point now);
    /** @brief The reconcile ended, with the error that ended it, if any. */
    void reconciled(std::optional<errc> failure, clock::time_point now);

    /** @brief Whether stop() was called (a reconcile under way ends at its next write). */
    bool stopped() const { return stopping_; }

    /** @brief A refusal waits for the next period (no retry storm); other failures retry on the next wake. */
    static bool is_refusal(errc e);

  private:
    enum class Phase { top, waited, lease_ours };
    Action go();

    std::chrono::seconds period_;
    bool leased_;
    Phase phase_ = Phase::top;
    bool dirty_ = true; ///< a first reconcile at start repairs what drifted while down
    bool stopping_ = false;
    bool passed_ = false; ///< the last wait ended with the loop free to go on
    clock::time_point blocked_until_{};
};

} // namespace icsbridge::push
