// File: ece.cpp
// HKDF by EVP_KDF "HKDF", ECDH by EVP_PKEY_derive, AES-128-GCM by EVP_EncryptInit_ex2; every OpenSSL
// object held by an owner from util/openssl_ptr.hpp, every intermediate secret wiped once used.
#include "webpush/ece.hpp"

#include "webpush/p256.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>

namespace icsbridge::webpush {

namespace {

constexpr std::size_t tag_size = 16;
constexpr char padding_delimiter_last = '\x02';

unsigned char const* bytes_of(std::string_view s) {
    return reinterpret_cast<unsigned char const*>(s.data());
}

unsigned char* bytes_of(std::string& s) {
    return reinterpret_cast<unsigned char*>(s.data());
}

Error auth_refusal(std::size_t size) {
    return fail(errc::usage, "the subscription's auth secret must be 16 bytes, not " + std::to_string(size));
}

Error key_refusal(Error const& why) {
    return fail(errc::usage, "the subscription's p256dh key: " + why.message);
}

/** @brief salt ‖ rs (uint32, big-endian) ‖ idlen ‖ keyid (RFC 8188 §2.1). */
std::string header_of(std::string_view salt, std::size_t rs, std::string_view key_id) {
    std::string out(salt);
    for (int shift : {24, 16, 8, 0})
        out += static_cast<char>((rs >> shift) & 0xff);
    out += static_cast<char>(key_id.size());
    out += key_id;
    return out;
}

/** @brief "WebPush: info" 0x00 ‖ ua_public ‖ as_public: the info of RFC 8291 §3.4's HKDF. */
std::string ikm_info(std::string_view ua_public, std::string_view as_public) {
    std::string info("WebPush: info");
    info += '\0';
    info += ua_public;
    info += as_public;
    return info;
}

Result<void> check_record(std::string_view salt, std::string_view key_id, std::size_t size, std::size_t rs) {
    if (salt.size() != salt_size)
        return fail(errc::usage, "aes128gcm: the salt must be 16 bytes");
    if (key_id.size() > 255)
        return fail(errc::usage, "aes128gcm: the key id must be at most 255 bytes");
    if (rs > 0xffffffffU || size + 1 + tag_size > rs)
        return fail(
            errc::usage,
            "aes128gcm: " + std::to_string(size) + " bytes do not fit one record of " + std::to_string(rs)
        );
    return {};
}

Result<void> check_plaintext(std::string_view plaintext, SubscriptionKeys const& keys) {
    if (keys.auth.size() != auth_size)
        return auth_refusal(keys.auth.size());
    if (plaintext.size() > max_plaintext)
        return fail(
            errc::usage,
            "a push message holds at most " + std::to_string(max_plaintext) + " bytes, not " +
                std::to_string(plaintext.size())
        );
    return {};
}

} // namespace

Result<Ece> Ece::make() {
    Ece out;
    KdfPtr const kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
    out.hkdf_.reset(kdf ? EVP_KDF_CTX_new(kdf.get()) : nullptr);
    // OSSL_PARAM wants non-const pointers; HKDF only reads this.
    std::array<OSSL_PARAM, 2> digest{
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>("SHA256"), 0),
        OSSL_PARAM_construct_end()};
    if (!out.hkdf_ || EVP_KDF_CTX_set_params(out.hkdf_.get(), digest.data()) != 1)
        return openssl_failed("setting up HKDF");
    out.aes_.reset(EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr));
    if (!out.aes_)
        return openssl_failed("setting up AES-128-GCM");
    out.keygen_.reset(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    if (!out.keygen_ || EVP_PKEY_keygen_init(out.keygen_.get()) != 1 ||
        EVP_PKEY_CTX_set_group_name(out.keygen_.get(), "prime256v1") != 1)
        return openssl_failed("setting up P-256 key generation");
    return out;
}

Result<std::string>
Ece::hkdf(std::string_view salt, std::string_view ikm, std::string_view info, std::size_t length) {
    // The context keeps its digest; each derivation sets the rest (OpenSSL 3.0's HKDF cannot be copied).
    std::array<OSSL_PARAM, 4> params{
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<char*>(salt.data()), salt.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<char*>(ikm.data()), ikm.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(info.data()), info.size()),
        OSSL_PARAM_construct_end()};
    std::string out(length, '\0');
    bool const derived = EVP_KDF_derive(hkdf_.get(), bytes_of(out), out.size(), params.data()) == 1;
    // The key is a secret: wiped from the context now (HKDF clears the old key when given a new one), not
    // left there until the next message.
    char none = 0;
    std::array<OSSL_PARAM, 2> wipe{
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, &none, 0),
        OSSL_PARAM_construct_end()};
    if (!derived || EVP_KDF_CTX_set_params(hkdf_.get(), wipe.data()) != 1)
        return openssl_failed("HKDF-SHA256");
    return out;
}

Result<RecordKeys> Ece::record_keys(std::string_view ikm, std::string_view salt) {
    using namespace std::string_view_literals;
    auto cek = hkdf(salt, ikm, "Content-Encoding: aes128gcm\0"sv, 16);
    if (!cek)
        return cek.error();
    auto nonce = hkdf(salt, ikm, "Content-Encoding: nonce\0"sv, 12);
    if (!nonce)
        return nonce.error();
    return RecordKeys{std::move(*cek), std::move(*nonce)};
}

/** @brief AES-128-GCM of `plaintext` under `keys`: ciphertext ‖ tag. */
Result<std::string> Ece::seal(RecordKeys const& keys, std::string_view plaintext) {
    CipherCtxPtr const ctx(EVP_CIPHER_CTX_new());
    if (!ctx ||
        EVP_EncryptInit_ex2(ctx.get(), aes_.get(), bytes_of(keys.cek), bytes_of(keys.nonce), nullptr) != 1)
        return openssl_failed("setting up AES-128-GCM");
    std::string out(plaintext.size() + tag_size, '\0');
    int const size = static_cast<int>(plaintext.size());
    char* const tag = out.data() + plaintext.size();
    int written = 0;
    int last = 0;
    if (EVP_EncryptUpdate(ctx.get(), bytes_of(out), &written, bytes_of(plaintext), size) != 1 ||
        EVP_EncryptFinal_ex(ctx.get(), bytes_of(out) + written, &last) != 1 || written + last != size ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, int{tag_size}, tag) != 1)
        return openssl_failed("AES-128-GCM encryption");
    return out;
}

Result<std::string> Ece::aes128gcm(
    std::string_view ikm,
    std::string_view salt,
    std::string_view key_id,
    std::string_view plaintext,
    std::size_t rs
) {
    if (auto ok = check_record(salt, key_id, plaintext.size(), rs); !ok)
        return ok.error();
    auto keys = record_keys(ikm, salt);
    if (!keys)
        return keys.error();
    Wiped const cek{keys->cek};
    std::string padded(plaintext);
    padded += padding_delimiter_last;
    // The one record is record 0, so its nonce is the derived nonce itself (RFC 8188 §2.3: XOR with 0).
    auto sealed = seal(*keys, padded);
    OPENSSL_cleanse(padded.data(), padded.size());
    if (!sealed)
        return sealed.error();
    return header_of(salt, rs, key_id) + *sealed;
}

Result<std::string> Ece::encrypt_with(
    std::string_view plaintext,
    SubscriptionKeys const& keys,
    EVP_PKEY* as_key,
    std::string_view as_public,
    std::string_view salt
) {
    if (auto ok = check_plaintext(plaintext, keys); !ok)
        return ok.error();
    auto secret = ecdh_p256(as_key, keys.p256dh);
    if (!secret)
        return secret.error().code == errc::usage ? key_refusal(secret.error()) : secret.error();
    Wiped const wipe_secret{*secret};
    auto ikm = hkdf(keys.auth, *secret, ikm_info(keys.p256dh, as_public), 32);
    if (!ikm)
        return ikm.error();
    Wiped const wipe_ikm{*ikm};
    return aes128gcm(*ikm, salt, as_public, plaintext, record_size);
}

Result<std::string> Ece::encrypt(std::string_view plaintext, SubscriptionKeys const& keys) {
    EVP_PKEY* raw = nullptr;
    if (EVP_PKEY_generate(keygen_.get(), &raw) != 1)
        return openssl_failed("making a P-256 key");
    PkeyPtr const ephemeral(raw);
    auto as_public = p256_point(ephemeral.get());
    if (!as_public)
        return as_public.error();
    std::string salt(salt_size, '\0');
    if (RAND_bytes(bytes_of(salt), static_cast<int>(salt.size())) != 1)
        return openssl_failed("the random number generator (RAND_bytes)");
    return encrypt_with(plaintext, keys, ephemeral.get(), *as_public, salt);
}

Result<std::string>
hkdf_sha256(std::string_view salt, std::string_view ikm, std::string_view info, std::size_t length) {
    auto ece = Ece::make();
    if (!ece)
        return ece.error();
    return ece->hkdf(salt, ikm, info, length);
}

Result<std::string> ecdh_p256(EVP_PKEY* own, std::string_view peer) {
    auto peer_key = p256_public_key(peer);
    if (!peer_key)
        return peer_key.error();
    PkeyCtxPtr const ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, own, nullptr));
    std::size_t length = 0;
    // Not EVP_PKEY_derive_set_peer: it checks the peer again in full, multiplying it by the group's order
    // (a third of a message's CPU). p256_public_key has checked it (on the curve; P-256's cofactor is 1).
    if (!ctx || EVP_PKEY_derive_init(ctx.get()) != 1 ||
        EVP_PKEY_derive_set_peer_ex(ctx.get(), peer_key->get(), 0) != 1 ||
        EVP_PKEY_derive(ctx.get(), nullptr, &length) != 1)
        return openssl_failed("setting up ECDH");
    std::string secret(length, '\0');
    if (EVP_PKEY_derive(ctx.get(), bytes_of(secret), &length) != 1 || length != scalar_size)
        return openssl_failed("ECDH");
    return secret;
}

Result<std::string> webpush_ikm(
    std::string_view ecdh_secret,
    std::string_view auth,
    std::string_view ua_public,
    std::string_view as_public
) {
    return hkdf_sha256(auth, ecdh_secret, ikm_info(ua_public, as_public), 32);
}

Result<RecordKeys> record_keys(std::string_view ikm, std::string_view salt) {
    auto ece = Ece::make();
    if (!ece)
        return ece.error();
    return ece->record_keys(ikm, salt);
}

Result<void> check_keys(SubscriptionKeys const& keys) {
    if (keys.auth.size() != auth_size)
        return auth_refusal(keys.auth.size());
    if (auto key = p256_public_key(keys.p256dh); !key)
        return key_refusal(key.error());
    return {};
}

Result<std::string> encrypt(std::string_view plaintext, SubscriptionKeys const& keys) {
    auto ece = Ece::make();
    if (!ece)
        return ece.error();
    return ece->encrypt(plaintext, keys);
}

} // namespace icsbridge::webpush
