// File: target_items.hpp
// What a target should hold: the items of every feed pushed into it (each through its `view`), cut into
// one resource per UID. A UID in two of those feeds travels once, as the first feed has it.
#pragma once

#include "push/plan.hpp"
#include <icsbridge/error.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::push {

/** @brief One feed's calendar as pushed into a target. */
struct FeedCalendar {
    std::string feed;
    std::shared_ptr<void const> owner; ///< what holds `body` (the feed's snapshot)
    std::string_view body;             ///< the feed's snapshot body
    std::string view;                  ///< the push entry's view query; empty: the whole feed
};

struct TargetItems {
    std::vector<Resource> resources;
    std::size_t skipped_todos = 0; ///< job posts left out because the calendar takes no VTODO
};

/**
 * @brief The resources for `feeds`. `todos`: whether the calendar takes VTODO. `today` resolves a view's
 * days=N. errc::snapshot_corrupt when a calendar cannot be indexed (never pushed half).
 */
Result<TargetItems>
target_items(std::vector<FeedCalendar> const& feeds, bool todos, std::chrono::sys_days today);

} // namespace icsbridge::push
