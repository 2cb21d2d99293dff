// File: push_pacing_test.cpp
// The CalDAV target's plain pieces: when a refused or dropped request is tried again and after how long,
// the Basic credentials, hrefs made absolute, and a sync-collection answer applied to the listing.
#include "push/caldav_calendar.hpp"
#include "push/target_client.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge::push;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(push_pacing_test)

BOOST_AUTO_TEST_CASE(retry_after_is_honoured_and_final_statuses_are_not_retried) {
    BOOST_TEST(push_retry_wait(1, 429, 7s, 0.5).value() == std::chrono::milliseconds(7000));
    BOOST_TEST(push_retry_wait(1, 503, 0s, 0.0).value() == std::chrono::milliseconds(1000)); // at least 1 s
    for (unsigned final_status : {400u, 401u, 403u, 404u, 409u, 412u, 501u, 507u})
        BOOST_TEST(!push_retry_wait(1, final_status, std::nullopt, 0.0), final_status);
}

BOOST_AUTO_TEST_CASE(backoff_doubles_with_bounded_jitter_then_gives_up) {
    BOOST_TEST(push_retry_wait(1, 0, std::nullopt, 0.0).value() == std::chrono::milliseconds(1000));
    BOOST_TEST(push_retry_wait(3, 500, std::nullopt, 0.0).value() == std::chrono::milliseconds(4000));
    auto const jittered = push_retry_wait(3, 500, std::nullopt, 0.999).value();
    BOOST_TEST(jittered >= 4000ms);
    BOOST_TEST(jittered < 6000ms);
    BOOST_TEST(!push_retry_wait(push_attempts, 503, 1s, 0.0)); // the last try's answer stands
}

BOOST_AUTO_TEST_CASE(a_dead_server_and_a_wait_of_hours_end_the_reconcile_early) {
    BOOST_TEST(push_retry_wait(push_transport_attempts - 1, 0, std::nullopt, 0.0).has_value());
    BOOST_TEST(!push_retry_wait(push_transport_attempts, 0, std::nullopt, 0.0)); // no answer: said in seconds
    BOOST_TEST(push_retry_wait(push_transport_attempts, 503, std::nullopt, 0.0).has_value()); // an answer
    BOOST_TEST(push_retry_wait(1, 429, push_longest_wait, 0.0).value() == push_longest_wait);
    BOOST_TEST(!push_retry_wait(1, 429, push_longest_wait + 1s, 0.0)); // Retry-After: 86400 waits for no one
}

BOOST_AUTO_TEST_CASE(basic_credentials_follow_rfc_7617) {
    // The RFC's own example.
    BOOST_TEST(basic_authorization("Aladdin", "open sesame") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
    BOOST_TEST(basic_authorization("a", "") == "Basic YTo=");
}

BOOST_AUTO_TEST_CASE(hrefs_resolve_against_the_request_url) {
    BOOST_TEST(resolve_href("https://dav.example.org/dav/", "/alice/") == "https://dav.example.org/alice/");
    BOOST_TEST(
        resolve_href("https://dav.example.org/alice/", "cal/") == "https://dav.example.org/alice/cal/"
    );
    BOOST_TEST(resolve_href("https://a.example/x/", "https://b.example/y/") == "https://b.example/y/");
    BOOST_TEST(
        resolve_href("http://127.0.0.1:5232/x", "/.well-known/caldav") ==
        "http://127.0.0.1:5232/.well-known/caldav"
    );
}

BOOST_AUTO_TEST_CASE(a_delta_changes_only_what_it_names_a_full_listing_replaces) {
    Listing listing{{"icsbridge-a.ics", "\"1\""}, {"icsbridge-b.ics", "\"1\""}};
    ListingUpdate delta;
    delta.changed = {{"icsbridge-a.ics", "\"2\""}, {"icsbridge-c.ics", "\"1\""}};
    delta.removed = {"icsbridge-b.ics"};
    apply_update(delta, listing);
    BOOST_TEST(listing == (Listing{{"icsbridge-a.ics", "\"2\""}, {"icsbridge-c.ics", "\"1\""}}));
    ListingUpdate full;
    full.full = true;
    full.changed = {{"icsbridge-d.ics", "\"9\""}};
    apply_update(full, listing);
    BOOST_TEST(listing == (Listing{{"icsbridge-d.ics", "\"9\""}}));
}

BOOST_AUTO_TEST_SUITE_END()
