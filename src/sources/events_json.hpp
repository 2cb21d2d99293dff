// File: events_json.hpp
// Pure parsers for the events API v3 payloads (event lists, one event, ticket classes, organizations).
// No I/O: the client in events_source.cpp feeds them response bodies. Shapes: UPSTREAM.md part 1.
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/model.hpp>

#include <boost/json/fwd.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

/** @brief The `pagination` object; every member is optional upstream (UPSTREAM.md 1.8). */
struct Pagination {
    std::optional<std::size_t> object_count;
    std::optional<int> page_number;
    std::optional<int> page_count;
    std::optional<bool> has_more_items;
    std::string continuation; ///< empty when absent or null
};

/** @brief One page of `/users/me/events/`, `/organizations/{id}/events/` or `/events/search/`. */
struct EventsPage {
    std::vector<Event> events;
    /// Parallel to `events`: true when the event lacks an expansion (venue, organizer, ticket_availability)
    /// and must be completed with GET /events/{id}/?expand=...
    std::vector<bool> incomplete;
    Pagination pagination;
};

struct TicketClassesPage {
    std::vector<TicketClass> ticket_classes;
    Pagination pagination;
};

struct OrganizationsPage {
    std::vector<std::string> ids;
    Pagination pagination;
};

/**
 * @brief Parses an event list page.
 * @return errc::upstream_malformed naming the JSON path, e.g. "events[3].start.utc is not a date-time".
 */
Result<EventsPage> parse_events_page(std::string_view json);

/**
 * @brief Parses one event object; `path` prefixes the JSON path in error messages ("events[3]").
 * Required: id, name.text (or name.html), start and end with utc and local. Everything else is optional.
 */
Result<Event> parse_event(boost::json::value const& v, std::string const& path = {});

/** @brief Parses the body of GET /events/{id}/ (one event at the top level). */
Result<Event> parse_event_body(std::string_view json);

/** @brief True when an event object lacks an expansion we asked for (see EventsPage::incomplete). */
bool lacks_expansions(boost::json::value const& v);

/** @brief Parses a page of GET /events/{id}/ticket_classes/. */
Result<TicketClassesPage> parse_ticket_classes_page(std::string_view json);

/** @brief Parses a page of GET /users/me/organizations/ (ids only). */
Result<OrganizationsPage> parse_organizations_page(std::string_view json);

} // namespace icsbridge
