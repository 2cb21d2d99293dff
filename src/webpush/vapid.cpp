// File: vapid.cpp
// The VAPID key (an EVP_PKEY shared between copies) and its ES256 JWT (RFC 7515 §A.3, RFC 8292 §2):
// EVP_DigestSign gives a DER ECDSA-Sig-Value, which JWS wants as the raw r‖s of 32 bytes each.
#include "net/credential_guard.hpp"
#include "util/base64url.hpp"
#include "webpush/p256.hpp"
#include <icsbridge/webpush.hpp>

#include <boost/json.hpp>

#include <openssl/crypto.h>
#include <openssl/pem.h>

#include <utility>

namespace icsbridge::webpush {

namespace {

constexpr std::chrono::hours longest_lifetime{24};

/** @brief The DER signature as r‖s, each left-padded to 32 bytes. */
Result<std::string> raw_signature(unsigned char const* der, std::size_t length) {
    EcdsaSigPtr const sig(d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(length)));
    if (!sig)
        return openssl_failed("reading an ECDSA signature");
    BIGNUM const* r = nullptr;
    BIGNUM const* s = nullptr;
    ECDSA_SIG_get0(sig.get(), &r, &s);
    std::string out(2 * scalar_size, '\0');
    auto* bytes = reinterpret_cast<unsigned char*>(out.data());
    if (BN_bn2binpad(r, bytes, scalar_size) != static_cast<int>(scalar_size) ||
        BN_bn2binpad(s, bytes + scalar_size, scalar_size) != static_cast<int>(scalar_size))
        return openssl_failed("writing an ECDSA signature");
    return out;
}

/** @brief No passphrase: the key file is never encrypted, and OpenSSL must not ask a terminal for one. */
int no_passphrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*u*/) {
    return -1;
}

/** @brief A VapidKey's parts from an owned P-256 key: the shared handle and its point. */
Result<std::pair<std::shared_ptr<evp_pkey_st>, std::string>> share(PkeyPtr key) {
    auto point = p256_point(key.get());
    if (!point)
        return point.error();
    return std::pair{std::shared_ptr<evp_pkey_st>(key.release(), EVP_PKEY_free), std::move(*point)};
}

} // namespace

VapidKey::VapidKey(std::shared_ptr<evp_pkey_st> key, std::string public_key)
    : key_(std::move(key))
    , public_(std::move(public_key)) {}

Result<VapidKey> VapidKey::generate() {
    auto key = make_p256_key();
    if (!key)
        return key.error();
    auto parts = share(std::move(*key));
    if (!parts)
        return parts.error();
    return VapidKey(std::move(parts->first), std::move(parts->second));
}

Result<VapidKey> VapidKey::from_pem(std::string_view pem) {
    BioPtr const bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    if (!bio)
        return openssl_failed("reading a PEM key");
    PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, &no_passphrase, nullptr));
    if (!key || !is_p256(key.get()))
        return fail(errc::io_error, "it holds no P-256 private key in PEM");
    auto parts = share(std::move(key));
    if (!parts)
        return parts.error();
    return VapidKey(std::move(parts->first), std::move(parts->second));
}

Result<std::string> VapidKey::to_pem() const {
    BioPtr const bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PrivateKey(bio.get(), key_.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
        return openssl_failed("writing the key as PEM");
    char* data = nullptr;
    long const length = BIO_get_mem_data(bio.get(), &data);
    if (length <= 0 || !data)
        return openssl_failed("writing the key as PEM");
    std::string out(data, static_cast<std::size_t>(length));
    OPENSSL_cleanse(data, static_cast<std::size_t>(length));
    return out;
}

std::string VapidKey::public_key_base64url() const {
    return base64url(public_);
}

Result<std::string> VapidKey::sign(std::string_view data) const {
    MdCtxPtr const ctx(EVP_MD_CTX_new());
    std::size_t length = 0;
    if (!ctx ||
        EVP_DigestSignInit_ex(ctx.get(), nullptr, "SHA256", nullptr, nullptr, key_.get(), nullptr) != 1 ||
        EVP_DigestSign(
            ctx.get(),
            nullptr,
            &length,
            reinterpret_cast<unsigned char const*>(data.data()),
            data.size()
        ) != 1)
        return openssl_failed("setting up ES256 signing");
    std::string der(length, '\0');
    if (EVP_DigestSign(
            ctx.get(),
            reinterpret_cast<unsigned char*>(der.data()),
            &length,
            reinterpret_cast<unsigned char const*>(data.data()),
            data.size()
        ) != 1)
        return openssl_failed("ES256 signing");
    return raw_signature(reinterpret_cast<unsigned char const*>(der.data()), length);
}

Result<std::string> vapid_authorization(
    VapidKey const& key,
    std::string_view push_resource,
    std::string_view subject,
    std::chrono::sys_seconds now,
    std::chrono::seconds lifetime
) {
    auto const origin = origin_of(push_resource);
    if (!origin)
        return fail(errc::usage, "a push resource must be an absolute http or https URL");
    if (lifetime <= std::chrono::seconds::zero() || lifetime > longest_lifetime)
        return fail(errc::usage, "a VAPID token is valid for more than 0 s and at most 24 h (RFC 8292 §2)");
    // RFC 7519 fixes no member order; these are written in one so equal inputs sign equal bytes.
    boost::json::object claims;
    claims["aud"] = origin->text();
    claims["exp"] = (now + lifetime).time_since_epoch().count();
    // No contact configured ([dav] push_subject, nor an https public_url): RFC 8292 §2.1 lets `sub` be left
    // out.
    if (!subject.empty())
        claims["sub"] = subject;
    std::string const signing_input =
        base64url(R"({"typ":"JWT","alg":"ES256"})") + "." + base64url(boost::json::serialize(claims));
    auto signature = key.sign(signing_input);
    if (!signature)
        return signature.error();
    return "vapid t=" + signing_input + "." + base64url(*signature) + ", k=" + key.public_key_base64url();
}

} // namespace icsbridge::webpush
