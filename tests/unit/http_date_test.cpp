// File: http_date_test.cpp
// HTTP-date formatting and the three HTTP-date forms, as the server (If-Modified-Since) and the client
// (Retry-After) read them.
#include "net/http_date.hpp"
#include "support/server_fixtures.hpp" // prints time points

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(http_date_test)

BOOST_AUTO_TEST_CASE(formats_imf_fixdate) {
    auto t = sys_days{1994y / November / 6} + 8h + 49min + 37s;
    BOOST_TEST(format_http_date(t) == "Sun, 06 Nov 1994 08:49:37 GMT");
    BOOST_TEST(format_http_date(sys_days{2026y / January / 1}) == "Thu, 01 Jan 2026 00:00:00 GMT");
}

BOOST_AUTO_TEST_CASE(parses_all_three_formats) {
    auto want = sys_days{1994y / November / 6} + 8h + 49min + 37s;
    BOOST_TEST(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").value() == want);
    BOOST_TEST(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT").value() == want);
    BOOST_TEST(parse_http_date("Sun Nov  6 08:49:37 1994").value() == want);
    BOOST_TEST(parse_http_date(" Sun, 06 Nov 1994 08:49:37 GMT ").value() == want);
    BOOST_TEST(parse_http_date("Thursday, 01-Jan-26 00:00:00 GMT").value() == sys_days{2026y / January / 1});
}

BOOST_AUTO_TEST_CASE(rejects_malformed_dates) {
    for (auto bad :
         {"",
          "yesterday",
          "Sun, 06 Nov 1994 08:49:37",
          "Sun, 06 Foo 1994 08:49:37 GMT",
          "Sun, 31 Feb 1994 08:49:37 GMT",
          "Sun, 06 Nov 1994 25:49:37 GMT",
          "Sun, 06 Nov 1994 08:49:37 GMTx",
          "1994-11-06T08:49:37Z"})
        BOOST_TEST(!parse_http_date(bad).has_value(), bad);
}

BOOST_AUTO_TEST_CASE(date_round_trips) {
    auto t = sys_days{2031y / March / 30} + 1h + 2min + 3s;
    BOOST_TEST(parse_http_date(format_http_date(t)).value() == t);
}

BOOST_AUTO_TEST_CASE(month_names_in_any_case_and_surrounding_tabs) {
    auto want = sys_days{1994y / November / 6} + 8h + 49min + 37s;
    BOOST_TEST(parse_http_date("\tSun, 06 NOV 1994 08:49:37 GMT\t").value() == want);
    BOOST_TEST(parse_http_date("Sun nov  6 08:49:37 1994").value() == want);
}

BOOST_AUTO_TEST_SUITE_END()
