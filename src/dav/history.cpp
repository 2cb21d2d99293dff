// File: history.cpp
// History: per feed, the names each publication changed, trimmed by age; a token is (epoch, sequence) and
// is answered by walking the entries after it.
#include "dav/dav_detail.hpp"
#include <icsbridge/dav.hpp>

#include <deque>
#include <random>
#include <set>

namespace icsbridge::dav {

struct History::Feed {
    struct Entry {
        std::uint64_t seq = 0;
        sys_seconds at{};
        std::vector<std::string> names; ///< appeared, changed or gone at this publication
    };
    std::uint64_t epoch = 0;
    std::uint64_t floor = 0;   ///< the oldest sequence a token may name (what came before is trimmed)
    std::deque<Entry> entries; ///< oldest first
    /// The newest collections with the snapshot each was cut from, newest last: a request holding a snapshot
    /// a publication just replaced still finds its own, rather than recording it again as a change back.
    /// By identity, not ETag: the same bytes published again after others (A, B, A) are a change.
    struct Cut {
        std::weak_ptr<Snapshot const> from;
        std::shared_ptr<Collection const> collection;
    };
    std::deque<Cut> recent;

    std::shared_ptr<Collection const> find(Snapshot const* snap) const {
        for (auto const& c : recent)
            if (c.from.lock().get() == snap)
                return c.collection;
        return nullptr;
    }
};

namespace {

constexpr std::size_t recent_kept = 2; // each holds a copy of the feed's bytes

std::uint64_t fresh_epoch() {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

/** The names whose etag differs between `before` and `after` (appeared, changed, gone). */
std::vector<std::string> differences(Collection const& before, Collection const& after) {
    std::vector<std::string> out;
    for (auto const& item : after.items)
        if (auto const* old = before.find(item.name); !old || old->etag != item.etag)
            out.push_back(item.name);
    for (auto const& item : before.items)
        if (!after.find(item.name))
            out.push_back(item.name);
    return out;
}

} // namespace

History::History(std::chrono::seconds keep)
    : keep_(keep) {}

History::~History() = default;

std::shared_ptr<Collection const>
History::collection(std::string const& feed, std::shared_ptr<Snapshot const> const& snap, sys_seconds now) {
    {
        std::lock_guard lock(mtx_);
        if (auto it = feeds_.find(feed); it != feeds_.end())
            if (auto c = it->second->find(snap.get()))
                return c;
    }
    auto cut = std::make_shared<Collection>(make_collection(snap->body, snap->etag));
    std::lock_guard lock(mtx_);
    auto& f = feeds_[feed];
    if (!f) {
        f = std::make_shared<Feed>();
        f->epoch = fresh_epoch();
    }
    // Another thread may have cut the same snapshot meanwhile: the first one recorded is the one.
    if (auto c = f->find(snap.get()))
        return c;
    cut->epoch = f->epoch;
    if (f->recent.empty()) {
        cut->seq = f->floor = 1;
    } else {
        auto const& latest = *f->recent.back().collection;
        cut->seq = latest.seq + 1;
        f->entries.push_back({cut->seq, now, differences(latest, *cut)});
    }
    while (!f->entries.empty() && f->entries.front().at < now - keep_) {
        f->floor = f->entries.front().seq;
        f->entries.pop_front();
    }
    f->recent.push_back({snap, cut});
    if (f->recent.size() > recent_kept)
        f->recent.pop_front();
    return cut;
}

Result<Changes> History::since(std::string const& feed, Collection const& now, std::string_view token) const {
    auto const point = detail::parse_token(token);
    std::set<std::string> names;
    {
        std::lock_guard lock(mtx_);
        auto it = feeds_.find(feed);
        if (!point || it == feeds_.end() || point->first != it->second->epoch || point->first != now.epoch ||
            point->second < it->second->floor || point->second > now.seq)
            return fail(errc::usage, "the sync token is not one of this collection's");
        for (auto const& e : it->second->entries)
            if (e.seq > point->second && e.seq <= now.seq)
                names.insert(e.names.begin(), e.names.end());
    }
    Changes out;
    for (auto const& name : names)
        (now.find(name) ? out.changed : out.gone).push_back(name);
    return out;
}

void History::forget(std::string const& feed) {
    std::lock_guard lock(mtx_);
    if (auto it = feeds_.find(feed); it != feeds_.end())
        feeds_.erase(it);
}

} // namespace icsbridge::dav
