// File: hook_hand_over.hpp
// Each feed group's hook state in the refreshers (its loop, the wait a hook cuts short, the hook work under
// way), and a reload's hand-over of it: what the replaced refreshers' groups had pending, per source, taken
// on by the new ones due when it was due, so that no hook is lost with the generation it went to.
#pragma once

#include "refresh/refresh_loop.hpp"
#include <icsbridge/feed_groups.hpp>

#include <boost/asio/steady_timer.hpp>

#include <map>
#include <string>
#include <vector>

namespace icsbridge {

/** @brief One group's loop policy (with what webhooks asked for), and the loop's wait to cut short. */
struct GroupWake {
    RefreshLoop loop;
    boost::asio::steady_timer* sleeper = nullptr;
    /// Hook work under way (events being read, a refresh hooks asked for): a reload hands it on too.
    HookSchedule::Pending reading{};
};

/** @brief Marks hook work under way in a group's `reading`, and clears it when the work ends, however. */
class HookWorkUnderWay {
  public:
    HookWorkUnderWay(GroupWake& wake, HookSchedule::Pending what)
        : w_(wake) {
        w_.reading = std::move(what);
    }
    ~HookWorkUnderWay() { w_.reading = {}; }
    HookWorkUnderWay(HookWorkUnderWay const&) = delete;
    HookWorkUnderWay& operator=(HookWorkUnderWay const&) = delete;

  private:
    GroupWake& w_;
};

/** @brief Per source, the hook work pending or under way in its groups (for a reload's successor). */
std::map<std::string, HookSchedule::Pending>
pending_hooks(std::vector<FeedGroup> const& groups, std::vector<GroupWake> const& wakes);

/**
 * @brief Takes on the hook work a reload's replaced refreshers left (pending_hooks), due as it was, and
 * wakes the groups' waits. `can_patch`: these refreshers read single events.
 */
void resume_hooks(
    std::vector<FeedGroup> const& groups,
    std::vector<GroupWake>& wakes,
    std::map<std::string, HookSchedule::Pending> const& pending,
    bool can_patch
);

} // namespace icsbridge
