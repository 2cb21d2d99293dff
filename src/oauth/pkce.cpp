// File: pkce.cpp
// PKCE and state from RAND_bytes; SHA-256 through digest.hpp.
#include "oauth/pkce.hpp"

#include <icsbridge/digest.hpp>

#include <openssl/rand.h>

#include <array>
#include <cstddef>
#include <stdexcept>

namespace icsbridge::oauth {

namespace {

constexpr std::string_view unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
constexpr std::size_t verifier_length = 64;

void random_bytes(unsigned char* out, std::size_t n) {
    if (RAND_bytes(out, static_cast<int>(n)) != 1)
        throw std::runtime_error("the random number generator (RAND_bytes) failed");
}

} // namespace

std::string make_verifier() {
    // 66 characters: a byte maps to one only below 198 (3 x 66), so each is equally likely; the rest are
    // drawn again.
    constexpr unsigned limit = 3 * unreserved.size();
    std::string out;
    out.reserve(verifier_length);
    std::array<unsigned char, 96> pool{};
    while (out.size() < verifier_length) {
        random_bytes(pool.data(), pool.size());
        for (unsigned char b : pool)
            if (b < limit && out.size() < verifier_length)
                out += unreserved[b % unreserved.size()];
    }
    return out;
}

std::string challenge_of(std::string_view verifier) {
    auto const digest = sha256(verifier);
    return base64url(std::string_view(reinterpret_cast<char const*>(digest.data()), digest.size()));
}

std::string make_state() {
    std::array<unsigned char, 32> bytes{};
    random_bytes(bytes.data(), bytes.size());
    return base64url(std::string_view(reinterpret_cast<char const*>(bytes.data()), bytes.size()));
}

Pkce make_pkce() {
    Pkce p;
    p.verifier = make_verifier();
    p.challenge = challenge_of(p.verifier);
    return p;
}

} // namespace icsbridge::oauth
