// File: events_lists.hpp
// The events API's list questions as plain functions: the query of a search (params, date window,
// expansions), and where a list of past events may stop being read.
#pragma once

#include "sources/upstream_call.hpp"
#include <icsbridge/model.hpp>
#include <icsbridge/sources.hpp>

#include <optional>
#include <vector>

namespace icsbridge {

/** @brief What every event list and event read asks to have expanded. */
inline constexpr char const* event_expansions = "venue,ticket_availability,organizer";

/** @brief Pass-through params (empty values omitted, file order kept), the date window and the expansions. */
Query search_query(UpstreamQuery const& question, sys_seconds now);

/**
 * @brief A list ordered by start, newest first, whose pages lie wholly before `cutoff` from some page on:
 * paging stops there. If the upstream ignores order_by the order check fails and every page is read instead.
 */
class PastCutoff {
  public:
    explicit PastCutoff(sys_seconds cutoff)
        : cutoff_(cutoff) {}

    /** @brief Call with each page in turn: true once the list may stop (this page and all before it ordered,
     * this page wholly before the cutoff). */
    bool page_is_past(std::vector<Event> const& page);

  private:
    sys_seconds cutoff_;
    std::optional<sys_seconds> last_start_;
    bool ordered_ = true;
};

} // namespace icsbridge
