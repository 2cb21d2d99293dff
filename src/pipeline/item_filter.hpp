// File: item_filter.hpp
// A feed's `filter` applied to what its upstream returned, before rendering (model/feed_filter's matcher
// on each event or job post as its calendar will show it).
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/model.hpp>

namespace icsbridge {

/** @brief True if the filter publishes the event (its category name as CATEGORIES shows it). */
bool filter_keeps(FeedFilter const& f, Event const& e);

/** @brief True if the filter publishes the job post (its category or type; remote counts as online). */
bool filter_keeps(FeedFilter const& f, JobPost const& p);

/** @brief The items the filter keeps, in their order. */
FeedItems apply_filter(FeedFilter const& f, FeedItems const& items);

} // namespace icsbridge
