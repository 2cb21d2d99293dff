// File: connect_key.hpp
// The operator's connect key (`[connect] key_file`, issue 27): the one secret that seals what the service
// keeps of a subscriber's connection (refresh tokens, the sign-in `state`) and signs its forms.
#pragma once

#include <icsbridge/error.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::connect {

/**
 * @brief 32 secret bytes and what is made with them: AES-256-GCM seals, HMAC-SHA256 signatures and a public
 * id. A value: copy it freely; its bytes are wiped when a copy dies and there is no way to print them.
 *
 * Every use names a purpose ("token", "state", "csrf") and gets its own subkey, HMAC-SHA256(key,
 * "icsbridge seal " + purpose) for seals and HMAC-SHA256(key, "icsbridge sign " + purpose) for signatures,
 * so a value sealed or signed for one purpose is never accepted for another, and no AES key is ever an HMAC
 * key too.
 */
class ConnectKey {
  public:
    using Bytes = std::array<unsigned char, 32>;

    /**
     * @brief Reads a key file: 64 hex digits (surrounding white space allowed: `openssl rand -hex 32 > FILE`)
     * or exactly 32 raw bytes. errc::config_invalid naming the path and the command that makes a good
     * file; never the file's content. The file's mode is key_file_warning()'s business, not this one's: a
     * readable key still works, so the service starts and says so.
     */
    static Result<ConnectKey> from_file(std::string const& path);
    /** @brief A key from its bytes (tests). */
    static ConnectKey from_bytes(Bytes const& bytes);

    ConnectKey(ConnectKey const&) = default;
    ConnectKey(ConnectKey&&) = default;
    ConnectKey& operator=(ConnectKey const&) = default;
    ConnectKey& operator=(ConnectKey&&) = default;
    ~ConnectKey();

    /**
     * @brief 16 hex digits naming this key without revealing it: the first 8 bytes of HMAC-SHA256(key,
     * "icsbridge key id"). Written into every seal, so a value sealed with a former key is told apart from a
     * damaged one.
     */
    std::string const& id() const { return id_; }

    /**
     * @brief AES-256-GCM of `plaintext` under the purpose's subkey with a fresh 12-byte random nonce, `aad`
     * (the context the value belongs to, e.g. the connection id) authenticated but not stored.
     * @return "v1." + id() + "." + base64url(nonce | ciphertext | 16-byte tag): ASCII, safe in JSON and URLs.
     * Throws std::runtime_error when OpenSSL fails (the random generator, the cipher): nothing to go on.
     */
    std::string seal(std::string_view purpose, std::string_view plaintext, std::string_view aad) const;

    /**
     * @brief The plaintext of a seal() made with this key for the same purpose and aad.
     * @return errc::not_connected "sealed with another key (the connect key_file changed): reconnect needed"
     * for a well-formed seal of another key; errc::io_error "sealed value does not check out (tampered or
     * damaged)" for anything else (malformed, altered, another purpose or aad). Neither message holds the
     * plaintext or the key.
     */
    Result<std::string> open(std::string_view purpose, std::string_view sealed, std::string_view aad) const;

    /** @brief base64url of HMAC-SHA256(purpose's subkey, data): 43 characters. */
    std::string sign(std::string_view purpose, std::string_view data) const;
    /** @brief Whether `signature` is sign(purpose, data), compared in constant time. */
    bool verify(std::string_view purpose, std::string_view data, std::string_view signature) const;

    /**
     * @brief base64url of `bytes` random bytes (RAND_bytes): connection ids (16 bytes) and management
     * secrets (32 bytes). Throws std::runtime_error when the random generator fails.
     */
    static std::string random_id(std::size_t bytes);

  private:
    explicit ConnectKey(Bytes const& bytes);
    Bytes subkey(std::string_view label, std::string_view purpose) const;

    Bytes key_{};
    std::string id_;
};

/**
 * @brief A line for the log when the key file can be read by its group or by others ("connect key_file PATH
 * is open to its group or to others (mode 0644): chmod 600 PATH"); nullopt when it is owner-only or cannot be
 * looked at (from_file() reports that). A separate check, not an error: the key still works, and the
 * operator decides who may read it (a group-readable file under /etc/icsbridge may be on purpose).
 */
std::optional<std::string> key_file_warning(std::string const& path);

} // namespace icsbridge::connect
