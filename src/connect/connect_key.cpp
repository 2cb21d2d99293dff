// File: connect_key.cpp
// ConnectKey: the key file read, HMAC-SHA256 subkeys and signatures, AES-256-GCM seals (OpenSSL EVP, every
// context owned by a unique_ptr); base64url by util/base64url.hpp.
#include "connect/connect_key.hpp"

#include "util/base64url.hpp"
#include "util/openssl_ptr.hpp"
#include <icsbridge/digest.hpp>

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace icsbridge::connect {

namespace {

constexpr std::string_view version = "v1.";
constexpr std::size_t id_digits = 16;
constexpr std::size_t nonce_size = 12;
constexpr std::size_t tag_size = 16;
/// A key file is 32 or 65 bytes; anything much longer is the wrong file, and is not read to its end.
constexpr std::size_t longest_key_file = 4096;

constexpr std::string_view not_ours = "sealed value does not check out (tampered or damaged)";
constexpr std::string_view other_key =
    "sealed with another key (the connect key_file changed): reconnect needed";

std::string_view as_chars(unsigned char const* p, std::size_t n) {
    return {reinterpret_cast<char const*>(p), n};
}

unsigned char const* as_bytes(std::string_view s) {
    return reinterpret_cast<unsigned char const*>(s.data());
}

int checked_int(std::size_t n) {
    if (n > static_cast<std::size_t>(INT_MAX))
        throw std::length_error("connect key: a value of more than 2 GiB");
    return static_cast<int>(n);
}

ConnectKey::Bytes hmac_sha256(ConnectKey::Bytes const& key, std::string_view data) {
    ConnectKey::Bytes out{};
    unsigned len = 0;
    if (!HMAC(
            EVP_sha256(),
            key.data(),
            checked_int(key.size()),
            as_bytes(data),
            data.size(),
            out.data(),
            &len
        ) ||
        len != out.size())
        throw std::runtime_error("HMAC-SHA256 failed (OpenSSL)");
    return out;
}

std::string make_with(std::string const& path) {
    return "make one with: openssl rand -hex 32 > " + path + " && chmod 600 " + path;
}

/** @brief Up to longest_key_file + 1 bytes of the file, or why it cannot be read. */
Result<std::string> read_key_file(std::string const& path) {
    auto const cannot = [&](int err) {
        return fail(
            errc::config_invalid,
            "connect key_file " + path + ": cannot read it (" + std::generic_category().message(err) + "); " +
                make_with(path)
        );
    };
    int const fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cannot(errno);
    std::string out(longest_key_file + 1, '\0');
    std::size_t got = 0;
    while (got < out.size()) {
        ssize_t const n = ::read(fd, out.data() + got, out.size() - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int const err = errno;
            ::close(fd);
            OPENSSL_cleanse(out.data(), out.size());
            return cannot(err);
        }
        if (n == 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    out.resize(got);
    return out;
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/** @brief The key in a file's content, or what is wrong with it (by size and kind, never by content). */
Result<ConnectKey::Bytes> parse_key(std::string const& path, std::string_view content) {
    ConnectKey::Bytes key{};
    std::string_view hex_text = content;
    while (!hex_text.empty() && is_space(hex_text.front()))
        hex_text.remove_prefix(1);
    while (!hex_text.empty() && is_space(hex_text.back()))
        hex_text.remove_suffix(1);
    bool parsed = from_hex(hex_text, key);
    if (!parsed && content.size() == key.size()) {
        std::copy(content.begin(), content.end(), key.begin());
        parsed = true;
    }
    if (!parsed) {
        std::string const size = content.size() > longest_key_file
                                     ? "more than " + std::to_string(longest_key_file) + " bytes"
                                     : std::to_string(content.size()) + " bytes";
        std::string const kind = hex_text.size() == 2 * key.size() ? " that are not all hex digits" : "";
        return fail(
            errc::config_invalid,
            "connect key_file " + path + " holds " + size + kind +
                ": it must hold 64 hex digits (openssl rand -hex 32) or exactly 32 raw bytes; " +
                make_with(path)
        );
    }
    bool const all_zero = std::all_of(key.begin(), key.end(), [](unsigned char b) { return b == 0; });
    if (all_zero)
        return fail(
            errc::config_invalid,
            "connect key_file " + path + " holds a key of zero bytes only (not a random key); " +
                make_with(path)
        );
    return key;
}

} // namespace

ConnectKey::ConnectKey(Bytes const& bytes)
    : key_(bytes) {
    auto const digest = hmac_sha256(key_, "icsbridge key id");
    id_ = to_hex(std::span<unsigned char const>(digest.data(), id_digits / 2));
}

ConnectKey::~ConnectKey() {
    OPENSSL_cleanse(key_.data(), key_.size());
}

ConnectKey ConnectKey::from_bytes(Bytes const& bytes) {
    return ConnectKey(bytes);
}

Result<ConnectKey> ConnectKey::from_file(std::string const& path) {
    auto content = read_key_file(path);
    if (!content)
        return content.error();
    Wiped const wipe{*content};
    auto key = parse_key(path, *content);
    if (!key)
        return key.error();
    ConnectKey out(*key);
    OPENSSL_cleanse(key->data(), key->size());
    return out;
}

ConnectKey::Bytes ConnectKey::subkey(std::string_view label, std::string_view purpose) const {
    std::string const info = std::string(label) + std::string(purpose);
    return hmac_sha256(key_, info);
}

std::string
ConnectKey::seal(std::string_view purpose, std::string_view plaintext, std::string_view aad) const {
    auto key = subkey("icsbridge seal ", purpose);
    std::string const head = std::string(version) + id_ + ".";
    // nonce | ciphertext | tag, in one buffer
    std::string raw(nonce_size + plaintext.size() + tag_size, '\0');
    auto* nonce = reinterpret_cast<unsigned char*>(raw.data());
    auto* body = nonce + nonce_size;
    if (RAND_bytes(nonce, static_cast<int>(nonce_size)) != 1)
        throw std::runtime_error("the random number generator (RAND_bytes) failed");
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    // The header is authenticated too: a seal's version and key id cannot be swapped for others.
    bool ok =
        ctx && EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), nonce) == 1 &&
        EVP_EncryptUpdate(ctx.get(), nullptr, &len, as_bytes(head), checked_int(head.size())) == 1 &&
        EVP_EncryptUpdate(ctx.get(), nullptr, &len, as_bytes(aad), checked_int(aad.size())) == 1 &&
        EVP_EncryptUpdate(ctx.get(), body, &len, as_bytes(plaintext), checked_int(plaintext.size())) == 1 &&
        EVP_EncryptFinal_ex(ctx.get(), body + len, &len) == 1 &&
        EVP_CIPHER_CTX_ctrl(
            ctx.get(),
            EVP_CTRL_GCM_GET_TAG,
            static_cast<int>(tag_size),
            body + plaintext.size()
        ) == 1;
    OPENSSL_cleanse(key.data(), key.size());
    if (!ok)
        throw std::runtime_error("AES-256-GCM encryption failed (OpenSSL)");
    return head + base64url(raw);
}

Result<std::string>
ConnectKey::open(std::string_view purpose, std::string_view sealed, std::string_view aad) const {
    std::size_t const head_size = version.size() + id_digits + 1;
    if (sealed.size() < head_size || sealed.substr(0, version.size()) != version ||
        sealed[head_size - 1] != '.')
        return fail(errc::io_error, std::string(not_ours));
    auto const id = sealed.substr(version.size(), id_digits);
    if (id != id_) {
        bool const looks_like_id = std::all_of(id.begin(), id.end(), [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        });
        return fail(
            looks_like_id ? errc::not_connected : errc::io_error,
            std::string(looks_like_id ? other_key : not_ours)
        );
    }
    auto raw = from_base64url(sealed.substr(head_size));
    if (!raw || raw->size() < nonce_size + tag_size)
        return fail(errc::io_error, std::string(not_ours));
    auto const* nonce = as_bytes(*raw);
    std::size_t const body_size = raw->size() - nonce_size - tag_size;
    std::array<unsigned char, tag_size> tag{};
    std::copy_n(nonce + nonce_size + body_size, tag_size, tag.begin());
    auto key = subkey("icsbridge seal ", purpose);
    std::string plain(body_size, '\0');
    auto* out = reinterpret_cast<unsigned char*>(plain.data());
    auto const head = sealed.substr(0, head_size);
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    bool const ok =
        ctx && EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), nonce) == 1 &&
        EVP_DecryptUpdate(ctx.get(), nullptr, &len, as_bytes(head), checked_int(head.size())) == 1 &&
        EVP_DecryptUpdate(ctx.get(), nullptr, &len, as_bytes(aad), checked_int(aad.size())) == 1 &&
        EVP_DecryptUpdate(ctx.get(), out, &len, nonce + nonce_size, checked_int(body_size)) == 1 &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag_size), tag.data()) == 1 &&
        EVP_DecryptFinal_ex(ctx.get(), out + len, &len) == 1;
    OPENSSL_cleanse(key.data(), key.size());
    if (!ok) {
        OPENSSL_cleanse(plain.data(), plain.size());
        return fail(errc::io_error, std::string(not_ours));
    }
    return plain;
}

std::string ConnectKey::sign(std::string_view purpose, std::string_view data) const {
    auto key = subkey("icsbridge sign ", purpose);
    auto const mac = hmac_sha256(key, data);
    OPENSSL_cleanse(key.data(), key.size());
    return base64url(as_chars(mac.data(), mac.size()));
}

bool ConnectKey::verify(std::string_view purpose, std::string_view data, std::string_view signature) const {
    return same_secret(sign(purpose, data), signature);
}

std::string ConnectKey::random_id(std::size_t bytes) {
    std::vector<unsigned char> buf(bytes);
    if (bytes > 0 && RAND_bytes(buf.data(), checked_int(bytes)) != 1)
        throw std::runtime_error("the random number generator (RAND_bytes) failed");
    return base64url(as_chars(buf.data(), buf.size()));
}

std::optional<std::string> key_file_warning(std::string const& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || (st.st_mode & 077) == 0)
        return std::nullopt;
    char digits[8] = {};
    std::to_chars(digits, digits + sizeof digits, static_cast<unsigned>(st.st_mode & 07777), 8);
    std::string mode(digits);
    mode.insert(0, 4 - std::min<std::size_t>(4, mode.size()), '0');
    return "connect key_file " + path + " is open to its group or to others (mode " + mode + "): chmod 600 " +
           path;
}

} // namespace icsbridge::connect
