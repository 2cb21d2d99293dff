// File: hook_schedule.cpp
// HookSchedule: patches half a second after the first hook that names an event, refreshes for the others.
#include "refresh/hook_schedule.hpp"

#include <algorithm>
#include <utility>

namespace icsbridge {

void HookSchedule::hooked(std::string const& id, bool can_patch, clock::time_point now) {
    // A refresh already coming reads this event too.
    if (refresh_at_)
        return;
    if (id.empty() || !can_patch) {
        refresh_needed(now);
        return;
    }
    events_.insert(id);
    if (!patch_at_)
        patch_at_ = now + limits_.delay;
}

void HookSchedule::refresh_needed(clock::time_point now) {
    if (refresh_at_)
        return;
    auto due = std::max(now + limits_.delay, last_start_ + limits_.gap);
    if (limits_.refreshes > 0 && hook_refreshes_.size() >= limits_.refreshes)
        due = std::max(due, hook_refreshes_.front() + limits_.window);
    refresh_at_ = due;
}

std::optional<HookSchedule::clock::time_point> HookSchedule::next() const {
    if (refresh_at_ && patch_at_)
        return std::min(*refresh_at_, *patch_at_);
    return refresh_at_ ? refresh_at_ : patch_at_;
}

bool HookSchedule::patches_due(clock::time_point now) const {
    return patch_at_ && now >= *patch_at_ && !refresh_due(now);
}

std::set<std::string> HookSchedule::take_patches() {
    patch_at_.reset();
    return std::exchange(events_, {});
}

bool HookSchedule::refresh_started(clock::time_point now) {
    bool const hooked = refresh_due(now);
    if (hooked) {
        hook_refreshes_.push_back(now);
        while (hook_refreshes_.size() > std::max<std::size_t>(limits_.refreshes, 1) ||
               hook_refreshes_.front() + limits_.window <= now)
            hook_refreshes_.pop_front();
    }
    refresh_at_.reset();
    patch_at_.reset();
    events_.clear();
    last_start_ = now;
    return hooked;
}

namespace {

void earliest(
    std::optional<HookSchedule::clock::time_point>& at, std::optional<HookSchedule::clock::time_point> due
) {
    if (due)
        at = at ? std::min(*at, *due) : due;
}

} // namespace

void HookSchedule::Pending::add(Pending const& p) {
    events.insert(p.events.begin(), p.events.end());
    earliest(patch_at, p.patch_at);
    earliest(refresh_at, p.refresh_at);
}

void HookSchedule::resume(Pending const& p, bool can_patch) {
    earliest(refresh_at_, p.refresh_at);
    if (!p.patch_at || p.events.empty())
        return;
    if (can_patch) {
        events_.insert(p.events.begin(), p.events.end());
        earliest(patch_at_, p.patch_at);
    } else {
        earliest(refresh_at_, p.patch_at);
    }
}

void HookSchedule::forget() {
    refresh_at_.reset();
    patch_at_.reset();
    events_.clear();
}

} // namespace icsbridge
