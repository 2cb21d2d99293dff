// File: feed_filter.hpp
// The matcher of a feed's `filter`, on what any item shows: by category name, by keywords in the title or
// description (any case), and online or in person. Feeds (pipeline/item_filter) and merged feeds (ical)
// both filter through it, so they filter alike.
#pragma once

#include <icsbridge/config.hpp>

#include <span>
#include <string_view>

namespace icsbridge {

/**
 * @brief The filter's checks on any item, given the category names it shows, the texts keywords look in
 * (title, description) and whether it is online (job posts: remote). Used directly by merged feeds,
 * which only have their parts' published calendars to read.
 */
bool filter_keeps(
    FeedFilter const& f,
    std::span<std::string_view const> categories,
    std::span<std::string_view const> texts,
    bool online
);

} // namespace icsbridge
