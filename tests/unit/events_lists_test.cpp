// File: events_lists_test.cpp
// The events API's list questions without sockets: a search's query (params in file order, empty ones
// left out, the date window and the expansions unless the feed gives its own) and where a past list stops.
#include "sources/events_lists.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace icsbridge {

namespace events_lists_test {

using namespace std::chrono_literals;

sys_seconds at(int y, unsigned m, unsigned d, int h = 0) {
    return std::chrono::sys_days(std::chrono::year(y) / m / d) + std::chrono::hours(h);
}

Event starting(sys_seconds start, std::chrono::seconds length = 2h) {
    Event e;
    e.start.utc = start;
    e.end.utc = start + length;
    return e;
}

/** "k=v&k=v", so that a failed comparison shows both queries. */
std::string joined(Query const& q) {
    std::string out;
    for (auto const& [k, v] : q)
        out += (out.empty() ? "" : "&") + k + "=" + v;
    return out;
}

BOOST_AUTO_TEST_SUITE(events_lists_test)

BOOST_AUTO_TEST_CASE(a_search_keeps_the_feeds_params_and_adds_window_and_expansions) {
    UpstreamQuery q;
    q.params = {{"q", "jazz"}, {"location.address", ""}, {"categories", "103"}};
    q.window = std::chrono::days(14);
    Query const got = search_query(q, at(2027, 3, 1, 9));
    Query const want = {
        {"q", "jazz"},
        {"categories", "103"},
        {"start_date.range_start", "2027-03-01T09:00:00"},
        {"start_date.range_end", "2027-03-15T09:00:00"},
        {"expand", event_expansions}};
    BOOST_TEST(joined(got) == joined(want));
}

BOOST_AUTO_TEST_CASE(a_feeds_own_range_and_expand_win_and_no_window_adds_no_range) {
    UpstreamQuery q;
    q.params = {{"start_date.range_end", "2027-12-31T00:00:00"}, {"expand", "venue"}};
    q.window = std::chrono::days(14);
    Query const got = search_query(q, at(2027, 3, 1));
    Query const want = {
        {"start_date.range_end", "2027-12-31T00:00:00"},
        {"expand", "venue"},
        {"start_date.range_start", "2027-03-01T00:00:00"}};
    BOOST_TEST(joined(got) == joined(want));

    UpstreamQuery plain;
    Query const just_expand = {{"expand", event_expansions}};
    BOOST_TEST(joined(search_query(plain, at(2027, 3, 1))) == joined(just_expand));
}

BOOST_AUTO_TEST_CASE(a_newest_first_list_stops_at_its_first_page_wholly_before_the_cutoff) {
    PastCutoff cutoff(at(2027, 1, 10));
    BOOST_TEST(!cutoff.page_is_past({starting(at(2027, 2, 1)), starting(at(2027, 1, 20))}));
    // Straddles the cutoff: an event still running at it keeps the list going.
    BOOST_TEST(!cutoff.page_is_past({starting(at(2027, 1, 12)), starting(at(2027, 1, 9, 23))}));
    BOOST_TEST(cutoff.page_is_past({starting(at(2027, 1, 5)), starting(at(2027, 1, 1))}));
    BOOST_TEST(!cutoff.page_is_past({}));
}

BOOST_AUTO_TEST_CASE(a_list_out_of_order_is_read_to_its_end) {
    // An upstream that ignored order_by: one step back in time anywhere, and no page ends the list.
    PastCutoff cutoff(at(2027, 1, 10));
    BOOST_TEST(!cutoff.page_is_past({starting(at(2027, 1, 1)), starting(at(2027, 2, 1))}));
    BOOST_TEST(!cutoff.page_is_past({starting(at(2026, 12, 1)), starting(at(2026, 11, 1))}));
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace events_lists_test

} // namespace icsbridge
