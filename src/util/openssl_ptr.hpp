// File: openssl_ptr.hpp
// Owners for OpenSSL's heap objects: each pointer a function returns is held by one of these at once, so
// every early return (and every exception) frees it. One deleter per type, by the type's own _free. And
// Wiped, which clears a buffer of secret bytes when it goes.
#pragma once

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/params.h>

#include <memory>
#include <string>

namespace icsbridge {

/** @brief The deleter of an OpenSSL type T: its own `_free` function, through a function pointer constant. */
template <class T, void (*Free)(T*)>
struct OpensslFree {
    void operator()(T* p) const noexcept { Free(p); }
};

template <class T, void (*Free)(T*)>
using OpensslPtr = std::unique_ptr<T, OpensslFree<T, Free>>;

using PkeyPtr = OpensslPtr<EVP_PKEY, EVP_PKEY_free>;
using PkeyCtxPtr = OpensslPtr<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;
using CipherCtxPtr = OpensslPtr<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free>;
using MdCtxPtr = OpensslPtr<EVP_MD_CTX, EVP_MD_CTX_free>;
using KdfPtr = OpensslPtr<EVP_KDF, EVP_KDF_free>;
using KdfCtxPtr = OpensslPtr<EVP_KDF_CTX, EVP_KDF_CTX_free>;
using BignumPtr = OpensslPtr<BIGNUM, BN_free>;
/// For a BIGNUM that held a secret: BN_clear_free wipes it before freeing.
using SecretBignumPtr = OpensslPtr<BIGNUM, BN_clear_free>;
using EcdsaSigPtr = OpensslPtr<ECDSA_SIG, ECDSA_SIG_free>;
using ParamBldPtr = OpensslPtr<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>;
using ParamsPtr = OpensslPtr<OSSL_PARAM, OSSL_PARAM_free>;

/** @brief BIO_free returns int, so BIO gets a deleter of its own. */
struct BioFree {
    void operator()(BIO* b) const noexcept { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

/** @brief Wipes a buffer that held key material or a plaintext when it goes (OPENSSL_cleanse). */
struct Wiped {
    std::string& text;
    explicit Wiped(std::string& t)
        : text(t) {}
    Wiped(Wiped const&) = delete;
    Wiped& operator=(Wiped const&) = delete;
    ~Wiped() { OPENSSL_cleanse(text.data(), text.size()); }
};

} // namespace icsbridge
