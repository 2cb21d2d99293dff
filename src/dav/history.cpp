// File: history.cpp
// History: per feed, the names each publication changed, trimmed by age; a token is (epoch, sequence) and
// is answered by walking the entries after it. A feed's history goes on from the one kept beside its
// snapshot when this process has none (a restart) or the snapshot came with one (a peer's row).
#include "dav/dav_detail.hpp"
#include "dav/history_files.hpp"
#include "dav/history_state.hpp"
#include <icsbridge/dav.hpp>

#include <deque>
#include <random>
#include <set>

namespace icsbridge::dav {

struct History::Feed : detail::HistoryState {
    Feed() = default;
    explicit Feed(detail::HistoryState s)
        : detail::HistoryState(std::move(s)) {}

    /// The newest collections with the snapshot each was cut from, newest last: a request holding a snapshot
    /// a publication just replaced still finds its own, rather than recording it again as a change back.
    /// By identity, not ETag: the same bytes published again after others (A, B, A) are a change.
    struct Cut {
        std::weak_ptr<Snapshot const> from;
        std::shared_ptr<Collection const> collection;
    };
    std::deque<Cut> recent;
    /// The state came from a kept form: the next publication recorded here skips ahead (resume_gap).
    bool resumed = false;

    std::shared_ptr<Collection const> find(Snapshot const* snap) const {
        for (auto const& c : recent)
            if (c.from.lock().get() == snap)
                return c.collection;
        return nullptr;
    }
};

/// A snapshot cut ahead of its publication, and its changes from the collection that was the latest then.
struct History::Prepared {
    std::weak_ptr<Snapshot const> from;
    std::shared_ptr<Collection> cut;
    std::shared_ptr<Collection const> basis; ///< null: the feed had none (its first collection)
    std::vector<std::string> names;          ///< what changed from basis to cut
};

namespace {

constexpr std::size_t recent_kept = 2; // each holds a copy of the feed's bytes

/// How far the first publication after a resume skips: the run before may have given out tokens for
/// publications it never kept (it crashed first), whose sequences must not come to name other content.
constexpr std::uint64_t resume_gap = 1'000'000;

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

/**
 * A kept history as the feed's at `cut`: nullopt when there is none, it is damaged, or it has no point with
 * cut's snapshot. Points after that one are dropped (the kept snapshot is older than the history kept with
 * it: their tokens are refused).
 */
std::optional<detail::HistoryState>
resume_at(std::optional<detail::HistoryState> state, Collection& cut, sys_seconds oldest) {
    auto const point = state ? state->point_of(cut.snapshot_etag) : std::nullopt;
    if (!point)
        return std::nullopt;
    state->truncate_after(*point);
    state->trim(oldest);
    cut.epoch = state->epoch;
    cut.seq = *point;
    return state;
}

} // namespace

History::History(std::chrono::seconds keep)
    : keep_(keep) {}

History::~History() = default;

void History::keep_with(std::shared_ptr<HistoryFiles const> keeping) {
    keeping_ = std::move(keeping);
}

void History::prepare(std::string const& feed, std::shared_ptr<Snapshot const> const& snap) {
    auto pre = std::make_shared<Prepared>();
    pre->from = snap;
    {
        std::lock_guard lock(mtx_);
        if (auto it = feeds_.find(feed); it != feeds_.end()) {
            if (it->second->find(snap.get()))
                return;
            if (!it->second->recent.empty())
                pre->basis = it->second->recent.back().collection;
        }
    }
    pre->cut = std::make_shared<Collection>(make_collection(snap->body, snap->etag));
    if (pre->basis)
        pre->names = differences(*pre->basis, *pre->cut);
    std::lock_guard lock(mtx_);
    prepared_.insert_or_assign(feed, std::move(pre));
}

std::shared_ptr<History::Prepared>
History::take_prepared_locked(std::string const& feed, Snapshot const* snap) {
    auto it = prepared_.find(feed);
    if (it == prepared_.end() || it->second->from.lock().get() != snap)
        return nullptr;
    auto pre = std::move(it->second);
    prepared_.erase(it);
    return pre;
}

std::shared_ptr<Collection const>
History::collection(std::string const& feed, std::shared_ptr<Snapshot const> const& snap, sys_seconds now) {
    bool known = false;
    std::shared_ptr<Prepared> pre;
    {
        std::lock_guard lock(mtx_);
        if (auto it = feeds_.find(feed); it != feeds_.end()) {
            if (auto c = it->second->find(snap.get()))
                return c;
            known = true;
        }
        pre = take_prepared_locked(feed, snap.get());
    }
    auto cut = pre ? pre->cut : std::make_shared<Collection>(make_collection(snap->body, snap->etag));
    // None of the feed's history in this process (a restart): the one kept beside the snapshot, if it
    // reaches this snapshot. Read outside the lock, like the cutting.
    auto resumed = known || !keeping_ ? std::nullopt
                                      : resume_at(detail::from_kept(keeping_->kept(feed)), *cut, now - keep_);
    std::lock_guard lock(mtx_);
    if (auto it = feeds_.find(feed); it == feeds_.end() && resumed) {
        auto f = std::make_shared<Feed>(std::move(*resumed));
        f->resumed = true;
        f->recent.push_back({snap, cut});
        feeds_.emplace(feed, std::move(f));
        return cut;
    }
    return place_locked(feed, snap, std::move(cut), now, pre.get());
}

std::shared_ptr<Collection const>
History::adopt(std::string const& feed, std::shared_ptr<Snapshot const> const& snap, sys_seconds now) {
    auto kept = keeping_ ? detail::from_kept(keeping_->kept(feed)) : std::nullopt;
    auto const point = kept ? kept->point_of(snap->etag) : std::nullopt;
    std::shared_ptr<Prepared> pre;
    {
        std::lock_guard lock(mtx_);
        auto it = feeds_.find(feed);
        auto c = it == feeds_.end() ? nullptr : it->second->find(snap.get());
        // Already at that point of that history (a peer's row of bytes this replica serves already), or
        // nothing kept that reaches the snapshot: as it is.
        if (c && (!point || (c->epoch == kept->epoch && c->seq == *point)))
            return c;
        pre = take_prepared_locked(feed, snap.get());
    }
    auto cut = pre ? pre->cut : std::make_shared<Collection>(make_collection(snap->body, snap->etag));
    auto resumed = resume_at(std::move(kept), *cut, now - keep_);
    std::lock_guard lock(mtx_);
    if (!resumed)
        return place_locked(feed, snap, std::move(cut), now, pre.get());
    // The kept history is the feed's from now on: a collection this process recorded of its own (its own
    // fetch of the same bytes, a request before this publication's subscribers) goes with its tokens.
    auto f = std::make_shared<Feed>(std::move(*resumed));
    f->resumed = true;
    f->recent.push_back({snap, cut});
    feeds_.insert_or_assign(feed, std::move(f));
    return cut;
}

std::shared_ptr<Collection const> History::place_locked(
    std::string const& feed,
    std::shared_ptr<Snapshot const> const& snap,
    std::shared_ptr<Collection> cut,
    sys_seconds now,
    Prepared const* pre
) {
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
        f->floor_etag = cut->snapshot_etag;
    } else {
        auto const& latest = f->recent.back().collection;
        cut->seq = latest->seq + (std::exchange(f->resumed, false) ? resume_gap : 1);
        // The changes found while preparing, if they were found against this same latest.
        auto names = pre && pre->basis == latest ? pre->names : differences(*latest, *cut);
        f->entries.push_back({cut->seq, now, cut->snapshot_etag, std::move(names)});
    }
    f->trim(now - keep_);
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
            point->second < it->second->floor || point->second > now.seq ||
            !it->second->is_point(point->second))
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

std::string History::kept_form(std::string const& feed, std::string_view etag) const {
    std::lock_guard lock(mtx_);
    auto it = feeds_.find(feed);
    if (it == feeds_.end())
        return {};
    auto const point = it->second->point_of(etag);
    return point ? detail::to_kept(*it->second, *point) : std::string();
}

void History::forget(std::string const& feed) {
    {
        std::lock_guard lock(mtx_);
        feeds_.erase(feed);
        prepared_.erase(feed);
    }
    if (keeping_)
        keeping_->forget(feed);
}

} // namespace icsbridge::dav
