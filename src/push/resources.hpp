// File: resources.hpp
// A feed's rendered calendar cut into CalDAV calendar object resources: one VCALENDAR per UID, holding
// that item's components and only the VTIMEZONEs they name, each with its deterministic name and hash.
#pragma once

#include "push/plan.hpp"
#include "views/feed_index.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace icsbridge::push {

struct Split {
    std::vector<Resource> resources; ///< in calendar order of each UID's first component
    std::size_t skipped_todos = 0;   ///< VTODOs left out because the calendar takes none
};

/**
 * @brief Cuts `body` (a calendar icsbridge rendered, indexed as `index`) into resources. Calendar-level
 * properties other than VERSION, PRODID and CALSCALE stay behind (a resource carries no METHOD or name).
 * Without `todos`, VTODO items are skipped and counted.
 */
Split split_calendar(std::string_view body, views::FeedIndex const& index, bool todos);

} // namespace icsbridge::push
