// File: p256.cpp
// Keys by EVP_PKEY_Q_keygen and EVP_PKEY_fromdata with OSSL_PARAMs built by OSSL_PARAM_BLD; the point
// written uncompressed whatever form the key was read in.
#include "webpush/p256.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>

#include <array>

namespace icsbridge::webpush {

namespace {

constexpr char group_name[] = "prime256v1";

/** @brief EVP_PKEY_fromdata of the P-256 key the parameters describe, with `selection`. */
Result<PkeyPtr> from_params(OSSL_PARAM_BLD* bld, int selection, char const* refusal) {
    ParamsPtr const params(OSSL_PARAM_BLD_to_param(bld));
    PkeyCtxPtr const ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1)
        return openssl_failed("setting up a P-256 key import");
    EVP_PKEY* raw = nullptr;
    if (EVP_PKEY_fromdata(ctx.get(), &raw, selection, params.get()) != 1)
        return fail(errc::usage, refusal);
    PkeyPtr key(raw);
    // Said, not assumed, that a peer's point is on the curve (an invalid-curve point would leak bits of our
    // scalar through ECDH). The quick check is enough: P-256's cofactor is 1, so every point on it is in the
    // group, and the full check's multiplication by the order took a third of a message's time. A pair of
    // our own (test vectors) is checked as a pair.
    PkeyCtxPtr const check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
    if (!check)
        return openssl_failed("checking a P-256 key");
    int const ok = selection == EVP_PKEY_PUBLIC_KEY ? EVP_PKEY_public_check_quick(check.get())
                                                    : EVP_PKEY_pairwise_check(check.get());
    if (ok != 1)
        return fail(errc::usage, refusal);
    return key;
}

bool is_uncompressed_point(std::string_view point) {
    return point.size() == point_size && point.front() == '\x04';
}

} // namespace

Error openssl_failed(std::string const& what) {
    return fail(errc::io_error, "OpenSSL: " + what + " failed");
}

Result<PkeyPtr> make_p256_key() {
    PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", group_name));
    if (!key)
        return openssl_failed("making a P-256 key");
    return key;
}

Result<PkeyPtr> p256_public_key(std::string_view point) {
    char const* const refusal =
        "the key is not a P-256 public key (65 bytes, an uncompressed point on the curve)";
    if (!is_uncompressed_point(point))
        return fail(errc::usage, refusal);
    ParamBldPtr const bld(OSSL_PARAM_BLD_new());
    if (!bld || OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group_name, 0) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) != 1)
        return openssl_failed("describing a P-256 public key");
    return from_params(bld.get(), EVP_PKEY_PUBLIC_KEY, refusal);
}

Result<PkeyPtr> p256_key_pair(std::string_view scalar, std::string_view point) {
    char const* const refusal = "the key pair is not a P-256 private scalar (32 bytes) with its public point";
    if (scalar.size() != scalar_size || !is_uncompressed_point(point))
        return fail(errc::usage, refusal);
    SecretBignumPtr const d(BN_bin2bn(
        reinterpret_cast<unsigned char const*>(scalar.data()),
        static_cast<int>(scalar.size()),
        nullptr
    ));
    ParamBldPtr const bld(OSSL_PARAM_BLD_new());
    if (!d || !bld ||
        OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group_name, 0) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) !=
            1 ||
        OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, d.get()) != 1)
        return openssl_failed("describing a P-256 key pair");
    return from_params(bld.get(), EVP_PKEY_KEYPAIR, refusal);
}

bool is_p256(EVP_PKEY* key) {
    std::array<char, 32> name{};
    std::size_t length = 0;
    return key && EVP_PKEY_is_a(key, "EC") == 1 &&
           EVP_PKEY_get_utf8_string_param(
               key,
               OSSL_PKEY_PARAM_GROUP_NAME,
               name.data(),
               name.size(),
               &length
           ) == 1 &&
           std::string_view(name.data(), length) == group_name;
}

Result<std::string> p256_point(EVP_PKEY* key) {
    if (!is_p256(key))
        return fail(errc::io_error, "the key is not a P-256 key");
    // A key read from a file may hold its point compressed; Web Push wants it uncompressed.
    if (EVP_PKEY_set_utf8_string_param(key, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT, "uncompressed") != 1)
        return openssl_failed("choosing the uncompressed point form");
    std::string point(point_size, '\0');
    std::size_t length = 0;
    if (EVP_PKEY_get_octet_string_param(
            key,
            OSSL_PKEY_PARAM_PUB_KEY,
            reinterpret_cast<unsigned char*>(point.data()),
            point.size(),
            &length
        ) != 1 ||
        length != point_size)
        return openssl_failed("reading a P-256 public key");
    return point;
}

} // namespace icsbridge::webpush
