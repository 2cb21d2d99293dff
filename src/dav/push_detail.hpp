// File: push_detail.hpp
// WebDAV-Push's side of the CalDAV core (private to src/dav/ and its tests): a push-register body read into
// plain values, checked, and answered; DELETE of a registration; the collection's push properties.
#pragma once

#include "dav/push_registry.hpp"
#include <icsbridge/dav.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::dav::detail {

inline constexpr char const* push_ns = "https://bitfire.at/webdav-push";

/** @brief A push-register body as sent (the keys still base64url). */
struct PushRegister {
    std::string push_resource;
    std::string key_type; ///< subscription-public-key's `type`: "p256dh" (absent: taken as that)
    std::string public_key;
    std::string auth_secret;
    std::string content_encoding; ///< empty when absent (DAVx⁵ 4.4.9 sends none)
    bool trigger = false;         ///< a `trigger` element was there
    /// The content-update trigger's depth or sync-level ("0", "1", "infinity"); nullopt when the trigger
    /// asks for no content-update (only property-update: not supported)
    std::optional<std::string> depth;
    std::optional<std::chrono::sys_seconds> expires; ///< `expires`, an HTTP date; nullopt when absent
};

/** @brief A push-register body; errc::usage when it is not well-formed XML or not a push-register. */
Result<PushRegister> parse_push_register(std::string_view body);

/** @brief The bytes of a key as clients send it: base64url, also padded or in the standard alphabet. */
std::optional<std::string> decode_push_key(std::string_view text);

/**
 * @brief Why the subscription cannot be pushed to (the `invalid-subscription` precondition), or nullopt:
 * keys that are not a P-256 point and 16 bytes, an encoding other than aes128gcm, a push resource that is
 * not an absolute https URL (http too with `allow_private`) with a host, or whose host is an address (or
 * looks like one) that is not public, unless `allow_private`.
 */
std::optional<std::string> subscription_problem(PushRegister const& reg, bool allow_private);

/** @brief Whether `url`'s host is fine for a push resource at registration (see subscription_problem). */
std::optional<std::string> push_resource_problem(std::string_view url, bool allow_private);

/** @brief POST push-register on a collection the requester may read. */
Response register_push(Request const& req, Tree const& tree, FeedEntry const& feed);

/** @brief Any request on /dav/push/ID (DELETE ends it: the id is the capability). */
Response push_resource_request(Request const& req, Tree const& tree);

/** @brief The collection's property `name` of the push namespace; nullopt when it has none (push off). */
std::optional<std::string> push_prop(std::string_view name, Tree const& tree, FeedEntry const& feed);

} // namespace icsbridge::dav::detail
