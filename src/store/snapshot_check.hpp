// File: snapshot_check.hpp
// What a kept calendar (a disk snapshot or a database row) must be before it is served again.
#pragma once

#include <string>
#include <string_view>

namespace icsbridge {

/**
 * @brief Why a kept body must not be served under `etag`, or empty when it may: it is not an iCalendar
 * stream as icsbridge writes them (BEGIN:VCALENDAR ... END:VCALENDAR, CRLF), or its hash is not its
 * ETag. Disk snapshots and cluster rows go through the same check, so a row altered or written by
 * something else is refused exactly like a damaged file.
 */
std::string kept_body_defect(std::string_view body, std::string_view etag);

} // namespace icsbridge
