// File: lifecycle.hpp
// Events dated relative to the fake's start, so every stage of an event's life is present whenever the
// tests or the demo run: running now, ended 10 and 60 days ago, cancelled, a draft, a series.
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace icsbridge::test::fake {

/** @brief Ids of the lifecycle events, for tests that look for them. */
namespace life {
inline constexpr char const* running = "700000000001";
inline constexpr char const* ended_10_days = "700000000002";
inline constexpr char const* ended_60_days = "700000000003";
inline constexpr char const* cancelled = "700000000004";
inline constexpr char const* draft = "700000000005";
inline constexpr char const* series_parent = "700000000010";
inline constexpr char const* series_dates[] = {"700000000011", "700000000012", "700000000013"};
inline constexpr char const* exact_text = "700000000020";
} // namespace life

/** @brief The plain text of life::exact_text: blank lines, tabs, a backslash, punctuation iCalendar escapes.
 */
std::string lifecycle_text();

/**
 * @brief The lifecycle events around `now`, built from `base` (a fixture event: venue, organizer, prices)
 * in organization `org`.
 */
std::vector<boost::json::object>
lifecycle_events(boost::json::object const& base, std::string const& org, std::chrono::sys_seconds now);

/** @brief "YYYY-MM-DDTHH:MM:SS" (+ "Z" when with_z). */
std::string format_utc(std::chrono::sys_seconds t, bool with_z);

/** @brief A datetime-tz object for an instant in a zone of fixed offset. */
boost::json::object dt_tz(std::chrono::sys_seconds utc, char const* zone, std::chrono::minutes offset);

} // namespace icsbridge::test::fake
