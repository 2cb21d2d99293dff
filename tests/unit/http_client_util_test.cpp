// File: http_client_util_test.cpp
// The HTTP client's pure parts: Retry-After and HTTP-date parsing, the backoff schedule, bounded
// gunzip, message formatting, and the deadline race used for resolve and whole attempts.
#include "net/deadline.hpp"
#include "net/gzip_decode.hpp"
#include "net/http_util.hpp"
#include "net/retry.hpp"
#include "store/gzip.hpp"
#include "support/run_coro.hpp"
#include "support/tls_server.hpp"
#include <icsbridge/duration.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>

using namespace icsbridge;
using namespace icsbridge::net_detail;
using namespace std::chrono;
using namespace std::chrono_literals;
namespace net = boost::asio;

namespace http_client_util_test {

// 1994-11-06T08:49:37Z, the example instant of RFC 9110.
system_clock::time_point const rfc_instant = sys_days{year{1994} / November / 6} + 8h + 49min + 37s;

// Boost.Test cannot print optionals: -1 stands for "none".
long long secs(std::optional<seconds> s) {
    return s ? s->count() : -1;
}

} // namespace http_client_util_test

BOOST_AUTO_TEST_SUITE(http_client_util_test)

BOOST_AUTO_TEST_CASE(retry_after_accepts_delta_seconds) {
    auto now = system_clock::now();
    BOOST_TEST(secs(parse_retry_after("120", now)) == 120);
    BOOST_TEST(secs(parse_retry_after(" 0 ", now)) == 0);
    BOOST_TEST(parse_retry_after("99999999999999999999999", now).has_value());
}

BOOST_AUTO_TEST_CASE(retry_after_accepts_all_three_http_date_forms) {
    auto now = rfc_instant - 90s;
    BOOST_TEST(secs(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now)) == 90);
    BOOST_TEST(secs(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", now)) == 90);
    BOOST_TEST(secs(parse_retry_after("Sun Nov  6 08:49:37 1994", now)) == 90);
}

BOOST_AUTO_TEST_CASE(retry_after_in_the_past_means_now_and_fractions_round_up) {
    BOOST_TEST(secs(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", rfc_instant + 1h)) == 0);
    BOOST_TEST(secs(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", rfc_instant - 1500ms)) == 2);
}

BOOST_AUTO_TEST_CASE(malformed_retry_after_is_rejected) {
    auto now = system_clock::now();
    for (auto bad :
         {"",
          "soon",
          "-5",
          "1.5",
          "12s",
          "Sun, 06 Nov 1994 08:49:37",
          "Sun, 31 Feb 1994 08:49:37 GMT",
          "Sun, 06 Foo 1994 08:49:37 GMT",
          "Sun, 06 Nov 1994 25:49:37 GMT"})
        BOOST_TEST(!parse_retry_after(bad, now).has_value(), bad);
}

BOOST_AUTO_TEST_CASE(backoff_doubles_up_to_the_cap_with_full_jitter) {
    RetryPolicy p;
    p.initial_backoff = 100ms;
    p.max_backoff = 1000ms;
    BOOST_TEST(backoff_delay(p, 1, 0.999).count() == 99);
    BOOST_TEST(backoff_delay(p, 2, 0.5).count() == 100);
    BOOST_TEST(backoff_delay(p, 3, 0.5).count() == 200);
    BOOST_TEST(backoff_delay(p, 10, 0.5).count() == 500);
    BOOST_TEST(backoff_delay(p, 1000, 1.0).count() == 1000);
    BOOST_TEST(backoff_delay(p, 3, 0.0).count() == 0);
}

BOOST_AUTO_TEST_CASE(only_429_and_5xx_statuses_are_retried) {
    BOOST_TEST(is_retryable_status(429));
    BOOST_TEST(is_retryable_status(500));
    BOOST_TEST(is_retryable_status(503));
    BOOST_TEST(!is_retryable_status(404));
    BOOST_TEST(!is_retryable_status(401));
    BOOST_TEST(!is_retryable_status(200));
    BOOST_TEST(!is_retryable_error(errc::upstream_tls));
    BOOST_TEST(!is_retryable_error(errc::upstream_too_large));
    BOOST_TEST(is_retryable_error(errc::upstream_timeout));
}

BOOST_AUTO_TEST_CASE(durations_and_sizes_read_naturally) {
    BOOST_TEST(format_duration(250ms) == "250ms");
    BOOST_TEST(format_duration(20s) == "20s");
    BOOST_TEST(format_duration(1500ms) == "1.5s");
    BOOST_TEST(format_duration(2min) == "2m");
    BOOST_TEST(format_size(32 * 1024 * 1024) == "32 MiB");
    BOOST_TEST(format_size(1000) == "1000 bytes");
}

BOOST_AUTO_TEST_CASE(gunzip_decodes_and_enforces_the_limit) {
    std::string text(100000, 'z');
    auto packed = gzip_compress(text);
    auto ok = gunzip(packed, text.size());
    BOOST_TEST((ok.status == GunzipStatus::ok));
    BOOST_TEST(ok.data == text);
    // Two concatenated members are one valid stream.
    auto twice = gunzip(packed + gzip_compress("tail"), text.size() + 4);
    BOOST_TEST((twice.status == GunzipStatus::ok));
    BOOST_TEST(twice.data == text + "tail");
    BOOST_TEST((gunzip(packed, text.size() - 1).status == GunzipStatus::too_large));
    BOOST_TEST((gunzip("not gzip at all", 100).status == GunzipStatus::corrupt));
    BOOST_TEST((gunzip(packed.substr(0, packed.size() / 2), text.size()).status == GunzipStatus::corrupt));
}

BOOST_AUTO_TEST_CASE(gunzip_storage_follows_the_trailer_but_never_trusts_it) {
    std::string text;
    for (int i = 0; text.size() < 300000; ++i)
        text += "<p>line " + std::to_string(i) + " &amp; more</p>";
    auto packed = gzip_compress(text);
    // The trailer's size, understated and overstated: the output grows or shrinks to what the data is.
    for (std::uint32_t lie : {0U, 100U, 4000000000U}) {
        auto bent = packed;
        for (int b = 0; b < 4; ++b)
            bent[bent.size() - 4 + b] = static_cast<char>((lie >> (8 * b)) & 0xFFU);
        auto r = gunzip(bent, 10 * text.size());
        BOOST_TEST_CONTEXT("ISIZE " << lie) {
            // zlib checks ISIZE itself: a lie is a corrupt stream, never a wrong or oversized answer.
            BOOST_TEST((r.status != GunzipStatus::ok || r.data == text));
            BOOST_TEST(r.data.size() <= 10 * text.size());
        }
    }
    // No limit at all (SIZE_MAX) is a limit too.
    auto unlimited = gunzip(packed, std::numeric_limits<std::size_t>::max());
    BOOST_TEST((unlimited.status == GunzipStatus::ok));
    BOOST_TEST(unlimited.data == text);
    // A limit between the real size and the trailer's claim still holds.
    BOOST_TEST((gunzip(packed, text.size() / 2).status == GunzipStatus::too_large));
    auto ok = gunzip(packed, text.size());
    BOOST_TEST((ok.status == GunzipStatus::ok));
    BOOST_TEST(ok.data.size() == text.size());
}

BOOST_AUTO_TEST_CASE(race_deadline_returns_the_value_or_times_out) {
    icsbridge::test::run_coro([](net::any_io_executor ex) -> net::awaitable<void> {
        auto sleeper = [](net::any_io_executor ex, milliseconds d) -> net::awaitable<int> {
            net::steady_timer t(ex, d);
            co_await t.async_wait(net::as_tuple(net::use_awaitable));
            co_return 42;
        };
        auto quick = co_await race_deadline(sleeper(ex, 1ms), 10s);
        BOOST_TEST(quick.value_or(-1) == 42);
        bool hook_ran = false;
        auto slow = co_await race_deadline(sleeper(ex, 1h), 20ms, [&] { hook_ran = true; });
        BOOST_TEST(!slow.has_value());
        BOOST_TEST(hook_ran);
    });
}

BOOST_AUTO_TEST_SUITE_END()
