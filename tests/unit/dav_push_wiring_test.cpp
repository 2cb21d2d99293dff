// File: dav_push_wiring_test.cpp
// end_unaccepted(): a WebDAV-Push registration lives only while the config still lets its registrant read
// the collection. A subscriber's ends with their token (revoked, rotated, the subscriber removed), a
// single-token feed's with its token, every one with its feed, a public feed's when the feed gets tokens;
// the others stay. With push off nothing is ended.
#include "app/dav_push_wiring.hpp"
#include "support/fixtures.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

using namespace icsbridge;

namespace dav_push_wiring_test {

using namespace std::chrono_literals;

std::chrono::sys_seconds const t0 =
    std::chrono::floor<std::chrono::seconds>(std::chrono::sys_days(std::chrono::year(2026) / 3 / 1));

Config config() {
    Config c;
    for (auto name : {"pub", "team", "single"}) {
        FeedConfig f;
        f.name = name;
        f.source = "eb";
        f.select = "organizer";
        c.feeds.push_back(f);
    }
    c.feeds[1].tokens = {{"ann", "ann-1"}, {"bob", "bob-1"}};
    c.feeds[2].token = "single-1";
    return c;
}

/** A registration on `feed` by `subscriber` (empty: anyone) who logged in with `token`. */
dav::PushRegistration reg(std::string const& feed, std::string const& subscriber, std::string const& token) {
    dav::PushRegistration r;
    r.feed = feed;
    r.push_resource = "https://push.example.net/" + feed + "/" + subscriber;
    r.keys = {std::string(65, '\x04'), std::string(16, 'a')};
    r.subscriber = subscriber;
    if (!subscriber.empty())
        r.token_digest = dav::push_token_digest(feed, subscriber, token);
    r.expires = t0 + 24h;
    return r;
}

/** Push on, in memory, with one registration each: pub's, ann's, bob's and single's. */
cli::DavPush registered() {
    cli::DavPush p;
    p.registry = std::make_shared<dav::PushRegistry>("K", std::string(32, 'k'), nullptr);
    for (auto const& r :
         {reg("pub", "", ""),
          reg("team", "ann", "ann-1"),
          reg("team", "bob", "bob-1"),
          reg("single", "subscriber", "single-1")})
        BOOST_TEST_REQUIRE(p.registry->add(r, t0).has_value());
    return p;
}

/** Who still has a registration, as "feed/subscriber" in id order's stead: sorted by feed, then name. */
std::vector<std::string> left(cli::DavPush const& p) {
    std::vector<std::string> out;
    for (auto const& feed : {"pub", "single", "team"})
        for (auto const& r : p.registry->live(feed, t0))
            out.push_back(std::string(feed) + "/" + r.subscriber);
    std::sort(out.begin(), out.end());
    return out;
}

using Names = std::vector<std::string>;

BOOST_AUTO_TEST_SUITE(dav_push_wiring_test)

BOOST_AUTO_TEST_CASE(the_same_config_ends_none) {
    auto p = registered();
    BOOST_TEST(cli::end_unaccepted(p, config(), null_logger(), "reload") == 0u);
    BOOST_TEST(
        left(p) == (Names{"pub/", "single/subscriber", "team/ann", "team/bob"}),
        boost::test_tools::per_element()
    );
}

BOOST_AUTO_TEST_CASE(a_subscribers_registration_ends_with_their_token) {
    auto rotated = registered();
    auto c = config();
    c.feeds[1].tokens["ann"] = "ann-2"; // ann-1 revoked: a reload takes it away
    test::StringLogger logs;
    BOOST_TEST(cli::end_unaccepted(rotated, c, logs.logger(), "reload") == 1u);
    BOOST_TEST(logs.joined().find("reload: 1 WebDAV-Push registration(s) ended") != std::string::npos);
    BOOST_TEST(logs.joined().find("ann-") == std::string::npos); // neither token is told
    BOOST_TEST(
        left(rotated) == (Names{"pub/", "single/subscriber", "team/bob"}),
        boost::test_tools::per_element()
    );

    auto removed = registered();
    c = config();
    c.feeds[1].tokens.erase("bob"); // bob removed
    BOOST_TEST(cli::end_unaccepted(removed, c, null_logger(), "reload") == 1u);
    BOOST_TEST(
        left(removed) == (Names{"pub/", "single/subscriber", "team/ann"}),
        boost::test_tools::per_element()
    );

    auto single = registered();
    c = config();
    c.feeds[2].token = "single-2";
    BOOST_TEST(cli::end_unaccepted(single, c, null_logger(), "reload") == 1u);
    BOOST_TEST(left(single) == (Names{"pub/", "team/ann", "team/bob"}), boost::test_tools::per_element());

    // ann's token moved to bob: a token is the subscriber's, not the feed's
    auto swapped = registered();
    c = config();
    c.feeds[1].tokens = {{"bob", "ann-1"}};
    BOOST_TEST(cli::end_unaccepted(swapped, c, null_logger(), "reload") == 2u);
    BOOST_TEST(left(swapped) == (Names{"pub/", "single/subscriber"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_feed_removed_or_closed_ends_its_registrations) {
    auto gone = registered();
    auto c = config();
    c.feeds.erase(c.feeds.begin() + 1); // team removed
    BOOST_TEST(cli::end_unaccepted(gone, c, null_logger(), "reload") == 2u);
    BOOST_TEST(left(gone) == (Names{"pub/", "single/subscriber"}), boost::test_tools::per_element());

    auto closed = registered();
    c = config();
    c.feeds[0].tokens = {{"ann", "ann-1"}}; // pub gets tokens: anyone's registration ends
    BOOST_TEST(cli::end_unaccepted(closed, c, null_logger(), "reload") == 1u);
    BOOST_TEST(
        left(closed) == (Names{"single/subscriber", "team/ann", "team/bob"}),
        boost::test_tools::per_element()
    );
}

BOOST_AUTO_TEST_CASE(push_off_ends_nothing) {
    cli::DavPush off;
    Config empty;
    BOOST_TEST(cli::end_unaccepted(off, empty, null_logger(), "reload") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace dav_push_wiring_test
