// File: ece.hpp
// The steps of a Web Push message, each its own function so the RFCs' test vectors can check each one:
// HKDF-SHA256, ECDH on P-256, RFC 8291's keys, and in webpush::Ece (OpenSSL's algorithms fetched once, for
// the sender's threads) RFC 8188's aes128gcm record and the whole message. webpush::encrypt() is Ece's with
// a fresh ephemeral key and salt.
#pragma once

#include "util/openssl_ptr.hpp"
#include <icsbridge/error.hpp>
#include <icsbridge/webpush.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace icsbridge::webpush {

/// The salt of an aes128gcm header (RFC 8188 §2.1).
inline constexpr std::size_t salt_size = 16;
/// The authentication secret of a subscription (RFC 8291 §3.2).
inline constexpr std::size_t auth_size = 16;

/** @brief HKDF-SHA256 (RFC 5869, extract then expand) by EVP_KDF: `length` bytes. errc::io_error on failure.
 */
Result<std::string>
hkdf_sha256(std::string_view salt, std::string_view ikm, std::string_view info, std::size_t length);

/** @brief The ECDH shared secret (the x coordinate, 32 bytes) of `own` and the P-256 point `peer`. */
Result<std::string> ecdh_p256(EVP_PKEY* own, std::string_view peer);

/**
 * @brief RFC 8291 §3.3 and §3.4: the IKM of the content encryption, HKDF(auth, ecdh_secret,
 * "WebPush: info" 0x00 ‖ ua_public ‖ as_public, 32).
 */
Result<std::string> webpush_ikm(
    std::string_view ecdh_secret,
    std::string_view auth,
    std::string_view ua_public,
    std::string_view as_public
);

/** @brief RFC 8188 §2.2 and §2.3: the content encryption key (16 bytes) and the nonce (12) of `ikm` and
 * `salt`. */
struct RecordKeys {
    std::string cek;
    std::string nonce;
};
Result<RecordKeys> record_keys(std::string_view ikm, std::string_view salt);

/**
 * @brief The OpenSSL objects every message's encryption uses, fetched once. OpenSSL 3.0 fetches an algorithm
 * by its name (walking its name tables, under locks) at each use of a name or of EVP_aes_128_gcm(): per
 * message, that cost about as much as the HKDFs themselves. Not thread-safe: one per thread that encrypts.
 */
class Ece {
  public:
    /** @brief errc::io_error when OpenSSL has no HKDF, AES-128-GCM or P-256 key generation. */
    static Result<Ece> make();

    /** @brief hkdf_sha256() by the fetched HKDF, its context set to SHA-256 once. */
    Result<std::string>
    hkdf(std::string_view salt, std::string_view ikm, std::string_view info, std::size_t length);
    /** @brief record_keys() by the fetched HKDF. */
    Result<RecordKeys> record_keys(std::string_view ikm, std::string_view salt);
    /**
     * @brief An RFC 8188 aes128gcm body of one record: the header (salt, record size, key id) and `plaintext`
     * with its delimiter 0x02, encrypted with AES-128-GCM. errc::usage when the salt is not 16 bytes, the key
     * id over 255, or the record over `rs`.
     */
    Result<std::string> aes128gcm(
        std::string_view ikm,
        std::string_view salt,
        std::string_view key_id,
        std::string_view plaintext,
        std::size_t rs = record_size
    );
    /**
     * @brief RFC 8291 §3 with a given ephemeral key pair (`as_key`, its point `as_public`) and salt: what
     * encrypt() does with fresh ones, here so that Appendix A's fixed values reproduce its bytes.
     */
    Result<std::string> encrypt_with(
        std::string_view plaintext,
        SubscriptionKeys const& keys,
        EVP_PKEY* as_key,
        std::string_view as_public,
        std::string_view salt
    );
    /** @brief webpush::encrypt(): a fresh ephemeral key (from the one key-generation context) and salt. */
    Result<std::string> encrypt(std::string_view plaintext, SubscriptionKeys const& keys);

  private:
    Ece() = default;
    Result<std::string> seal(RecordKeys const& keys, std::string_view plaintext);

    KdfCtxPtr hkdf_; ///< HKDF with its digest set, reused by every derivation
    OpensslPtr<EVP_CIPHER, EVP_CIPHER_free> aes_;
    PkeyCtxPtr keygen_; ///< P-256 key generation, initialised once, one key per EVP_PKEY_generate
};

} // namespace icsbridge::webpush
