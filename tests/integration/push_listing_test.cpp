// File: push_listing_test.cpp
// A CalDAV target against a scripted server on loopback (issue 35): a sync-collection report the server
// cuts short (RFC 6578 3.6) is followed from each part's token, and one whose token comes back stops with an
// error naming the target instead of asking for ever; an answer over the target's max_response names that
// key.
#include "integration/scripted_upstream.hpp"
#include "push/caldav_calendar.hpp"
#include "push/target_client.hpp"
#include "support/run_coro.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <string>

using namespace icsbridge;
using icsbridge::test::ScriptedReply;
using icsbridge::test::ScriptedRequest;
using icsbridge::test::ScriptedUpstream;
namespace net = boost::asio;

namespace push_listing_test {

TargetConfig target(std::string const& url) {
    TargetConfig t;
    t.name = "family";
    t.url = url;
    t.username = "u";
    t.password = "p";
    return t;
}

/** A sync-collection answer listing one of our items, cut short (507) when `more`, with `token`. */
std::string report(std::string const& item, std::string const& token, bool more) {
    std::string const cut =
        more ? "<d:response><d:href>/cal/</d:href><d:status>HTTP/1.1 507 Insufficient Storage</d:status>"
               "</d:response>"
             : "";
    return R"(<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/cal/)" + item +
           R"(</d:href><d:propstat><d:prop><d:getetag>"e-)" + item +
           R"("</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>)" + cut +
           "<d:sync-token>" + token + "</d:sync-token></d:multistatus>";
}

std::string const one = "icsbridge-0000000a-00000000000000000000000000000001.ics";
std::string const two = "icsbridge-0000000a-00000000000000000000000000000002.ics";

} // namespace push_listing_test

BOOST_AUTO_TEST_SUITE(push_listing_test)

BOOST_AUTO_TEST_CASE(a_report_cut_short_is_followed_to_its_end) {
    using namespace push_listing_test;
    std::atomic<int> seen{0};
    ScriptedUpstream up([&](ScriptedRequest const&) {
        return ++seen == 1 ? ScriptedReply{207, report(one, "tok-1", true)}
                           : ScriptedReply{207, report(two, "tok-2", false)};
    });
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        push::TargetClient dav(ex, target(up.base_url() + "/cal/"), Logger{});
        // Named: the coroutine keeps references to its arguments.
        std::string const cal = up.base_url() + "/cal/", no_token;
        auto listing_of = push::list_ours(dav, cal, no_token);
        auto listing = co_await std::move(listing_of);
        BOOST_TEST_REQUIRE(listing.has_value(), (listing ? "" : listing.error().message));
        BOOST_TEST(listing->full);
        BOOST_TEST(listing->changed.size() == 2U);
        BOOST_TEST(listing->sync_token == "tok-2");
    });
    auto const asked = up.requests();
    BOOST_TEST_REQUIRE(asked.size() == 2U);
    BOOST_TEST(asked[1].body.find("<d:sync-token>tok-1</d:sync-token>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_sync_token_that_comes_back_stops_the_listing) {
    using namespace push_listing_test;
    // Every part is cut short and names the token it was asked with: the listing would never end.
    ScriptedUpstream up([](ScriptedRequest const&) {
        return ScriptedReply{207, report(one, "tok-same", true)};
    });
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        push::TargetClient dav(ex, target(up.base_url() + "/cal/"), Logger{});
        // Named: the coroutine keeps references to its arguments.
        std::string const cal = up.base_url() + "/cal/", no_token;
        auto listing_of = push::list_ours(dav, cal, no_token);
        auto listing = co_await std::move(listing_of);
        BOOST_TEST_REQUIRE(!listing.has_value());
        BOOST_TEST((listing.error().code == errc::upstream_malformed));
        auto const& m = listing.error().message;
        BOOST_TEST(m.find("family: ") == 0U, m);
        BOOST_TEST(m.find("sync-collection") != std::string::npos, m);
        BOOST_TEST(m.find("never end") != std::string::npos, m);
    });
    BOOST_TEST(up.requests().size() == 2U);
}

BOOST_AUTO_TEST_CASE(an_answer_over_max_response_names_the_key) {
    using namespace push_listing_test;
    ScriptedUpstream up([](ScriptedRequest const&) {
        return ScriptedReply{207, std::string(100 * 1024, 'x')};
    });
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto t = target(up.base_url() + "/cal/");
        t.max_response = 64 * 1024;
        push::TargetClient dav(ex, t, Logger{});
        auto sending = dav.send("PROPFIND", up.base_url() + "/cal/", "<propfind/>");
        auto answer = co_await std::move(sending);
        BOOST_TEST_REQUIRE(!answer.has_value());
        BOOST_TEST((answer.error().code == errc::upstream_too_large));
        auto const& m = answer.error().message;
        BOOST_TEST(m.find("64 KiB") != std::string::npos, m);
        BOOST_TEST(m.find("[targets.family] max_response") != std::string::npos, m);
        BOOST_TEST(m.find("max_body") == std::string::npos, m);
    });
}

BOOST_AUTO_TEST_SUITE_END()
