// File: digest.cpp
// SHA-256 through OpenSSL EVP and the strong ETag made from it.
#include <icsbridge/digest.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <stdexcept>

namespace icsbridge {

std::array<unsigned char, 32> sha256(std::string_view data) {
    std::array<unsigned char, 32> out{};
    unsigned len = 0;
    if (EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr) != 1 ||
        len != out.size())
        throw std::runtime_error("EVP_Digest(sha256) failed");
    return out;
}

std::string make_etag(std::string_view body) {
    static constexpr char hex[] = "0123456789abcdef";
    auto d = sha256(body);
    std::string out;
    out.reserve(2 + 2 * d.size());
    out += '"';
    for (unsigned char c : d) {
        out += hex[c >> 4];
        out += hex[c & 15];
    }
    out += '"';
    return out;
}

bool same_secret(std::string_view configured, std::string_view presented) {
    auto const want = sha256(configured);
    auto const got = sha256(presented);
    return CRYPTO_memcmp(want.data(), got.data(), want.size()) == 0;
}

} // namespace icsbridge
