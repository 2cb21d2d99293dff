// File: page_trail_test.cpp
// A push listing that never ends is stopped (issue 35), without sockets: a page token or next link named
// twice (Google's nextPageToken, Graph's @odata.nextLink, a CalDAV sync token), or more pages than the item
// limit over the page size plus one; each message names the target and never the token.
#include "push/page_trail.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace icsbridge;
using push::PageTrail;

BOOST_AUTO_TEST_SUITE(page_trail_test)

BOOST_AUTO_TEST_CASE(fresh_tokens_are_followed) {
    PageTrail trail("cal", "the events", 2500);
    for (int i = 0; i < 20; ++i)
        BOOST_TEST(trail.next("token-" + std::to_string(i)).has_value());
    BOOST_TEST(trail.pages() == 21U);
    BOOST_TEST(trail.most_pages() == push::listing_item_limit / 2500 + 1);
}

BOOST_AUTO_TEST_CASE(a_token_named_twice_stops_the_listing) {
    // Google answering every page with the same nextPageToken.
    PageTrail trail("cal", "the events", 2500);
    BOOST_TEST(trail.next("CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA").has_value());
    auto again = trail.next("CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA");
    BOOST_TEST_REQUIRE(!again.has_value());
    BOOST_TEST((again.error().code == errc::upstream_malformed));
    auto const& m = again.error().message;
    BOOST_TEST(m.find("cal: ") == 0U, m);
    BOOST_TEST(m.find("the events") != std::string::npos, m);
    BOOST_TEST(m.find("never end") != std::string::npos, m);
    BOOST_TEST(m.find("CiAKGjBp") == std::string::npos, m);
}

BOOST_AUTO_TEST_CASE(a_next_link_that_comes_back_later_stops_it_too) {
    // Graph: A -> B -> A.
    PageTrail trail("work", "a delta round", 500);
    BOOST_TEST(trail.next("https://graph.microsoft.com/v1.0/me/calendarView/delta?$skiptoken=A").has_value());
    BOOST_TEST(trail.next("https://graph.microsoft.com/v1.0/me/calendarView/delta?$skiptoken=B").has_value());
    auto again = trail.next("https://graph.microsoft.com/v1.0/me/calendarView/delta?$skiptoken=A");
    BOOST_TEST_REQUIRE(!again.has_value());
    BOOST_TEST(again.error().message.find("work: ") == 0U);
    BOOST_TEST(again.error().message.find("skiptoken") == std::string::npos, again.error().message);
}

BOOST_AUTO_TEST_CASE(more_pages_than_the_limit_allows_stop_it) {
    // A service that makes up a new token for every page: 1,000 items of 100 a page is 11 pages at most.
    PageTrail trail("family", "the sync-collection report", 100, 1000);
    BOOST_TEST(trail.most_pages() == 11U);
    for (int i = 2; i <= 11; ++i)
        BOOST_TEST(trail.next("sync-" + std::to_string(i)).has_value());
    auto over = trail.next("sync-12");
    BOOST_TEST_REQUIRE(!over.has_value());
    auto const& m = over.error().message;
    BOOST_TEST(m.find("family: ") == 0U, m);
    BOOST_TEST(m.find("11 pages of 100") != std::string::npos, m);
    BOOST_TEST(m.find("1000 items") != std::string::npos, m);
}

BOOST_AUTO_TEST_SUITE_END()
