// File: message.hpp
// One WebDAV-Push message as a push service receives it, sans-io: the `push-message` XML a client reads
// (the collection's topic and its new sync-token), encrypted for one registration (RFC 8291), and the
// request's headers (RFC 8030: TTL, Urgency, Topic; RFC 8292: the VAPID Authorization, one JWT per origin).
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/webpush.hpp>

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge::webpush {

/// The namespace of WebDAV-Push's elements, as DAVx⁵'s dav4jvm and Nextcloud's dav_push read them.
inline constexpr std::string_view push_namespace = "https://bitfire.at/webdav-push";

/// How long a push service may hold a message for a device that is away: after a day a client syncs anyway.
inline constexpr std::chrono::seconds message_ttl{std::chrono::hours(24)};

/** @brief A registration as delivery sees it: where its messages go and whom they are encrypted for. */
struct Recipient {
    std::string id;            ///< the registration's id (named in logs; its keys never are)
    std::string push_resource; ///< the push service's URL of the subscription
    SubscriptionKeys keys;     ///< p256dh and auth, raw bytes
};

/**
 * @brief The plaintext of a message: `push-message` with `topic` and, under `content-update`, the
 * collection's new `DAV:sync-token` (a client syncs from its own token and may skip when it holds this one).
 */
std::string push_message_xml(std::string_view topic, std::string_view sync_token);

/** @brief Whether `topic` may go into a `Topic` header: 1 to 32 characters of base64url (RFC 8030 §5.4). */
bool valid_topic(std::string_view topic);

/** @brief One POST to a push resource, ready for the wire. */
struct PushRequest {
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body; ///< aes128gcm: never logged
};

/**
 * @brief The request that tells `to` that the collection `topic` is now at `sync_token`: the body encrypted
 * for its keys, `Content-Encoding: aes128gcm`, `Content-Type: application/octet-stream`, `TTL`, `Urgency:
 * normal`, `Topic` (a push service keeps only the newest message of a topic) and `authorization` (from
 * VapidCache). errc::usage for a topic valid_topic() refuses or keys check_keys() refuses; errc::io_error
 * when OpenSSL fails.
 */
Result<PushRequest> push_request(
    Recipient const& to, std::string_view topic, std::string_view sync_token, std::string authorization
);

class Ece;
/** @brief push_request() encrypting with `ece` (the sender's threads: each its own). */
Result<PushRequest> push_request(
    Ece& ece,
    Recipient const& to,
    std::string_view topic,
    std::string_view sync_token,
    std::string authorization
);

/**
 * @brief The VAPID `Authorization` values, one per push-service origin, each reused for half its life: a
 * burst of messages to one push service signs once, and no token is sent close to its `exp`. Not
 * thread-safe (the sender's thread owns it). Its values are secrets: never logged.
 */
class VapidCache {
  public:
    /** @brief Signs with `key`; `subject` is `[dav] push_subject`. */
    VapidCache(VapidKey key, std::string subject, std::chrono::seconds lifetime = vapid_lifetime);

    /** @brief The value for a request to `push_resource` at `now`; errors as vapid_authorization(). */
    Result<std::string> authorization(std::string_view push_resource, std::chrono::sys_seconds now);

    /** @brief Origins held (tests). */
    std::size_t size() const { return by_origin_.size(); }

  private:
    struct Made {
        std::string value;
        std::chrono::sys_seconds at;
    };
    VapidKey key_;
    std::string subject_;
    std::chrono::seconds lifetime_;
    std::map<std::string, Made, std::less<>> by_origin_;
};

} // namespace icsbridge::webpush
