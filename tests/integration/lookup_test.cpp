// File: lookup_test.cpp
// net_detail::lookup(): an address needs no lookup (found with no time at all to wait), a name from
// /etc/hosts is found on its own thread. A lookup that never ends is push/serve_test.sh's (an LD_PRELOAD
// shim): other targets' lookups and pushes go on beside it.
#include "net/lookup.hpp"
#include "support/run_coro.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace std::chrono_literals;
namespace net = boost::asio;

BOOST_AUTO_TEST_SUITE(lookup_test)

BOOST_AUTO_TEST_CASE(an_address_is_converted_without_waiting) {
    test::run_coro([](net::any_io_executor) -> net::awaitable<void> {
        auto lookups = std::make_shared<NameLookups>();
        auto found = co_await net_detail::lookup("127.0.0.1", "8080", 0ms, lookups);
        BOOST_TEST(lookups->running() == 0); // no thread for an address
        BOOST_TEST(!found.timed_out);
        BOOST_TEST(found.error.empty());
        BOOST_REQUIRE(!found.endpoints.empty());
        BOOST_TEST(found.endpoints.begin()->endpoint().address().to_string() == "127.0.0.1");
        BOOST_TEST(found.endpoints.begin()->endpoint().port() == 8080);
    });
}

BOOST_AUTO_TEST_CASE(a_name_is_looked_up_on_its_own_thread) {
    test::run_coro([](net::any_io_executor) -> net::awaitable<void> {
        auto lookups = std::make_shared<NameLookups>(1);
        auto found = co_await net_detail::lookup("localhost", "443", 5s, lookups); // /etc/hosts: no DNS query
        BOOST_TEST(!found.timed_out);
        BOOST_TEST(found.error.empty());
        BOOST_TEST(!found.endpoints.empty());
        // The bound: with its one lookup taken, the next fails at once without a thread.
        BOOST_TEST(lookups->try_start());
        auto refused = co_await net_detail::lookup("localhost", "443", 5s, lookups);
        BOOST_TEST(refused.error.find("too many name lookups") != std::string::npos);
        lookups->finished();
    });
}

BOOST_AUTO_TEST_SUITE_END()
