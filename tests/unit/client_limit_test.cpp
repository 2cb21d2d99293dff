// File: client_limit_test.cpp
// The per-client connection cap without sockets: counting per address, release, IPv4 seen through a
// dual-stack socket, trusted proxies (addresses and networks) never capped, 0 for no cap.
#include "server/client_limit.hpp"

#include <boost/test/unit_test.hpp>

using boost::asio::ip::make_address;
using icsbridge::server_detail::ClientLimit;

BOOST_AUTO_TEST_SUITE(client_limit_test)

BOOST_AUTO_TEST_CASE(each_address_holds_at_most_the_cap) {
    ClientLimit limit(2, {});
    auto const a = make_address("192.0.2.7");
    auto const b = make_address("2001:db8::7");
    BOOST_TEST(limit.admit(a));
    BOOST_TEST(limit.admit(a));
    BOOST_TEST(!limit.admit(a));
    BOOST_TEST(limit.held(a) == 2u);
    // Another address is not affected, and the same IPv4 client through a dual-stack socket is the same.
    BOOST_TEST(limit.admit(b));
    BOOST_TEST(!limit.admit(make_address("::ffff:192.0.2.7")));
    limit.release(a);
    BOOST_TEST(limit.admit(make_address("::ffff:192.0.2.7")));
    BOOST_TEST(!limit.admit(a));
    limit.release(a);
    limit.release(a);
    BOOST_TEST(limit.held(a) == 0u);
    limit.release(a); // an extra release never goes below zero
    BOOST_TEST(limit.held(a) == 0u);
}

BOOST_AUTO_TEST_CASE(trusted_proxies_and_a_zero_cap_are_never_capped) {
    ClientLimit limit(1, {"127.0.0.1", "10.0.0.0/8", "fd00::/8", "::1"});
    for (auto trusted : {"127.0.0.1", "10.1.2.3", "::ffff:10.9.9.9", "fd00::42", "::1"})
        for (int i = 0; i < 5; ++i)
            BOOST_TEST(limit.admit(make_address(trusted)), trusted);
    for (auto capped : {"127.0.0.2", "11.0.0.1", "fe80::1"}) {
        BOOST_TEST(limit.admit(make_address(capped)), capped);
        BOOST_TEST(!limit.admit(make_address(capped)), capped);
    }
    ClientLimit none(0, {});
    for (int i = 0; i < 100; ++i)
        BOOST_TEST_REQUIRE(none.admit(make_address("192.0.2.1")));
}

BOOST_AUTO_TEST_SUITE_END()
