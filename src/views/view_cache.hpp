// File: view_cache.hpp
// Built views of every feed, kept so that a subscriber's view costs what the plain feed costs: an LRU
// bounded by entries per feed, entries overall and bytes overall, keyed on (feed, snapshot ETag,
// normalised parameters), so a new snapshot never serves an old view. Thread-safe.
#pragma once

#include "views/view.hpp"
#include <icsbridge/store.hpp>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace icsbridge {

/** @brief The cache's bounds (README "Views"). */
struct ViewCacheLimits {
    std::size_t max_entries = 256;         ///< views kept overall
    std::size_t max_entries_per_feed = 32; ///< views kept per feed (one busy feed cannot evict the rest)
    std::size_t max_bytes = 256u << 20;    ///< calendar + gzip bytes of the views kept, plus the indexes
};

/** @brief What /metrics shows. */
struct ViewCacheStats {
    std::size_t entries = 0, bytes = 0;
    std::uint64_t hits = 0, misses = 0, evictions = 0;
};

class ViewCache {
  public:
    explicit ViewCache(ViewCacheLimits limits = {});
    ~ViewCache();
    ViewCache(ViewCache const&) = delete;
    ViewCache& operator=(ViewCache const&) = delete;

    /**
     * @brief The view `p` of feed `feed` whose current snapshot is `snap`, built on first use.
     * The view is a Snapshot of its own: strong ETag of its bytes, gzip once, Last-Modified of the
     * feed's snapshot (or today's midnight for a `days` view, which moves with the date).
     * @param files where a large view is kept (ServedFeeds::files()); null: a memfd
     * @return errc::render_failed when the snapshot cannot be indexed (then no view is served)
     */
    Result<std::shared_ptr<Snapshot const>>
    get(std::string_view feed,
        std::shared_ptr<Snapshot const> const& snap,
        views::ViewParams const& p,
        bool gzip,
        SnapshotFiles const* files = nullptr);

    ViewCacheStats stats() const;
    ViewCacheLimits const& limits() const noexcept { return limits_; }

    /**
     * @brief Forgets the feed's index and views (its snapshot was replaced): their memory goes now rather
     * than when a request for the new snapshot comes. Told by the Publisher's subscription in `serve`.
     */
    void drop(std::string_view feed);

    /** @brief The index of the feed's snapshot `snap`, built once per snapshot (also for the agenda page). */
    Result<std::shared_ptr<views::FeedIndex const>> index_of(std::string_view feed, Snapshot const& snap);

  private:
    struct Entry {
        std::string feed;
        std::string key;
        std::shared_ptr<Snapshot const> view;
        std::size_t bytes = 0;
    };
    struct FeedState {
        std::string etag; ///< the snapshot the index and the views are of
        std::shared_ptr<views::FeedIndex const> index;
        std::size_t index_bytes = 0;
        std::size_t entries = 0;
    };
    using Lru = std::list<Entry>; ///< most recently used first

    std::shared_ptr<Snapshot const> lookup(std::string const& key);
    void insert(Entry e);
    void drop_feed_locked(std::string const& feed);
    void erase_locked(Lru::iterator it);

    ViewCacheLimits limits_;
    mutable std::mutex mtx_; ///< guards everything below; never held while building
    std::mutex
        build_mtx_; ///< one build at a time: the same view is built once, and builds cannot crowd the CPU
    Lru lru_;
    std::unordered_map<std::string, Lru::iterator> by_key_;
    std::map<std::string, FeedState, std::less<>> feeds_;
    std::size_t bytes_ = 0;
    std::uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;
};

} // namespace icsbridge

namespace icsbridge {

/** @brief The cache's gauges and counters in Prometheus text format (for /metrics). */
void append_view_cache_metrics(std::string& out, ViewCacheStats const& s);

} // namespace icsbridge
