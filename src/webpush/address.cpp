// File: address.cpp
// classify(): the IANA special-purpose registries (RFC 6890 and its updates) reduced to what matters for
// an outgoing POST: anything that is not a public unicast address, or that is an IPv4 address wearing an
// IPv6 prefix, is refused by name.
#include "webpush/address.hpp"

#include <array>
#include <cstdint>

namespace icsbridge::webpush {

namespace {

using boost::asio::ip::address_v4;
using boost::asio::ip::address_v6;

/** @brief Whether the top `bits` bits of `a` are those of `prefix`. */
constexpr bool in(std::uint32_t a, std::uint32_t prefix, int bits) {
    std::uint32_t const mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
    return (a & mask) == (prefix & mask);
}

constexpr std::uint32_t v4(unsigned a, unsigned b, unsigned c, unsigned d) {
    return (a << 24) | (b << 16) | (c << 8) | d;
}

AddressKind classify_v4(address_v4 const& addr) {
    std::uint32_t const a = addr.to_uint();
    if (in(a, v4(0, 0, 0, 0), 8))
        return AddressKind::unspecified;
    if (in(a, v4(127, 0, 0, 0), 8))
        return AddressKind::loopback;
    if (in(a, v4(10, 0, 0, 0), 8) || in(a, v4(172, 16, 0, 0), 12) || in(a, v4(192, 168, 0, 0), 16))
        return AddressKind::private_use;
    if (in(a, v4(100, 64, 0, 0), 10))
        return AddressKind::shared;
    if (in(a, v4(169, 254, 0, 0), 16))
        return AddressKind::link_local;
    if (in(a, v4(192, 0, 2, 0), 24) || in(a, v4(198, 51, 100, 0), 24) || in(a, v4(203, 0, 113, 0), 24))
        return AddressKind::documentation;
    if (in(a, v4(224, 0, 0, 0), 4) || a == v4(255, 255, 255, 255))
        return AddressKind::multicast;
    if (in(a, v4(192, 0, 0, 0), 24) || in(a, v4(198, 18, 0, 0), 15) || in(a, v4(240, 0, 0, 0), 4) ||
        in(a, v4(192, 88, 99, 0), 24))
        return AddressKind::reserved;
    return AddressKind::global;
}

/** @brief Whether the first `bits` bits of `b` are those of `prefix` (at most 16 bytes given). */
bool in6(address_v6::bytes_type const& b, std::array<std::uint8_t, 16> const& prefix, int bits) {
    for (int i = 0; i < bits; ++i) {
        auto const byte = static_cast<std::size_t>(i / 8);
        auto const bit = 7 - i % 8;
        if (((b[byte] >> bit) & 1U) != ((prefix[byte] >> bit) & 1U))
            return false;
    }
    return true;
}

AddressKind classify_v6(address_v6 const& a) {
    auto const b = a.to_bytes();
    if (a.is_unspecified())
        return AddressKind::unspecified;
    if (a.is_loopback())
        return AddressKind::loopback;
    if (a.is_v4_mapped() || in6(b, {}, 96))
        return AddressKind::ipv4_mapped; // ::ffff:0:0/96, and ::/96 (IPv4-compatible, deprecated)
    if (in6(b, {0xfe, 0x80}, 10))
        return AddressKind::link_local;
    if (in6(b, {0xfe, 0xc0}, 10))
        return AddressKind::reserved; // site-local, deprecated (RFC 3879)
    if (in6(b, {0xfc}, 7))
        return AddressKind::unique_local;
    if (in6(b, {0xff}, 8))
        return AddressKind::multicast;
    if (in6(b, {0x20, 0x01, 0x0d, 0xb8}, 32) || in6(b, {0x3f, 0xff}, 20))
        return AddressKind::documentation;
    if (in6(b, {0x00, 0x64, 0xff, 0x9b}, 96) || in6(b, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48) ||
        in6(b, {0x20, 0x02}, 16))
        return AddressKind::translated;
    if (in6(b, {0x01, 0x00}, 64) || in6(b, {0x20, 0x01}, 23))
        return AddressKind::reserved; // discard-only, and the IETF protocol assignments (Teredo among them)
    return AddressKind::global;
}

} // namespace

AddressKind classify(boost::asio::ip::address const& a) {
    return a.is_v4() ? classify_v4(a.to_v4()) : classify_v6(a.to_v6());
}

std::string_view to_string(AddressKind k) {
    switch (k) {
    case AddressKind::global:
        return "public";
    case AddressKind::unspecified:
        return "unspecified";
    case AddressKind::loopback:
        return "loopback";
    case AddressKind::private_use:
        return "private";
    case AddressKind::shared:
        return "CGNAT (shared)";
    case AddressKind::link_local:
        return "link-local";
    case AddressKind::unique_local:
        return "unique-local";
    case AddressKind::multicast:
        return "multicast";
    case AddressKind::reserved:
        return "reserved";
    case AddressKind::documentation:
        return "documentation";
    case AddressKind::ipv4_mapped:
        return "IPv4-mapped";
    case AddressKind::translated:
        return "NAT64/6to4";
    }
    return "unknown";
}

std::optional<boost::asio::ip::address> literal_address(std::string_view host) {
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host.empty() || host.find('%') != std::string_view::npos)
        return std::nullopt; // a zone id: only link-local addresses have one; refused as a name would be
    boost::system::error_code ec;
    auto a = boost::asio::ip::make_address(std::string(host), ec);
    if (ec)
        return std::nullopt;
    return a;
}

} // namespace icsbridge::webpush
