// File: merge_select.hpp
// A merged feed's own `filter` and `alarm` applied to one item as its part published it: the filter reads
// the item's CATEGORIES, SUMMARY, DESCRIPTION and LOCATION, the alarm replaces the part's reminders.
#pragma once

#include <icsbridge/config.hpp>

#include <libical/ical.h>

#include <chrono>

namespace icsbridge::ical {

/**
 * @brief True if `f` keeps the VEVENT or VTODO `item`. The calendar shows what the model had: categories
 * are the CATEGORIES values, keywords look in SUMMARY and DESCRIPTION, and an item is online when its
 * LOCATION is "Online" (how events say so) or a category is "Remote" (how job posts say so).
 */
bool merged_item_kept(FeedFilter const& f, icalcomponent* item);

/**
 * @brief Removes `item`'s VALARMs and, for a VEVENT that is not cancelled, adds one display reminder
 * `before` its start (as the renderer writes a feed's `alarm`). False if libical refused the reminder.
 */
bool replace_alarms(icalcomponent* item, std::chrono::seconds before);

} // namespace icsbridge::ical
