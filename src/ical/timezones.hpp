// File: timezones.hpp
// IANA zone names -> libical's built-in (system tzdata) zones, UTC instants -> wall times in a zone,
// and the compact VTIMEZONE text for a zone over a range of years.
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/model.hpp>

#include <libical/ical.h>

#include <map>
#include <optional>
#include <string>

namespace icsbridge::ical {

/**
 * @brief The system's zone of that name ("Area/City", or "UTC": libical's UTC zone); nullptr for a name that
 * is none, or that could name a file outside the zoneinfo folder. The one door to libical's zones: renders,
 * the agenda page's `?tz=`, feeds' `timezone` and the push adapters' TZIDs go through it. libical's zone
 * cache is process-wide and Debian's 3.0.16 is not safe there with two threads at once (a fresh process
 * whose render workers first used a zone together wrote some events an hour off), so every use of a zone
 * in this file, and only here, holds one private lock for a short section.
 */
icaltimezone* builtin_zone(std::string const& name);

/** @brief Wall-clock seconds in `zone` (since the epoch, read as if UTC) -> the UTC instant. */
long long wall_to_utc(long long wall, icaltimezone* zone);

/** @brief The UTC instant -> wall-clock seconds in `zone` (since the epoch, read as if UTC). */
long long utc_to_wall(long long utc, icaltimezone* zone);

/** @brief A floating date-time read in `zone` -> the same instant as a UTC date-time. */
icaltimetype in_utc(icaltimetype wall, icaltimezone* zone);

/**
 * @brief Resolves zone names once per render. Zones are libical built-ins: process-wide, never freed.
 * A name that resolves to nullptr (empty, unknown, or UTC itself) means "write the time in UTC".
 */
class ZoneTable {
  public:
    icaltimezone* find(std::string const& name);

  private:
    std::map<std::string, icaltimezone*, std::less<>> zones_;
};

/** @brief The instant as a UTC date-time (`...Z`). */
icaltimetype utc_time(sys_seconds t);

/**
 * @brief The instant as wall time in `zone`, floating (no zone attached): the caller adds the TZID.
 * nullopt when that wall time does not name the instant unambiguously (the repeated hour when DST
 * ends reads as its first occurrence): the caller then writes the instant in UTC.
 */
std::optional<icaltimetype> local_time(sys_seconds t, icaltimezone* zone);

/** @brief A DATE value. */
icaltimetype date_value(int year, int month, int day);

/** @brief Calendar year of an instant in UTC. */
int utc_year(sys_seconds t);

/**
 * @brief `BEGIN:VTIMEZONE ... END:VTIMEZONE\r\n` for `zone`, with TZID the plain IANA `name`, in compact
 * RRULE form covering Jan 1 of `first_year` to Dec 31 of `last_year`.
 */
Result<std::string>
vtimezone_text(std::string const& name, icaltimezone* zone, int first_year, int last_year);

} // namespace icsbridge::ical
