// File: hooks.hpp
// Incoming webhooks of the events service (POST /hooks/SOURCE/SECRET): who may send one, what a valid
// body is, and how the hook URL is shown in logs. Pure: the listener reads the body and wakes refreshers.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/server.hpp>
#include <icsbridge/store.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace icsbridge {

/// The events service sends a few hundred bytes; anything near this is not one of its hooks.
inline constexpr std::size_t hook_body_limit = std::size_t{64} * 1024;

/** @brief The answer to one hook request and why. */
struct HookVerdict {
    HookOutcome outcome = HookOutcome::refused;
    unsigned status = 404;
    std::string message; ///< for the client and the log; never holds the secret
    std::string source;  ///< the source whose feeds to refresh (accepted only)
    std::string action;  ///< config.action of the body, printable (accepted only)
    /// The event api_url names (its last path segment after /events/, letters and digits only), read, never
    /// fetched: the source's own base_url and this id make the one request; empty when it names none
    std::string event_id;
};

/** @brief The event id an api_url names (".../v3/events/ID/"), or empty: letters and digits, at most 64. */
std::string hooked_event_id(std::string_view api_url);

/** @brief Splits "SOURCE/SECRET" (the path after /hooks/); false for any other shape. */
bool split_hook_path(std::string_view rest, std::string_view& source, std::string_view& secret);

/**
 * @brief Judges a hook: an unknown source, a source without webhook_secret and a wrong secret are one
 * 404 (compared in constant time, so neither the answer nor its timing tells them apart); then a body
 * over hook_body_limit 413; a body that is not the service's hook JSON, or whose api_url is not on the
 * source's base_url host, 400. Nothing here, nor anywhere, fetches api_url.
 */
HookVerdict judge_hook(
    Config const& cfg,
    std::string_view source,
    std::string_view secret,
    std::string_view body,
    bool body_too_large
);

/** @brief `target` with the secret segment of a /hooks/SOURCE/SECRET path replaced by ***. */
std::string redact_hook_target(std::string_view target);

} // namespace icsbridge
