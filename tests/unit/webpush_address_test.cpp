// File: webpush_address_test.cpp
// The address classifier of Web Push delivery: every special-purpose range the issue names (and the
// neighbours just outside each, which are public), IPv4 in IPv6 clothing, and literal hosts as URLs write
// them.
#include "webpush/address.hpp"

#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>

namespace icsbridge::webpush {
/** Boost.Test prints a failed comparison's kinds by name. */
inline std::ostream& operator<<(std::ostream& out, AddressKind k) {
    return out << to_string(k);
}
} // namespace icsbridge::webpush

namespace webpush_address_test {

using namespace icsbridge::webpush;

AddressKind kind(std::string const& text) {
    return classify(boost::asio::ip::make_address(text));
}

BOOST_AUTO_TEST_SUITE(webpush_address_test)

BOOST_AUTO_TEST_CASE(ipv4_ranges_and_their_edges) {
    BOOST_TEST(kind("0.0.0.0") == AddressKind::unspecified);
    BOOST_TEST(kind("127.0.0.1") == AddressKind::loopback);
    BOOST_TEST(kind("127.255.255.254") == AddressKind::loopback);
    BOOST_TEST(kind("10.1.2.3") == AddressKind::private_use);
    BOOST_TEST(kind("172.16.0.1") == AddressKind::private_use);
    BOOST_TEST(kind("172.31.255.255") == AddressKind::private_use);
    BOOST_TEST(kind("172.32.0.1") == AddressKind::global);
    BOOST_TEST(kind("172.15.255.255") == AddressKind::global);
    BOOST_TEST(kind("192.168.1.1") == AddressKind::private_use);
    BOOST_TEST(kind("100.64.0.1") == AddressKind::shared);
    BOOST_TEST(kind("100.127.255.255") == AddressKind::shared);
    BOOST_TEST(kind("100.128.0.1") == AddressKind::global);
    BOOST_TEST(kind("100.63.255.255") == AddressKind::global);
    BOOST_TEST(kind("169.254.169.254") == AddressKind::link_local); // the cloud metadata service
    BOOST_TEST(kind("192.0.2.1") == AddressKind::documentation);
    BOOST_TEST(kind("198.51.100.7") == AddressKind::documentation);
    BOOST_TEST(kind("203.0.113.9") == AddressKind::documentation);
    BOOST_TEST(kind("224.0.0.1") == AddressKind::multicast);
    BOOST_TEST(kind("255.255.255.255") == AddressKind::multicast);
    BOOST_TEST(kind("240.0.0.1") == AddressKind::reserved);
    BOOST_TEST(kind("198.18.0.1") == AddressKind::reserved);
    BOOST_TEST(kind("192.0.0.8") == AddressKind::reserved);
    BOOST_TEST(kind("8.8.8.8") == AddressKind::global);
    BOOST_TEST(kind("142.250.185.10") == AddressKind::global);
    BOOST_TEST(is_public(boost::asio::ip::make_address("1.1.1.1")));
    BOOST_TEST(!is_public(boost::asio::ip::make_address("10.0.0.1")));
}

BOOST_AUTO_TEST_CASE(ipv6_ranges_and_ipv4_in_disguise) {
    BOOST_TEST(kind("::") == AddressKind::unspecified);
    BOOST_TEST(kind("::1") == AddressKind::loopback);
    BOOST_TEST(kind("::ffff:127.0.0.1") == AddressKind::ipv4_mapped);
    BOOST_TEST(kind("::ffff:8.8.8.8") == AddressKind::ipv4_mapped); // refused too: connect to the IPv4 itself
    BOOST_TEST(kind("::127.0.0.1") == AddressKind::ipv4_mapped);    // IPv4-compatible (deprecated)
    BOOST_TEST(kind("fe80::1") == AddressKind::link_local);
    BOOST_TEST(kind("febf::1") == AddressKind::link_local);
    BOOST_TEST(kind("fc00::1") == AddressKind::unique_local);
    BOOST_TEST(kind("fd12:3456::1") == AddressKind::unique_local);
    BOOST_TEST(kind("fe00::1") == AddressKind::global);
    BOOST_TEST(kind("ff02::1") == AddressKind::multicast);
    BOOST_TEST(kind("2001:db8::1") == AddressKind::documentation);
    BOOST_TEST(kind("64:ff9b::7f00:1") == AddressKind::translated);
    BOOST_TEST(kind("2002:7f00:1::1") == AddressKind::translated);
    BOOST_TEST(kind("2001::1") == AddressKind::reserved); // Teredo
    BOOST_TEST(kind("2a00:1450:4001:80b::200e") == AddressKind::global);
    BOOST_TEST(kind("2606:4700:4700::1111") == AddressKind::global);
}

BOOST_AUTO_TEST_CASE(literal_hosts_as_urls_write_them) {
    BOOST_TEST(literal_address("127.0.0.1").has_value());
    BOOST_TEST(literal_address("[::1]").has_value());
    BOOST_TEST(literal_address("::1").has_value());
    BOOST_TEST(literal_address("[::ffff:10.0.0.1]").has_value());
    BOOST_TEST(!literal_address("push.example.net").has_value());
    BOOST_TEST(!literal_address("").has_value());
    BOOST_TEST(!literal_address("[fe80::1%25eth0]").has_value());
    BOOST_TEST(to_string(AddressKind::shared) == "CGNAT (shared)");
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace webpush_address_test
