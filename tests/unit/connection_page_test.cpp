// File: connection_page_test.cpp
// A person's connection page (issue 35): a connection being pushed promises changes within seconds; a
// stopped one says updates are stopped and promises nothing.
#include "connect/connect_pages.hpp"

#include <boost/test/unit_test.hpp>

namespace connection_page_test {

using icsbridge::connect::Connection;
using icsbridge::connect::connection_page;
using icsbridge::connect::ConnectionPage;

ConnectionPage page_of(bool stopped) {
    ConnectionPage p;
    p.connection.id = "id";
    p.connection.provider = "google";
    p.connection.feed = "club";
    p.connection.calendar = "Club nights";
    p.connection.stopped = stopped;
    if (stopped)
        p.connection.last_error = "the feed's link it was made with was revoked";
    p.feed_title = "Club nights";
    return p;
}

BOOST_AUTO_TEST_SUITE(connection_page_test)

BOOST_AUTO_TEST_CASE(only_a_live_connection_promises_changes_within_seconds) {
    auto const live = connection_page(page_of(false));
    BOOST_TEST(live.find("reach this calendar within seconds") != std::string::npos);
    BOOST_TEST(live.find("are stopped") == std::string::npos);
    auto const stopped = connection_page(page_of(true));
    BOOST_TEST(stopped.find("within seconds") == std::string::npos);
    BOOST_TEST(stopped.find("Updates to this calendar are stopped") != std::string::npos);
    BOOST_TEST(stopped.find("Stopped") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace connection_page_test
