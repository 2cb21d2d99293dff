// File: events_lists.cpp
// search_query() and PastCutoff: the events API's list questions, without sockets.
#include "sources/events_lists.hpp"

#include "sources/json_read.hpp"

#include <algorithm>

namespace icsbridge {

Query search_query(UpstreamQuery const& question, sys_seconds now) {
    Query q;
    bool has_start = false, has_end = false, has_expand = false;
    for (auto const& [k, v] : question.params) {
        if (v.empty())
            continue;
        has_start = has_start || k == "start_date.range_start";
        has_end = has_end || k == "start_date.range_end";
        has_expand = has_expand || k == "expand";
        q.emplace_back(k, v);
    }
    if (question.window) {
        // The API wants naive local date-times and reads them in each event's own zone; UTC wall time is
        // off by at most a zone offset, which does not matter for a window of days.
        if (!has_start)
            q.emplace_back("start_date.range_start", jsonr::format_local(jsonr::to_local(now)));
        if (!has_end)
            q.emplace_back(
                "start_date.range_end",
                jsonr::format_local(jsonr::to_local(now + *question.window))
            );
    }
    if (!has_expand)
        q.emplace_back("expand", event_expansions);
    return q;
}

bool PastCutoff::page_is_past(std::vector<Event> const& page) {
    bool all_before = true;
    for (auto const& e : page) {
        ordered_ = ordered_ && (!last_start_ || e.start.utc <= *last_start_);
        last_start_ = e.start.utc;
        all_before = all_before && std::max(e.start.utc, e.end.utc) < cutoff_;
    }
    return ordered_ && all_before && !page.empty();
}

} // namespace icsbridge
