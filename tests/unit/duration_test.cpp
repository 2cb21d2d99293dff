// File: duration_test.cpp
// Config durations: "90s", "15m", "6h", "30d", combinations, and everything that must be refused.
#include <icsbridge/config.hpp>

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace duration_test {

/** Seconds of a parsed duration, -1 when it is refused (keeps assertions printable). */
long secs(std::string_view text) {
    auto d = parse_duration(text);
    return d ? static_cast<long>(d->count()) : -1;
}

} // namespace duration_test

BOOST_AUTO_TEST_SUITE(duration_test)

BOOST_AUTO_TEST_CASE(each_unit_and_combinations_parse) {
    BOOST_TEST(secs("90s") == 90);
    BOOST_TEST(secs("15m") == 900);
    BOOST_TEST(secs("6h") == 21600);
    BOOST_TEST(secs("30d") == 30 * 86400);
    BOOST_TEST(secs("1h30m") == 5400);
    BOOST_TEST(secs("1d2h3m4s") == 86400 + 7200 + 180 + 4);
    BOOST_TEST(secs("0m30s") == 30);
}

BOOST_AUTO_TEST_CASE(malformed_zero_and_negative_are_refused) {
    for (char const* bad :
         {"",
          "15",
          "m",
          "15 minutes",
          "15 m",
          "15M",
          "0s",
          "0m0s",
          "-1m",
          "+1m",
          "1.5h",
          "1w",
          "15m ",
          " 15m",
          "1h30",
          "99999999999999999999s",
          "4000d"}) {
        BOOST_TEST_CONTEXT(bad) {
            BOOST_TEST(secs(bad) == -1);
        }
    }
}

BOOST_AUTO_TEST_CASE(format_uses_the_largest_exact_unit) {
    BOOST_TEST(format_duration(seconds(0)) == "0s");
    BOOST_TEST(format_duration(seconds(45)) == "45s");
    BOOST_TEST(format_duration(seconds(900)) == "15m");
    BOOST_TEST(format_duration(seconds(5400)) == "90m");
    BOOST_TEST(format_duration(seconds(7200)) == "2h");
    BOOST_TEST(format_duration(seconds(30 * 86400)) == "30d");
    BOOST_TEST(format_duration(seconds(3601)) == "3601s");
}

BOOST_AUTO_TEST_CASE(format_reads_milliseconds_and_fractions_too) {
    // The same formatter words the HTTP client's timeouts and retry waits.
    BOOST_TEST(format_duration(milliseconds(250)) == "250ms");
    BOOST_TEST(format_duration(milliseconds(1500)) == "1.5s");
    BOOST_TEST(format_duration(milliseconds(61999)) == "61.9s");
    BOOST_TEST(format_duration(milliseconds(0)) == "0s");
    BOOST_TEST(format_duration(milliseconds(3'600'000)) == "1h");
}

BOOST_AUTO_TEST_CASE(format_and_parse_round_trip) {
    for (long s : {1L, 59L, 60L, 61L, 3600L, 5400L, 86400L, 90061L}) {
        auto back = parse_duration(format_duration(seconds(s)));
        BOOST_TEST_REQUIRE(back.has_value());
        BOOST_TEST(back->count() == s);
    }
}

BOOST_AUTO_TEST_SUITE_END()
