// File: feed_groups.hpp
// What the refreshers need of the pipeline, and no more: feeds grouped by the question they ask their
// upstream (one fetch per group), and the function that fetches a group and renders each of its feeds.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/ical.hpp>
#include <icsbridge/sources.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace icsbridge {

/** @brief Feeds whose upstream question is the same: one fetch for all, then one render per feed. */
struct FeedGroup {
    std::string key;
    UpstreamQuery query;                  ///< asked once for all (the longest keep_past, largest max_items)
    std::vector<FeedConfig const*> feeds; ///< in config order
    std::chrono::seconds refresh{0};      ///< the shortest refresh of the group
    /// the longest fetch_timeout of the group: a feed whose own is shorter fails alone when it is past
    std::chrono::seconds fetch_timeout{0};
};

/** @brief The key of the question `feed` asks (query_of(feed).key()): the lease name in cluster mode. */
std::string fetch_key(FeedConfig const& feed);

/** @brief Groups the config's fetched feeds by the key of their question, in config order of each group's
 * first feed (merged feeds are never fetched: they are left out). */
std::vector<FeedGroup> group_feeds(Config const& cfg);

/** @brief Fetches once for a group and renders every feed of it: one result per feed, in group order. */
using GroupFetch = std::function<
    boost::asio::awaitable<std::vector<Result<Calendar>>>(FeedGroup const& group, sys_seconds now)>;

/**
 * @brief A webhook named event `id` of the group's source: that one event is read and the group's last
 * answer updated with it, then each feed rendered as a refresh would. nullopt when the group cannot be
 * patched so (a search, ticket classes, no answer kept yet, the event unreadable): a refresh is due.
 */
using GroupPatch = std::function<boost::asio::awaitable<std::optional<std::vector<Result<Calendar>>>>(
    FeedGroup const& group, std::string id, sys_seconds now
)>;

} // namespace icsbridge
