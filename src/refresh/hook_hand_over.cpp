// File: hook_hand_over.cpp
// A reload's hand-over of the hook work pending in the replaced refreshers' groups to the new ones.
#include "refresh/hook_hand_over.hpp"

namespace icsbridge {

std::map<std::string, HookSchedule::Pending>
pending_hooks(std::vector<FeedGroup> const& groups, std::vector<GroupWake> const& wakes) {
    std::map<std::string, HookSchedule::Pending> out;
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        auto& to = out[groups[gi].feeds.front()->source];
        to.add(wakes[gi].loop.schedule().pending());
        to.add(wakes[gi].reading);
    }
    return out;
}

void resume_hooks(
    std::vector<FeedGroup> const& groups,
    std::vector<GroupWake>& wakes,
    std::map<std::string, HookSchedule::Pending> const& pending,
    bool can_patch
) {
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        auto it = pending.find(groups[gi].feeds.front()->source);
        if (it == pending.end() || (!it->second.patch_at && !it->second.refresh_at))
            continue;
        wakes[gi].loop.schedule().resume(it->second, can_patch);
        if (wakes[gi].sleeper)
            wakes[gi].sleeper->cancel();
    }
}

} // namespace icsbridge
