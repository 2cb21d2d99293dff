// File: retry_test.cpp
// The retry policy as a pure function, without sockets: which outcomes are retried, the cap on
// attempts, Retry-After honoured for 429/503, the elapsed-time budget and the backoff's growth.
#include "net/retry.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace icsbridge::net_detail;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

namespace retry_test {

/** A policy with round numbers: waits of 100, 200, 400, 800 ms (capped at 800), 10 s in all. */
struct PolicyFixture {
    RetryPolicy policy;

    PolicyFixture() {
        policy.max_attempts = 5;
        policy.initial_backoff = 100ms;
        policy.max_backoff = 800ms;
        policy.max_total = 10s;
    }

    /** The verdict for an outcome with no Retry-After, early in the budget, at the jitter's top. */
    RetryVerdict after(AttemptEnd end, int attempt = 1) const {
        return next_retry(policy, attempt, end, std::nullopt, 0ms, 0.999999);
    }
};

// Boost.Test cannot print optionals: -1 stands for "give up".
long long wait_ms(RetryVerdict const& v) {
    return v.wait ? v.wait->count() : -1;
}

} // namespace retry_test

BOOST_FIXTURE_TEST_SUITE(retry_test, PolicyFixture)

BOOST_AUTO_TEST_CASE(retries_429_and_5xx_but_no_other_status) {
    // Run and check: only 429 and 500-599 are worth another try.
    for (unsigned s : {429u, 500u, 502u, 503u, 504u, 599u}) {
        BOOST_TEST_CONTEXT(s) {
            BOOST_TEST(after(AttemptEnd::response(s)).retry());
        }
    }
    for (unsigned s : {200u, 204u, 304u, 400u, 401u, 403u, 404u, 408u, 410u, 428u, 431u, 600u}) {
        BOOST_TEST_CONTEXT(s) {
            auto v = after(AttemptEnd::response(s));
            BOOST_TEST(!v.retry());
            BOOST_TEST((v.reason == GiveUp::final_outcome));
        }
    }
}

BOOST_AUTO_TEST_CASE(retries_transport_failures_a_new_attempt_may_cure) {
    for (errc e : {errc::upstream_connect, errc::upstream_timeout, errc::upstream_io}) {
        BOOST_TEST_CONTEXT(to_string(e)) {
            BOOST_TEST(after(AttemptEnd::transport_failure(e)).retry());
        }
    }
    // Untrusted certificates, oversized bodies and unknown hosts stay as they are.
    for (errc e : {errc::upstream_tls, errc::upstream_too_large, errc::upstream_resolve, errc::shutdown}) {
        BOOST_TEST_CONTEXT(to_string(e)) {
            BOOST_TEST(!after(AttemptEnd::transport_failure(e)).retry());
        }
    }
}

BOOST_AUTO_TEST_CASE(stops_once_max_attempts_are_made) {
    // Setup: 5 attempts in all, so attempts 1-4 may be followed by another.
    for (int attempt = 1; attempt < 5; ++attempt)
        BOOST_TEST(after(AttemptEnd::response(503), attempt).retry(), "attempt " << attempt);

    // Run: the fifth attempt failed too.
    auto v = after(AttemptEnd::response(503), 5);

    // Check
    BOOST_TEST(!v.retry());
    BOOST_TEST((v.reason == GiveUp::attempts_spent));

    // One attempt in all means no retry, however retryable the outcome.
    policy.max_attempts = 1;
    BOOST_TEST((after(AttemptEnd::response(429)).reason == GiveUp::attempts_spent));
}

BOOST_AUTO_TEST_CASE(backoff_doubles_per_attempt_up_to_the_cap) {
    // Full jitter at its top: the wait is the ceiling itself (less rounding).
    BOOST_TEST(wait_ms(after(AttemptEnd::response(500), 1)) == 99);
    BOOST_TEST(wait_ms(after(AttemptEnd::response(500), 2)) == 199);
    BOOST_TEST(wait_ms(after(AttemptEnd::response(500), 3)) == 399);
    BOOST_TEST(wait_ms(after(AttemptEnd::response(500), 4)) == 799);
    policy.max_attempts = 10;
    BOOST_TEST(wait_ms(after(AttemptEnd::response(500), 8)) == 799); // capped at max_backoff
    // The jitter scales the ceiling: half of 400 ms at the third attempt; nothing at zero.
    BOOST_TEST(wait_ms(next_retry(policy, 3, AttemptEnd::response(500), std::nullopt, 0ms, 0.5)) == 200);
    BOOST_TEST(wait_ms(next_retry(policy, 3, AttemptEnd::response(500), std::nullopt, 0ms, 0.0)) == 0);
}

BOOST_AUTO_TEST_CASE(retry_after_is_honoured_for_429_and_503_instead_of_the_backoff) {
    // Setup: a wait far beyond max_backoff, but within the budget.
    for (unsigned s : {429u, 503u}) {
        BOOST_TEST_CONTEXT(s) {
            // Run
            auto v = next_retry(policy, 1, AttemptEnd::response(s), 3s, 1s, 0.0);

            // Check: exactly the server's wait, jitter or not.
            BOOST_TEST(wait_ms(v) == 3000);
        }
    }
    // A Retry-After of 0 means "now".
    BOOST_TEST(wait_ms(next_retry(policy, 1, AttemptEnd::response(429), 0s, 0ms, 0.9)) == 0);
    // It does not make a final status retryable.
    BOOST_TEST(!next_retry(policy, 1, AttemptEnd::response(404), 1s, 0ms, 0.5).retry());
}

BOOST_AUTO_TEST_CASE(retry_after_beyond_the_budget_gives_up_at_once) {
    // Setup: 10 s budget, 4 s spent: 6 s left.
    auto v = next_retry(policy, 1, AttemptEnd::response(429), 6s, 4s, 0.5);
    BOOST_TEST(!v.retry());
    BOOST_TEST((v.reason == GiveUp::retry_after_beyond_budget));
    // One second less fits.
    BOOST_TEST(wait_ms(next_retry(policy, 1, AttemptEnd::response(429), 5s, 4s, 0.5)) == 5000);
}

BOOST_AUTO_TEST_CASE(no_wait_may_end_past_the_elapsed_budget) {
    // Setup: the third retry waits up to 400 ms; only 300 ms of the 10 s are left.
    auto v =
        next_retry(policy, 3, AttemptEnd::transport_failure(errc::upstream_io), std::nullopt, 9700ms, 0.999);
    BOOST_TEST(!v.retry());
    BOOST_TEST((v.reason == GiveUp::budget_spent));
    // The same wait with 500 ms left goes ahead.
    auto ok =
        next_retry(policy, 3, AttemptEnd::transport_failure(errc::upstream_io), std::nullopt, 9500ms, 0.999);
    BOOST_TEST(wait_ms(ok) == 399);
    // With the budget already spent nothing is retried, not even at once.
    auto late = next_retry(policy, 1, AttemptEnd::response(503), 0s, 11s, 0.0);
    BOOST_TEST((late.reason == GiveUp::retry_after_beyond_budget));
    BOOST_TEST(
        (next_retry(policy, 1, AttemptEnd::response(503), std::nullopt, 11s, 0.0).reason ==
         GiveUp::budget_spent)
    );
}

BOOST_AUTO_TEST_SUITE_END()
