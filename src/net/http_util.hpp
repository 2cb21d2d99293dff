// File: http_util.hpp
// The wording of the HTTP client's errors (no I/O): the phase an attempt was in, the one
// "timed out after … while …" message, the service prefix, and sizes in binary units.
#pragma once

#include "net/target.hpp"
#include <icsbridge/error.hpp>

#include <chrono>
#include <cstddef>
#include <string>

namespace icsbridge::net_detail {

/** @brief Where an attempt was when it failed. */
enum class Phase { resolving, connecting, handshaking, sending, waiting, reading_body, decoding };

/** @brief "waiting for a response to GET https://host/path" and the like, for error messages. */
std::string phase_words(Phase p, Target const& t);

/**
 * @brief The one error for a deadline: upstream_timeout, "SERVICE: timed out after 200ms waiting for a
 * response to GET …".
 * @param limit the deadline that fired
 * @param p where the attempt was when it fired
 */
Error timed_out(std::string const& service, std::chrono::milliseconds limit, Phase p, Target const& t);

/** @brief An error whose message starts with the service's name: "events API: …". */
Error client_error(std::string const& service, errc code, std::string what);

/** @brief "512 bytes", "64 KiB", "32 MiB" (binary units, rounded down). */
std::string format_size(std::size_t bytes);

} // namespace icsbridge::net_detail
