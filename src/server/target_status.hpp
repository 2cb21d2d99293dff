// File: target_status.hpp
// The push targets in /healthz and /metrics: only the admin sees them (a target names a person's calendar).
#pragma once

#include <icsbridge/push_status.hpp>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace icsbridge {

/** @brief A time in /healthz: its HTTP date, or null when it has not happened yet. */
boost::json::value http_date_or_null(std::optional<sys_seconds> t);

/** @brief /healthz "targets": per target its last success and error, items, writes, conflicts, requests,
 * queue.
 */
boost::json::array targets_json(PushStatus const& push);

/** @brief The icsbridge_push_* series. */
void append_push_metrics(std::string& out, PushStatus const& push);

/** @brief icsbridge_connections{state} and icsbridge_connection_requests_total: counts, nothing more. */
void append_connection_metrics(std::string& out, ConnectionCounts const& c);

/** @brief {"total", "in_sync", "failing", "stopped"}; null without [connect]. */
boost::json::value connections_json(ConnectionCounts const& c);

/** @brief WebDAV-Push messages {"sent", "failed", "dropped", "removed"}; null without [dav] push. */
boost::json::value webpush_json(WebPushCounts const& c);

} // namespace icsbridge
