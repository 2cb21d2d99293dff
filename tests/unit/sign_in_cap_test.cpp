// File: sign_in_cap_test.cpp
// The sign-in caps (issue 35) without sockets: per client and in total within the window, Retry-After as
// the time to the oldest step's expiry, steps expiring, IPv6 clients by their /64, IPv4 through a
// dual-stack socket as itself, memory bounded by the caps under a flood; and the client address taken from
// X-Forwarded-For only when the peer is a trusted proxy.
#include "connect/sign_in_cap.hpp"
#include "server/client_limit.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace sign_in_cap_test {

using boost::asio::ip::make_address;
using icsbridge::connect::SignInCap;
using icsbridge::connect::SignInCaps;
using icsbridge::server_detail::ClientLimit;
using std::chrono::seconds;
using std::chrono::sys_seconds;

sys_seconds const t0{seconds(1'800'000'000)};

BOOST_AUTO_TEST_SUITE(sign_in_cap_test)

BOOST_AUTO_TEST_CASE(one_client_takes_at_most_its_cap_until_the_oldest_expires) {
    SignInCap cap(SignInCaps{3, 100, seconds(600)});
    auto const a = make_address("192.0.2.7");
    BOOST_TEST(!cap.take(a, t0));
    BOOST_TEST(!cap.take(a, t0 + seconds(10)));
    BOOST_TEST(!cap.take(a, t0 + seconds(20)));
    auto const wait = cap.take(a, t0 + seconds(30));
    BOOST_REQUIRE(wait);
    BOOST_TEST(wait->count() == 570); // the first step expires at t0 + 600
    BOOST_TEST(cap.held() == 3u);
    // The same client through a dual-stack socket is the same client; another one is not affected.
    BOOST_TEST(static_cast<bool>(cap.take(make_address("::ffff:192.0.2.7"), t0 + seconds(30))));
    BOOST_TEST(!cap.take(make_address("192.0.2.8"), t0 + seconds(30)));
    // Once the first step expired, one more may be taken, and no other.
    BOOST_TEST(!cap.take(a, t0 + seconds(600)));
    auto const again = cap.take(a, t0 + seconds(601));
    BOOST_REQUIRE(again);
    BOOST_TEST(again->count() == 9);
}

BOOST_AUTO_TEST_CASE(everyone_together_takes_at_most_the_total) {
    SignInCap cap(SignInCaps{2, 5, seconds(600)});
    for (int i = 1; i <= 5; ++i)
        BOOST_TEST(!cap.take(make_address("198.51.100." + std::to_string(i)), t0 + seconds(i)));
    auto const wait = cap.take(make_address("203.0.113.1"), t0 + seconds(100));
    BOOST_REQUIRE(wait);
    BOOST_TEST(wait->count() == 501);
    BOOST_TEST(cap.held() == 5u);
    BOOST_TEST(cap.clients() == 5u);
    // A refused step is not counted: at expiry everyone may go on.
    BOOST_TEST(!cap.take(make_address("203.0.113.1"), t0 + seconds(601)));
    BOOST_TEST(cap.held() == 5u);
}

BOOST_AUTO_TEST_CASE(an_ipv6_client_counts_by_its_64) {
    SignInCap cap(SignInCaps{2, 100, seconds(600)});
    BOOST_TEST(!cap.take(make_address("2001:db8:1:2::1"), t0));
    BOOST_TEST(!cap.take(make_address("2001:db8:1:2:ffff::9"), t0));
    BOOST_TEST(static_cast<bool>(cap.take(make_address("2001:db8:1:2::3"), t0)));
    BOOST_TEST(!cap.take(make_address("2001:db8:1:3::1"), t0));
}

BOOST_AUTO_TEST_CASE(a_flood_holds_no_more_than_the_caps) {
    SignInCap cap(SignInCaps{30, 1000, seconds(600)});
    std::size_t taken = 0;
    // 100,000 steps from 65,536 addresses in 100 s: the window holds them all, the caps take 1,000.
    for (int i = 0; i < 100'000; ++i) {
        auto const n = i % 65536;
        auto const a = make_address("127." + std::to_string(n / 256) + "." + std::to_string(n % 256) + ".1");
        taken += cap.take(a, t0 + seconds(i / 1000)) ? 0 : 1;
    }
    BOOST_TEST(taken == 1000u);
    BOOST_TEST(cap.held() == 1000u);
    BOOST_TEST(cap.clients() <= 1000u);
    // After the window, everything held is dropped at the next step.
    BOOST_TEST(!cap.take(make_address("127.0.0.1"), t0 + seconds(700)));
    BOOST_TEST(cap.held() == 1u);
    BOOST_TEST(cap.clients() == 1u);
}

BOOST_AUTO_TEST_CASE(x_forwarded_for_counts_only_from_a_trusted_proxy) {
    ClientLimit limit(64, {"127.0.0.1", "10.0.0.0/8"});
    auto const proxy = make_address("127.0.0.1");
    auto const stranger = make_address("192.0.2.9");
    // From a stranger the header is the stranger's own claim: ignored.
    BOOST_TEST(limit.client_of(stranger, "203.0.113.5") == stranger);
    // From the proxy: the address it appended (the rightmost); what the client wrote left of it is ignored.
    BOOST_TEST(limit.client_of(proxy, "203.0.113.5") == make_address("203.0.113.5"));
    BOOST_TEST(limit.client_of(proxy, "1.2.3.4, 203.0.113.5") == make_address("203.0.113.5"));
    // Through two trusted proxies: the first untrusted hop from the right.
    BOOST_TEST(limit.client_of(proxy, "1.2.3.4,203.0.113.5, 10.1.1.1") == make_address("203.0.113.5"));
    // No header, or a hop that is no address: the last address known.
    BOOST_TEST(limit.client_of(proxy, "") == proxy);
    BOOST_TEST(limit.client_of(proxy, "unknown") == proxy);
    BOOST_TEST(limit.client_of(proxy, "203.0.113.5, 10.2.2.2, junk") == proxy);
    BOOST_TEST(limit.client_of(proxy, "junk, 2001:db8::5") == make_address("2001:db8::5"));
    BOOST_TEST(
        limit.client_of(make_address("::ffff:127.0.0.1"), "198.51.100.1") == make_address("198.51.100.1")
    );
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace sign_in_cap_test
