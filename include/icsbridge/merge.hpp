// File: merge.hpp
// Merged feeds (`[feeds.NAME] merge = [...]`): never fetched, rebuilt from their parts' current snapshots
// whenever a part is published, and published through the Publisher like any feed.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/ical.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/publish.hpp>
#include <icsbridge/store.hpp>

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

/** @brief The calendar of merged feed `feed` (its own title, description, refresh hint, filter and alarm)
 * from its parts' calendars, given in `feed.merge` order. Callers pass every part (MergedFeeds waits
 * for a first snapshot of each, `export` fails on the first part that fails): never a partial calendar.
 */
Result<Calendar> render_merged(FeedConfig const& feed, std::span<CalendarPart const> parts);

/**
 * @brief Keeps every merged feed of a config built from its parts' snapshots: once at start(), then
 * whenever a part is published (a subscriber of the Publisher). A merged feed is published only once every
 * part has a snapshot, never a partial calendar; until then it answers like a feed never fetched (503).
 * A failing part publishes nothing, so its last good items stay in the merge. The rebuilds run on the
 * Publisher's line (Publisher::post_in_order): in `serve`, thousands of events are merged off the thread
 * that runs the refreshers, webhooks and reloads, and a merge is published in the order its parts were.
 */
class MergedFeeds {
  public:
    /** @brief `cfg` must outlive this object; `table` and `publisher`, the rebuilds too (the publisher's). */
    MergedFeeds(Config const& cfg, ServedFeeds& table, Publisher& publisher, Logger log);
    MergedFeeds(MergedFeeds const&) = delete;
    MergedFeeds& operator=(MergedFeeds const&) = delete;

    /** @brief Builds every merged feed from the snapshots in the table now (call after they were
     * restored), then subscribes to publications. Does nothing for a config without merged feeds. */
    void start();

    /** @brief A publication: rebuilds the merges `p.feed` is a part of (changed or not: the merge's last
     * success follows its parts'). */
    void published(Publication const& p);

  private:
    /// What the rebuilds work on, on the Publisher's line (post_in_order): kept alive by the rebuilds
    /// still to run after this object is gone (a reload), so that they never wait for each other.
    struct Builds;

    void rebuild(FeedConfig const& merged);

    Config const& cfg_;
    std::shared_ptr<Builds> builds_;
    std::map<std::string, std::vector<FeedConfig const*>, std::less<>> merges_of_; ///< part -> merges
    Publisher::Subscription subscription_; ///< last: unsubscribed before the rest goes
};

} // namespace icsbridge
