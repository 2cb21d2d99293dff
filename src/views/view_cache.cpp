// File: view_cache.cpp
// ViewCache: lookups under a short lock; builds (index, view, hash, gzip) under a separate build lock,
// so a request for a cached view never waits for another view being built.
#include "views/view_cache.hpp"

#include <algorithm>

namespace icsbridge {

ViewCache::ViewCache(ViewCacheLimits limits)
    : limits_(limits) {}

ViewCache::~ViewCache() = default;

std::shared_ptr<Snapshot const> ViewCache::lookup(std::string const& key) {
    std::lock_guard lock(mtx_);
    auto it = by_key_.find(key);
    if (it == by_key_.end())
        return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);
    ++hits_;
    return it->second->view;
}

void ViewCache::erase_locked(Lru::iterator it) {
    bytes_ -= it->bytes;
    if (auto f = feeds_.find(it->feed); f != feeds_.end())
        --f->second.entries;
    by_key_.erase(it->key);
    lru_.erase(it);
}

void ViewCache::drop_feed_locked(std::string const& feed) {
    for (auto it = lru_.begin(); it != lru_.end();) {
        auto next = std::next(it);
        if (it->feed == feed)
            erase_locked(it);
        it = next;
    }
}

void ViewCache::drop(std::string_view feed) {
    std::lock_guard lock(mtx_);
    auto st = feeds_.find(feed);
    if (st == feeds_.end())
        return;
    drop_feed_locked(std::string(feed));
    bytes_ -= st->second.index_bytes;
    feeds_.erase(st);
}

Result<std::shared_ptr<views::FeedIndex const>>
ViewCache::index_of(std::string_view feed, Snapshot const& snap) {
    {
        std::lock_guard lock(mtx_);
        if (auto it = feeds_.find(feed); it != feeds_.end() && it->second.etag == snap.etag)
            return it->second.index;
    }
    auto built = views::index_calendar(snap.body);
    if (!built)
        return fail(errc::render_failed, "the feed's calendar cannot be cut into views");
    auto index = std::make_shared<views::FeedIndex const>(std::move(*built));
    std::lock_guard lock(mtx_);
    auto& st = feeds_[std::string(feed)];
    // Another request (the agenda page does not take the build lock) may have indexed it meanwhile.
    if (st.etag == snap.etag && st.index)
        return st.index;
    // A new snapshot: its views replace the old ones, which no request can ask for any more.
    drop_feed_locked(std::string(feed));
    bytes_ -= st.index_bytes;
    st.etag = snap.etag;
    st.index = index;
    st.index_bytes = index->bytes();
    bytes_ += st.index_bytes;
    return index;
}

void ViewCache::insert(Entry e) {
    std::lock_guard lock(mtx_);
    if (by_key_.count(e.key))
        return;
    auto& feed = feeds_[e.feed];
    ++feed.entries;
    bytes_ += e.bytes;
    std::string const name = e.feed;
    lru_.push_front(std::move(e));
    by_key_.emplace(lru_.front().key, lru_.begin());
    // The least recently used view of this feed first, then of any feed, until within bounds.
    while (feed.entries > limits_.max_entries_per_feed) {
        auto victim =
            std::find_if(lru_.rbegin(), lru_.rend(), [&](Entry const& x) { return x.feed == name; });
        erase_locked(std::prev(victim.base()));
        ++evictions_;
    }
    while (!lru_.empty() && (lru_.size() > limits_.max_entries || bytes_ > limits_.max_bytes)) {
        erase_locked(std::prev(lru_.end()));
        ++evictions_;
    }
}

Result<std::shared_ptr<Snapshot const>> ViewCache::get(
    std::string_view feed,
    std::shared_ptr<Snapshot const> const& snap,
    views::ViewParams const& p,
    bool gzip,
    SnapshotFiles const* files
) {
    std::string key = std::string(feed) + '\n' + snap->etag + '\n' + p.key();
    if (auto v = lookup(key))
        return v;
    std::lock_guard build(build_mtx_);
    // Another request may have built it while this one waited.
    if (auto v = lookup(key))
        return v;
    {
        std::lock_guard lock(mtx_);
        ++misses_;
    }
    auto index = index_of(feed, *snap);
    if (!index)
        return index.error();
    auto text = views::build_view(snap->body, **index, p);
    text.body.shrink_to_fit();
    // A `days` view changes at midnight even when the feed does not: If-Modified-Since must see that.
    sys_seconds changed = snap->last_modified;
    if (p.uses_today && p.from)
        changed = std::max(changed, sys_seconds(*p.from));
    auto view =
        make_snapshot(std::move(text.body), text.items, changed, snap->fetched_at, gzip, {}, {}, files);
    std::size_t const bytes = view->body.size() + view->gzip_body.size() + key.size() + sizeof(Entry);
    insert(Entry{std::string(feed), std::move(key), view, bytes});
    return view;
}

ViewCacheStats ViewCache::stats() const {
    std::lock_guard lock(mtx_);
    return ViewCacheStats{lru_.size(), bytes_, hits_, misses_, evictions_};
}

} // namespace icsbridge

namespace icsbridge {

void append_view_cache_metrics(std::string& out, ViewCacheStats const& s) {
    auto metric = [&](char const* name, char const* type, char const* help, std::uint64_t v) {
        out.append("# HELP ").append(name).append(" ").append(help).append("\n# TYPE ").append(name);
        out.append(" ")
            .append(type)
            .append("\n")
            .append(name)
            .append(" ")
            .append(std::to_string(v))
            .append("\n");
    };
    metric("icsbridge_view_cache_entries", "gauge", "Subscriber views kept built.", s.entries);
    metric(
        "icsbridge_view_cache_bytes",
        "gauge",
        "Bytes the view cache holds (views, gzip forms, indexes).",
        s.bytes
    );
    metric("icsbridge_view_cache_hits_total", "counter", "View requests served from the cache.", s.hits);
    metric("icsbridge_view_cache_misses_total", "counter", "Views built on request.", s.misses);
    metric(
        "icsbridge_view_cache_evictions_total",
        "counter",
        "Views dropped to stay within the cache's bounds.",
        s.evictions
    );
}

} // namespace icsbridge
