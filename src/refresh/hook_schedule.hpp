// File: hook_schedule.hpp
// When a feed group's webhook work is due: reads of the single events hooks named (patches), or a refresh,
// at most `refreshes` per `window` for hooks. Pure: every time is given, nothing waits (tested alone).
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <set>
#include <string>

namespace icsbridge {

class HookSchedule {
  public:
    using clock = std::chrono::steady_clock;
    struct Limits {
        clock::duration delay = std::chrono::milliseconds(500); ///< after a hook, so a burst is one
        clock::duration gap = std::chrono::seconds(3);          ///< between the starts of refreshes
        std::size_t refreshes = 2;                              ///< hook refreshes per window (0: no cap)
        clock::duration window = std::chrono::minutes(1);
    };

    /// What hooks asked for and is not done yet, with when it is due: a reload carries it from the
    /// replaced refreshers into the new ones, so that no hook is lost with the generation it went to.
    struct Pending {
        std::set<std::string> events;              ///< to read (patches)
        std::optional<clock::time_point> patch_at; ///< when they are due
        std::optional<clock::time_point> refresh_at;
        /** @brief Adds `p`'s events; each time the earlier of the two. */
        void add(Pending const& p);
    };

    explicit HookSchedule(Limits limits)
        : limits_(limits) {}

    /** @brief A hook naming event `id` (empty: none). `can_patch`: the group reads single events. */
    void hooked(std::string const& id, bool can_patch, clock::time_point now);
    /** @brief A refresh must follow, as if a hook asked for one (a patch could not be made). */
    void refresh_needed(clock::time_point now);

    /** @brief When the next piece of work is due; nullopt when none is pending. */
    std::optional<clock::time_point> next() const;
    /** @brief A hook's refresh is due now (it covers any patches pending). */
    bool refresh_due(clock::time_point now) const { return refresh_at_ && now >= *refresh_at_; }
    /** @brief Patches are due now, and no refresh is. */
    bool patches_due(clock::time_point now) const;
    /** @brief The events to read now; none pending afterwards. */
    std::set<std::string> take_patches();

    /**
     * @brief A refresh begins, whatever started it: it reads every event, so pending work is done by it.
     * @return true when a hook's refresh was due (it counts against `refreshes` per `window`)
     */
    bool refresh_started(clock::time_point now);

    /** @brief What is pending now (see Pending). */
    Pending pending() const { return {events_, patch_at_, refresh_at_}; }
    /**
     * @brief Takes on work another schedule had pending (a reload's previous refreshers), due when it was
     * due there. `can_patch`: this group reads single events; if not, the events are read by a refresh.
     */
    void resume(Pending const& p, bool can_patch);

    /** @brief Another replica's turn: what hooks asked for is its business (a refresh is not ours). */
    void forget();

  private:
    Limits limits_;
    std::set<std::string> events_;
    std::optional<clock::time_point> patch_at_;
    std::optional<clock::time_point> refresh_at_;
    clock::time_point last_start_{};
    std::deque<clock::time_point> hook_refreshes_; ///< starts of hook refreshes within the window
};

} // namespace icsbridge
