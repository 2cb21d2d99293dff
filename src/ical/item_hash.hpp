// File: item_hash.hpp
// The render cache's change detection: one 64-bit hash per item over everything that shapes its block.
#pragma once

#include <icsbridge/ical.hpp>

#include <cstdint>

namespace icsbridge::ical {

/** @brief Equal for two events exactly when their blocks (with these meta and options) are equal. */
std::uint64_t event_hash(Event const& e, CalendarMeta const& meta, EventRenderOptions const& opts);

/** @brief Equal for two job posts exactly when their blocks (with these meta and options) are equal. */
std::uint64_t job_hash(JobPost const& p, CalendarMeta const& meta, JobRenderOptions const& opts);

} // namespace icsbridge::ical
