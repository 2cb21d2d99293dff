// File: item_text.hpp
// Text properties of calendar items, as plain strings (no libical here): builder.cpp puts them in place.
#pragma once

#include <icsbridge/model.hpp>

#include <string>
#include <string_view>

namespace icsbridge::ical {

/** @brief A URI value: one line, spaces and quotes percent-encoded (libical writes URIs verbatim). */
std::string uri(std::string_view in);

/**
 * @brief uri(in) when it is an http:// or https:// URL with a host, else empty: a `javascript:` or `data:`
 * URL in an event must never reach a calendar app that makes links of URL and DESCRIPTION.
 */
std::string web_url(std::string_view in);

/** @brief True when a title already says the event is cancelled ("CANCELLED - Gala", "Canceled: x"). */
bool says_cancelled(std::string_view summary);

/**
 * @brief A place on one line with each comma-separated part once: upstreams repeat a part ("Boston, MA, MA,
 * US" from a job board's location name; a venue's name that its address starts with again).
 */
std::string location_text(std::string_view place);

/** @brief "Venue, address", "Online", or empty; location_text(). */
std::string event_location(Event const& e);

/**
 * @brief DESCRIPTION of an event: the upstream's plain text exactly when given, else its HTML made
 * readable (paragraph breaks kept), else the summary; then the price lines and `url`, blank-line separated.
 */
std::string event_description(Event const& e, std::string const& url);

/** @brief "Title — Company" (or "Job post"). */
std::string job_summary(JobPost const& p);

/** @brief DESCRIPTION of a job post: its HTML made readable, perks, how to apply, flags, the post's URL. */
std::string job_description(JobPost const& p);

} // namespace icsbridge::ical
