// File: merge.hpp
// Merged feeds (`[feeds.NAME] merge = [...]`): never fetched, rebuilt from their parts' current snapshots
// whenever a part publishes, and published through the FeedStore like any feed.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/ical.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/store.hpp>

#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

/** @brief The calendar of merged feed `feed` (its own title, description, refresh hint, filter and alarm)
 * from its parts' calendars, given in `feed.merge` order (a part without a calendar yet is simply left out).
 */
Result<MergedCalendar> render_merged(FeedConfig const& feed, std::span<CalendarPart const> parts);

/**
 * @brief Keeps every merged feed of a config built from its parts' snapshots in `store`: once at start(),
 * then whenever a part publishes. A failing part publishes nothing, so its last good items stay in the
 * merge. Each rebuilt snapshot is kept in `snapshots` (when not null), as the refresher does.
 */
class MergedFeeds {
  public:
    /** @brief `cfg` and `store` must outlive this object. */
    MergedFeeds(Config const& cfg, FeedStore& store, Logger log, std::shared_ptr<SnapshotBackend> snapshots);
    /** @brief Stops listening to the store. */
    ~MergedFeeds();
    MergedFeeds(MergedFeeds const&) = delete;
    MergedFeeds& operator=(MergedFeeds const&) = delete;

    /** @brief Builds every merged feed from the snapshots in the store now (call after load_dir), then
     * listens to the store's publishes. Does nothing for a config without merged feeds. */
    void start();

    /** @brief `feed` published (changed or not): rebuilds the merges it is a part of. Thread-safe. */
    void published(std::string_view feed);

  private:
    void rebuild(FeedConfig const& merged);

    Config const& cfg_;
    FeedStore& store_;
    Logger log_;
    std::shared_ptr<SnapshotBackend> snapshots_;
    std::map<std::string, std::vector<FeedConfig const*>, std::less<>> merges_of_; ///< part -> merges
    bool listening_ = false;
    std::mutex mtx_;                                ///< one rebuild at a time; guards built_from_
    std::map<std::string, std::string> built_from_; ///< merge -> the parts' ETags it was built from
};

} // namespace icsbridge
