// File: push_messages_test.cpp
// What a push says when Google throttles it (issue 35): a 403 rateLimitExceeded or userRateLimitExceeded
// left after the backoff's tries is throttling (back off), never "the account may not do this"; a 403 with
// another reason still is a missing right.
#include "push/api_json.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace icsbridge;

namespace push_messages_test {

/** A Google error answer with `status` and `reason` (as the Calendar API words them). */
HttpResponse google_error(unsigned status, std::string const& reason, std::string const& message) {
    HttpResponse r;
    r.status = status;
    r.body = R"({"error":{"errors":[{"domain":"usageLimits","reason":")" + reason + R"(","message":")" +
             message + R"("}],"code":)" + std::to_string(status) + R"(,"message":")" + message + R"("}})";
    return r;
}

} // namespace push_messages_test

BOOST_AUTO_TEST_SUITE(push_messages_test)

BOOST_AUTO_TEST_CASE(a_rate_limit_403_is_throttling_not_a_missing_right) {
    for (std::string const reason : {"rateLimitExceeded", "userRateLimitExceeded"}) {
        auto const r = push_messages_test::google_error(403, reason, "Rate Limit Exceeded");
        // As every GET of the adapter reports it: without the caller saying "slow down".
        auto const e = push::api_refusal("cal", "GET", "https://www.googleapis.com/calendar/v3/x", r, false);
        BOOST_TEST((e.code == errc::upstream_rate_limited), reason);
        BOOST_TEST(e.message.find("cal: 403 from GET") == 0U, e.message);
        BOOST_TEST(e.message.find(reason) != std::string::npos, e.message);
        BOOST_TEST(e.message.find("throttling") != std::string::npos, e.message);
        BOOST_TEST(e.message.find("backs off") != std::string::npos, e.message);
        BOOST_TEST(e.message.find("may not") == std::string::npos, e.message);
        BOOST_TEST(e.message.find("rights") == std::string::npos, e.message);
    }
}

BOOST_AUTO_TEST_CASE(another_403_is_still_a_missing_right) {
    auto const r = push_messages_test::google_error(403, "forbiddenForNonOrganizer", "Forbidden");
    auto const e = push::api_refusal("cal", "PUT", "https://www.googleapis.com/calendar/v3/x", r, false);
    BOOST_TEST((e.code == errc::upstream_auth));
    BOOST_TEST(e.message.find("may not do this") != std::string::npos, e.message);
}

BOOST_AUTO_TEST_SUITE_END()
