// File: builder.hpp
// One calendar item at a time: Event -> VEVENT, JobPost -> VTODO and/or all-day VEVENT, each serialised
// on its own so the renderer can cache and concatenate blocks. Also the VCALENDAR header.
#pragma once

#include "ical/ical_ptr.hpp"
#include "ical/timezones.hpp"
#include <icsbridge/ical.hpp>

#include <array>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::ical {

/** @brief The zone names DTSTART and DTEND are written in (when ZoneTable knows them; else in UTC). */
std::array<std::string_view, 2> event_zone_names(Event const& e);

/** @brief Appends `BEGIN:VEVENT ... END:VEVENT\r\n` for `e` to `out`. */
Result<void> append_event(
    Event const& e,
    CalendarMeta const& meta,
    EventRenderOptions const& opts,
    ZoneTable& zones,
    std::string& out
);

/** @brief Appends the VTODO and/or VEVENT blocks for `post` (per opts.jobs_as) to `out`. */
Result<void>
append_job(JobPost const& post, CalendarMeta const& meta, JobRenderOptions const& opts, std::string& out);

/** @brief A display VALARM `before` the start, titled `what` (the item's SUMMARY); null if libical refuses.
 * The one reminder shape: a feed's `alarm` and a merged feed's own `alarm` both write it. */
ComponentPtr display_alarm(std::string const& what, std::chrono::seconds before);

/** @brief `BEGIN:VCALENDAR` and the calendar's properties, without any component or the END line. */
Result<std::string> calendar_header(CalendarMeta const& meta, std::string const& generated_description);

/** @brief The calendar's last line. */
inline constexpr std::string_view calendar_footer = "END:VCALENDAR\r\n";

} // namespace icsbridge::ical
