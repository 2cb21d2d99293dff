// File: base64url.cpp
// Encoding three bytes into four characters at a time; decoding by a running bit accumulator.
#include "util/base64url.hpp"

#include <cstddef>

namespace icsbridge {

namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int value_of(char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '-')
        return 62;
    if (c == '_')
        return 63;
    return -1;
}

} // namespace

std::string base64url(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() * 4 + 2) / 3);
    auto byte = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(bytes[k])); };
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        unsigned const v = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
        for (int shift : {18, 12, 6, 0})
            out += alphabet[(v >> shift) & 63];
    }
    std::size_t const rest = bytes.size() - i;
    if (rest > 0) {
        unsigned const v = (byte(i) << 16) | (rest == 2 ? byte(i + 1) << 8 : 0);
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        if (rest == 2)
            out += alphabet[(v >> 6) & 63];
    }
    return out;
}

std::optional<std::string> from_base64url(std::string_view text) {
    if (text.size() % 4 == 1)
        return std::nullopt;
    std::string out;
    out.reserve(text.size() * 3 / 4);
    unsigned acc = 0;
    int bits = 0;
    for (char c : text) {
        int const v = value_of(c);
        if (v < 0)
            return std::nullopt;
        acc = ((acc << 6) | static_cast<unsigned>(v)) & 0xffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    if ((acc & ((1u << bits) - 1)) != 0)
        return std::nullopt;
    return out;
}

} // namespace icsbridge
