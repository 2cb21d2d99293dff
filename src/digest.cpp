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

std::string to_hex(std::span<unsigned char const> bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * bytes.size());
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool is_lower_hex(std::string_view text) {
    for (char c : text)
        if (hex_digit(c) < 0 || (c >= 'A' && c <= 'F'))
            return false;
    return true;
}

bool from_hex(std::string_view text, std::span<unsigned char> out) {
    if (text.size() != 2 * out.size())
        return false;
    for (std::size_t i = 0; i < out.size(); ++i) {
        int const hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = static_cast<unsigned char>(hi * 16 + lo);
    }
    return true;
}

std::string make_etag(std::string_view body) {
    return '"' + to_hex(sha256(body)) + '"';
}

bool same_secret(std::string_view configured, std::string_view presented) {
    auto const want = sha256(configured);
    auto const got = sha256(presented);
    return CRYPTO_memcmp(want.data(), got.data(), want.size()) == 0;
}

} // namespace icsbridge
