// File: event_life.cpp
// Which of an organizer's events a calendar shows, over the event's whole life (live, running, ended,
// cancelled): the pure rule both the fetch and its tests use.
#include <icsbridge/model.hpp>

#include <algorithm>

namespace icsbridge {

bool never_published(Event const& e) {
    return e.is_series_parent || e.status == "draft";
}

bool in_event_life(Event const& e, sys_seconds now, std::chrono::seconds keep_past) {
    if (never_published(e))
        return false;
    // A cancelled event is kept past its start so subscribers see STATUS:CANCELLED instead of a
    // silent deletion; an end before the start (bad data) counts as ending at the start.
    sys_seconds const last = e.cancelled() ? e.start.utc : std::max(e.start.utc, e.end.utc);
    return last + keep_past > now;
}

} // namespace icsbridge
