// File: target_status.hpp
// The push targets in /healthz and /metrics: only the admin sees them (a target names a person's calendar).
#pragma once

#include <icsbridge/push_status.hpp>

#include <boost/json/array.hpp>

#include <string>

namespace icsbridge {

/** @brief /healthz "targets": per target its last success and error, items, writes, conflicts, requests,
 * queue.
 */
boost::json::array targets_json(PushStatus const& push);

/** @brief The icsbridge_push_* series. */
void append_push_metrics(std::string& out, PushStatus const& push);

} // namespace icsbridge
