// File: upstream_error.hpp
// The one mapping from an upstream's non-2xx answer (or the job board's `"stat": "fail"`) to an Error.
#pragma once

#include <icsbridge/error.hpp>

#include <string>
#include <string_view>

namespace icsbridge {

/** @brief Which upstream answered: the names and error envelopes differ. */
enum class Api { events, jobs };

/** @brief "events API" or "job board API", as used in every message. */
std::string_view api_name(Api api);

/**
 * @brief Maps an error answer to an Error a user can act on.
 *
 * Reads the documented error bodies: events `{"error": CODE, "error_description": TEXT}`, job board
 * `{"stat": "fail", "code": N, "desc": TEXT}` (which the board may send with HTTP 200).
 * 401, 400 INVALID_AUTH/NO_AUTH, 403 and a job board key complaint give upstream_auth; 404
 * upstream_not_found; 429 upstream_rate_limited; anything else upstream_status. `path` is the request path
 * without its query (so no api_key), used in the message.
 */
Error upstream_error(unsigned status, std::string_view body, Api api, std::string_view path = {});

/** @brief The message text an upstream sent, made safe for one log line: no control characters, bounded. */
std::string clean_upstream_text(std::string_view s, std::size_t max = 200);

} // namespace icsbridge
