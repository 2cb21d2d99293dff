// File: address.hpp
// Whether an IP address is one the server may POST a push message to (issue 37): a push resource is
// chosen by whoever registers, so it must never point into the operator's own network. Pure: the caller
// resolves (once) and asks about each address it got, then connects to the address it checked.
#pragma once

#include <boost/asio/ip/address.hpp>

#include <optional>
#include <string_view>

namespace icsbridge::webpush {

/** @brief What kind of address it is; only `global` may receive push messages (unless allowed private). */
enum class AddressKind {
    global,        ///< a public unicast address
    unspecified,   ///< 0.0.0.0/8, ::
    loopback,      ///< 127.0.0.0/8, ::1
    private_use,   ///< 10/8, 172.16/12, 192.168/16 (RFC 1918)
    shared,        ///< 100.64.0.0/10 (CGNAT, RFC 6598)
    link_local,    ///< 169.254/16, fe80::/10
    unique_local,  ///< fc00::/7
    multicast,     ///< 224/4, ff00::/8, and 255.255.255.255
    reserved,      ///< 192.0.0/24, 198.18/15 (benchmarking), 240/4; the IETF's and others not routed
    documentation, ///< 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32
    ipv4_mapped,   ///< ::ffff:0:0/96 (and the deprecated ::/96 IPv4-compatible): an IPv4 address in disguise
    translated,    ///< 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64), 2002::/16 (6to4): reach an embedded IPv4
};

/** @brief The kind of `a`. */
AddressKind classify(boost::asio::ip::address const& a);

/** @brief Whether a push message may go to `a`: AddressKind::global only. */
inline bool is_public(boost::asio::ip::address const& a) {
    return classify(a) == AddressKind::global;
}

/** @brief The kind's name for messages ("loopback", "private", "CGNAT", ...). */
std::string_view to_string(AddressKind k);

/**
 * @brief The address a URL's host is written as: a dotted IPv4 or a bracketed IPv6 literal ("[::1]", as
 * Boost.URL's host() gives it, brackets included or not); nullopt for a name.
 */
std::optional<boost::asio::ip::address> literal_address(std::string_view host);

} // namespace icsbridge::webpush
