// File: push_status.cpp
// PushStatus: a map under one mutex; copies out, so readers never hold the lock while formatting.
#include <icsbridge/push_status.hpp>

#include <set>

namespace icsbridge {

void PushStatus::set_targets(std::vector<std::string> const& names) {
    std::lock_guard lock(mtx_);
    std::set<std::string> const keep(names.begin(), names.end());
    std::erase_if(targets_, [&](auto const& kv) { return !keep.contains(kv.first); });
    for (auto const& n : names)
        targets_.try_emplace(n).first->second.name = n;
}

std::vector<TargetStatus> PushStatus::snapshot() const {
    std::lock_guard lock(mtx_);
    std::vector<TargetStatus> out;
    out.reserve(targets_.size());
    for (auto const& [name, s] : targets_)
        out.push_back(s);
    return out;
}

} // namespace icsbridge
