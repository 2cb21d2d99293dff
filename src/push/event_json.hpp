// File: event_json.hpp
// One item of a feed (its VCALENDAR resource) as the JSON event Google Calendar or Microsoft Graph take.
// Neither takes tasks: a job post (VTODO) becomes an all-day event on its due date. Sans-io.
#pragma once

#include "push/plan.hpp"
#include <icsbridge/error.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::push {

/** @brief What both APIs are told of an item, read once from its calendar. */
struct EventFields {
    std::string uid;
    std::string summary;
    std::string description; ///< with the item's URL at the end when the text does not hold it
    std::string location;
    std::string url;
    bool all_day = false;
    std::string start_date, end_date;   ///< all day: YYYY-MM-DD, the end exclusive
    std::string start_local, end_local; ///< timed: YYYY-MM-DDTHH:MM:SS on the wall clock of `tzid`
    std::string tzid;                   ///< IANA name; empty: the times are UTC
    std::string start_utc, end_utc;     ///< timed: YYYY-MM-DDTHH:MM:SS in UTC
    bool transparent = false;           ///< shown as free (a cancelled event, a job post)
    std::optional<int> alarm_minutes;   ///< a reminder this long before the start
    bool task = false;                  ///< made from a job post (VTODO)
};

/**
 * @brief Reads the item of `vcalendar` (one UID: its VEVENT, else its VTODO with a due date).
 * errc::render_failed when there is none or it has no start.
 */
Result<EventFields> event_fields(std::string_view vcalendar);

/**
 * @brief `resources` with each body replaced by `make(its fields, it)` and its hash taken of that; an
 * item that cannot be read fails the whole: never half a calendar.
 */
Result<std::vector<Resource>> as_events(
    std::vector<Resource> resources,
    std::function<std::string(EventFields const&, Resource const&)> const& make
);

/** @brief The private extended property marking Google events as ours: {"icsbridge": WRITER}. */
inline constexpr std::string_view google_owner_key = "icsbridge";

/** @brief A Google Calendar v3 event resource with the client-chosen `id`, `writer`'s by its private
 * property. */
std::string google_event(EventFields const& f, std::string const& id, std::string const& writer);

/**
 * @brief google_event() with an empty id and writer: what every writer of the item shares (their
 * connections mirror one feed), held once; google_event_for() adds one writer's parts to it.
 */
std::string google_shared_event(EventFields const& f);

/**
 * @brief `shared` (google_shared_event(f)) with `id` and `writer` in their places: the very bytes of
 * google_event(f, id, writer), so the hash of what a writer wrote before stays the same. Empty when
 * `shared` is not such an event.
 */
std::string google_event_for(std::string_view shared, std::string_view id, std::string_view writer);

/** @brief The id of Microsoft Graph's single-value extended property that holds our item's name. */
inline constexpr std::string_view graph_owner_property =
    "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name icsbridge";

/** @brief A Microsoft Graph event (without transactionId and the owner property: those go on a create). */
std::string graph_event(EventFields const& f);

} // namespace icsbridge::push
