// File: upstream_json.hpp
// The events API's JSON as the tests script it: one event and a page of them, written as text so that a
// test may put anything on the wire (a hostile name, a zone that is not one, bytes that are not UTF-8).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace icsbridge::test {

/** @brief One event as the events API lists it. Members ending in `_json` are JSON values as sent. */
struct UpstreamEvent {
    explicit UpstreamEvent(std::string event_id)
        : id(std::move(event_id)) {}

    std::string id;
    std::string name_json;              ///< the "name" object; empty: {"text":"E<id>"}
    std::string zone_json = R"("UTC")"; ///< the start's and the end's timezone
    std::string start_local = "2026-12-01T10:00:00";
    std::string start_utc_json = R"("2026-12-01T10:00:00Z")";
    std::string end_local = "2026-12-01T11:00:00";
    std::string end_utc_json = R"("2026-12-01T11:00:00Z")";
    std::string status = "live"; ///< empty: no status member
    /// The members after those, `,"key":value...`; by default what makes the event complete (no detail
    /// request needed): online, no venue, an organizer, ticket availability.
    std::string more =
        R"(,"online_event":true,"venue_id":null,"organizer":{"name":"O"},"ticket_availability":{})";

    /** @brief The event from `start` to `end`, in UTC. */
    UpstreamEvent& between(std::chrono::sys_seconds start, std::chrono::sys_seconds end);
    /** @brief The event as the JSON object the API sends. */
    std::string json() const;
};

/** @brief A page of the events API: the events (each JSON) under `pagination` (a JSON object). */
std::string events_page(
    std::vector<std::string> const& events, std::string const& pagination = R"({"has_more_items":false})"
);

/** @brief Page `number` of `count` as the pagination object of numbered pages. */
std::string numbered_pagination(int number, int count);

} // namespace icsbridge::test
