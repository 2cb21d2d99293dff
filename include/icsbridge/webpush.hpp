// File: webpush.hpp
// Web Push for WebDAV-Push (issue 37): a message encrypted for one subscription (RFC 8291 in RFC 8188's
// aes128gcm framing, one record) and the server's VAPID identity (RFC 8292: an ES256 JWT in
// `Authorization: vapid t=…, k=…`), kept in a 0600 file under storage.dir. OpenSSL 3.0's EVP only; sans-io:
// nothing here opens a socket.
#pragma once

#include <icsbridge/error.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct evp_pkey_st; // OpenSSL's EVP_PKEY, kept out of the includes of every user of this header

namespace icsbridge::webpush {

/** @brief A subscription's keys (RFC 8291 §2.1) as raw bytes, decoded from the base64url a client sends. */
struct SubscriptionKeys {
    std::string p256dh; ///< the user agent's P-256 public key, an uncompressed point: 65 bytes, 0x04 first
    std::string auth;   ///< the authentication secret: 16 bytes
};

/// The record size every message is framed with (RFC 8291 §4: one record of at most 4096 octets).
inline constexpr std::size_t record_size = 4096;
/// The most plaintext one message carries: 4096 less the 86-octet header, the 16-octet tag and the padding
/// delimiter (RFC 8291 §4).
inline constexpr std::size_t max_plaintext = 3993;

/**
 * @brief Whether `keys` can be encrypted to: `p256dh` a point on P-256 (65 bytes, uncompressed), `auth` 16
 * bytes. errc::usage naming what is wrong (never the bytes).
 */
Result<void> check_keys(SubscriptionKeys const& keys);

/**
 * @brief The body of a push message (`Content-Encoding: aes128gcm`): `plaintext` encrypted for the
 * subscription with a fresh ephemeral key pair and a fresh random salt (RFC 8291 §3).
 * @return errc::usage for keys check_keys() refuses or a plaintext over max_plaintext; errc::io_error when
 * OpenSSL fails.
 */
Result<std::string> encrypt(std::string_view plaintext, SubscriptionKeys const& keys);

/**
 * @brief The application server's VAPID key pair (ECDSA P-256). A shared handle: copies sign with the same
 * key, from any thread. The private half never leaves but through to_pem().
 */
class VapidKey {
  public:
    /** @brief A new random key pair. errc::io_error when OpenSSL fails. */
    static Result<VapidKey> generate();
    /** @brief The key in PKCS#8 PEM ("BEGIN PRIVATE KEY", unencrypted); errc::io_error unless a P-256 key. */
    static Result<VapidKey> from_pem(std::string_view pem);

    /** @brief The private key as PKCS#8 PEM: a secret, for the key file only. */
    Result<std::string> to_pem() const;
    /** @brief The public key, an uncompressed point: 65 bytes. */
    std::string const& public_key() const noexcept { return public_; }
    /** @brief base64url of public_key(): the `k=` of the header and the `vapid-public-key` of a collection.
     */
    std::string public_key_base64url() const;
    /** @brief The ES256 signature of `data` (SHA-256, ECDSA P-256) as JWS wants it: r‖s, 64 bytes. */
    Result<std::string> sign(std::string_view data) const;

  private:
    VapidKey(std::shared_ptr<evp_pkey_st> key, std::string public_key);

    std::shared_ptr<evp_pkey_st> key_;
    std::string public_;
};

/// How long a VAPID token is valid: RFC 8292 §2 allows at most 24 hours; 12 leaves room for clock skew.
inline constexpr std::chrono::hours vapid_lifetime{12};

/**
 * @brief The `Authorization` value of one request to `push_resource` (RFC 8292 §3):
 * `vapid t=JWT, k=PUBLIC`, the JWT an ES256 one with `aud` the push resource's origin, `exp` = now +
 * `lifetime` and `sub` = `subject` (a mailto: or https: URI naming the operator; left out when empty).
 * @return errc::usage for a push resource that is no absolute http(s) URL or a lifetime not within
 * (0, 24 h]; errc::io_error when signing fails.
 */
Result<std::string> vapid_authorization(
    VapidKey const& key,
    std::string_view push_resource,
    std::string_view subject,
    std::chrono::sys_seconds now,
    std::chrono::seconds lifetime = vapid_lifetime
);

/** @brief Where the VAPID key is kept on a single box: `{storage_dir}/webpush/vapid.pem`. */
std::string vapid_key_path(std::string const& storage_dir);

/**
 * @brief The VAPID key kept under `storage_dir`, made on first use: a new key is written (0600, in a 0700
 * directory) beside the place and then linked into it, so two processes starting at once keep one key and
 * a crash leaves the old state or the whole new file. A file that is there but holds no P-256 key is an
 * error, never replaced: push services tie every registration to the key. errc::io_error naming the path
 * (never the key).
 */
Result<VapidKey> load_or_make_vapid_key(std::string const& storage_dir);

} // namespace icsbridge::webpush
