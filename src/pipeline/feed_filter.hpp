// File: feed_filter.hpp
// A feed's `filter` applied to what its upstream returned, before rendering: by category name, by
// keywords in the title or description (any case), and online or in person.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/pipeline.hpp>

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

/** @brief True if the filter publishes the event (its category name as CATEGORIES shows it). */
bool filter_keeps(FeedFilter const& f, Event const& e);

/** @brief True if the filter publishes the job post (its category or type; remote counts as online). */
bool filter_keeps(FeedFilter const& f, JobPost const& p);

/** @brief The items the filter keeps, in their order. */
FeedItems apply_filter(FeedFilter const& f, FeedItems const& items);

} // namespace icsbridge
