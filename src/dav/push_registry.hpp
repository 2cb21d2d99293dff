// File: push_registry.hpp
// WebDAV-Push registrations (issue 37, draft-bitfire-webdav-push): who asked to be told when a feed's
// collection changes, and where their push service takes the message. The registration side (POST
// push-register, DELETE /dav/push/ID, the PROPFIND advertisement) writes here; the delivery side reads.
//
// For the delivery side, exactly these calls:
//   - `registry.live(feed, now)`: the registrations to send one message to after a publication that
//     changed `feed` (a copy; expired ones are left out). Each carries push_resource, keys (p256dh, auth:
//     raw bytes, as webpush::encrypt() takes them) and id.
//   - `registry.topic(feed)`: the collection's topic, for the push-message body and the `Topic` header.
//   - `registry.remove(id)`: the push service answered 404 or 410 (the subscription is gone).
//   - the push resource's host, resolved once: send only when webpush::is_public() (webpush/address.hpp)
//     says so of the address connected to, unless `[dav] push_allow_private`.
// In `serve` (app/dav_push_wiring.cpp, app/webpush_wiring.cpp) the routes write and the sender reads; in
// cluster mode the registrations are rows in the database, read again by every replica every 5 s, so that
// live() sees what other replicas registered.
// Every call is thread-safe.
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/webpush.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::dav {

/** @brief One registration: a Web Push subscription on one feed's collection. */
struct PushRegistration {
    std::string id;                   ///< 22 characters base64url (16 random bytes): also its /dav/push/ID
    std::string feed;                 ///< the collection's feed
    std::string push_resource;        ///< the push service's URL for this subscription (https)
    webpush::SubscriptionKeys keys;   ///< p256dh (65 raw bytes, a P-256 point) and auth (16 raw bytes)
    std::string depth = "1";          ///< the content-update trigger's depth ("0", "1", "infinity")
    std::chrono::sys_seconds expires; ///< when it ends unless registered again
    /// The subscriber whose Basic login registered it on a token feed; empty on a public feed
    std::string subscriber;
    /// push_token_digest() of the token the subscriber logged in with: the registration lives only while
    /// the feed still accepts that token from them (revoked, rotated, the subscriber removed: it ends).
    /// Empty on a public feed.
    std::string token_digest;
};

/** @brief How many registrations are kept: anyone may register on a public feed. */
struct PushCaps {
    std::size_t per_collection = 10'000;
    std::size_t total = 50'000;
};

/** @brief The longest a registration lives without being renewed (the draft lets the server choose). */
inline constexpr std::chrono::days push_max_lifetime{7};

/**
 * @brief Where registrations are kept beyond the process: a journal under storage.dir on a single box,
 * rows in PostgreSQL in cluster mode. Called under the registry's lock, in the order of the changes.
 */
class PushPersistence {
  public:
    virtual ~PushPersistence() = default;
    /** @brief Every registration kept (expired ones may be among them). */
    virtual Result<std::vector<PushRegistration>> load() = 0;
    /** @brief Adds `r`, or replaces the one with its id. */
    virtual Result<void> put(PushRegistration const& r) = 0;
    /** @brief Removes the registration `id`; whether there was one. */
    virtual Result<bool> remove(std::string const& id) = 0;
};

/** @brief What add() did. */
enum class PushAdded { created, updated };

class PushRegistry {
  public:
    /**
     * @param vapid_public base64url of the server's VAPID public key (VapidKey::public_key_base64url()),
     *   which the advertisement shows.
     * @param topic_key push_topic_key() of the VAPID key: a secret the topics are derived from.
     * @param persistence where registrations persist; null: memory only.
     */
    PushRegistry(
        std::string vapid_public,
        std::string topic_key,
        std::shared_ptr<PushPersistence> persistence,
        PushCaps caps = {}
    );

    /** @brief Reads what `persistence` holds, expired ones dropped. errc::io_error when it cannot be read. */
    Result<void> reload(std::chrono::sys_seconds now);

    /**
     * @brief Registers `r` (its id is ignored). The same push resource on the same feed again updates that
     * registration (keys, trigger, expiry, subscriber) and keeps its id. `r.expires` is capped at
     * now + push_max_lifetime. Returns the registration as kept (with its id).
     * errc::usage when a cap would be passed (the message says which); errc::io_error when it could not be
     * kept.
     */
    Result<std::pair<PushAdded, PushRegistration>> add(PushRegistration r, std::chrono::sys_seconds now);

    /** @brief The feed's live registrations (not expired at `now`). */
    std::vector<PushRegistration> live(std::string_view feed, std::chrono::sys_seconds now) const;
    /** @brief A live registration by id. */
    std::optional<PushRegistration> find(std::string_view id, std::chrono::sys_seconds now) const;

    /** @brief Ends a registration (in the persistence too, where another replica may have made it); false
     * when there was none with `id`. */
    bool remove(std::string_view id);
    /** @brief Ends every registration `ends` says to (revoked tokens, feeds gone); how many ended. */
    std::size_t remove_if(std::function<bool(PushRegistration const&)> const& ends);
    /** @brief Drops the registrations expired at `now`; how many. */
    std::size_t expire(std::chrono::sys_seconds now);

    /** @brief Live registrations per feed (for /metrics and /healthz). */
    std::map<std::string, std::size_t, std::less<>> counts() const;

    /** @brief base64url of the VAPID public key (an uncompressed P-256 point). */
    std::string const& vapid_public_key() const noexcept { return vapid_public_; }

    /**
     * @brief The collection's topic: 16 bytes, base64url (22 characters). HMAC-SHA-256 of the feed name
     * keyed by a secret derived from the VAPID private key, cut to 16 bytes. Derived rather than stored:
     * nothing to keep or migrate, stable across restarts, the same on every replica that shares the key
     * (the database holds it in cluster mode), and a push service that sees it learns nothing of the name.
     */
    std::string topic(std::string_view feed) const;

    PushCaps const& caps() const noexcept { return caps_; }

  private:
    std::size_t expire_locked(std::chrono::sys_seconds now);
    std::size_t remove_locked(std::function<bool(PushRegistration const&)> const& ends);

    std::string vapid_public_;
    std::string topic_key_; ///< 32 bytes; a secret
    std::shared_ptr<PushPersistence> persistence_;
    PushCaps caps_;
    mutable std::mutex mtx_;
    std::map<std::string, PushRegistration, std::less<>> by_id_; ///< guarded by mtx_
};

/**
 * @brief The secret a registry derives topics from: SHA-256 of a label and the VAPID private key (so every
 * replica sharing the key derives the same). errc::io_error when OpenSSL fails.
 */
Result<std::string> push_topic_key(webpush::VapidKey const& vapid);

/** @brief A registration id: 16 random bytes, base64url. */
std::string new_push_id();

/**
 * @brief PushRegistration::token_digest: hex SHA-256 of a label, the feed, the subscriber and the token
 * (salted by feed and subscriber, so equal tokens of two feeds differ and no table of common tokens fits).
 */
std::string push_token_digest(std::string_view feed, std::string_view subscriber, std::string_view token);

} // namespace icsbridge::dav
