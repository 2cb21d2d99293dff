// File: event_life_test.cpp
// in_event_life(): which of an organizer's events a calendar shows at a given time, over the whole life of
// an event (live, running, ended, cancelled), and what is never shown (drafts, series parents).
#include <icsbridge/model.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>

namespace icsbridge {

namespace event_life_test {

using namespace std::chrono_literals;

sys_seconds const now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 23} + 12h;

Event event(std::string status, sys_seconds start, std::chrono::seconds length = 2h) {
    Event e;
    e.id = "1";
    e.status = std::move(status);
    e.start.utc = start;
    e.end.utc = start + length;
    return e;
}

} // namespace event_life_test

BOOST_AUTO_TEST_SUITE(event_life_test)

BOOST_AUTO_TEST_CASE(an_event_stays_while_it_runs_and_keep_past_after_it_ends) {
    auto const keep = std::chrono::seconds(std::chrono::days(30));
    BOOST_TEST(in_event_life(event("live", now + 24h), now, keep));
    BOOST_TEST(in_event_life(event("started", now - 1h), now, keep)); // running: the defect this fixes
    BOOST_TEST(in_event_life(event("completed", now - std::chrono::days(10)), now, keep));
    BOOST_TEST(!in_event_life(event("ended", now - std::chrono::days(60)), now, keep));
    // A long event is measured from its end, not its start.
    BOOST_TEST(in_event_life(event("started", now - std::chrono::days(40), std::chrono::days(20)), now, keep)
    );
}

BOOST_AUTO_TEST_CASE(keep_past_zero_drops_an_event_when_it_ends) {
    auto const zero = std::chrono::seconds(0);
    BOOST_TEST(in_event_life(event("started", now - 1h), now, zero));
    BOOST_TEST(!in_event_life(event("ended", now - 3h), now, zero)); // ended an hour ago
    BOOST_TEST(!in_event_life(event("ended", now - 2h), now, zero)); // ends exactly now
}

BOOST_AUTO_TEST_CASE(a_cancelled_event_stays_until_keep_past_after_its_start) {
    auto const keep = std::chrono::seconds(std::chrono::days(7));
    BOOST_TEST(in_event_life(event("canceled", now + 48h), now, keep));
    BOOST_TEST(in_event_life(event("canceled", now - std::chrono::days(6)), now, keep));
    BOOST_TEST(!in_event_life(event("canceled", now - std::chrono::days(8)), now, keep));
    // Even a long one: its end does not matter once it is cancelled.
    BOOST_TEST(!in_event_life(event("canceled", now - std::chrono::days(8), std::chrono::days(30)), now, keep)
    );
}

BOOST_AUTO_TEST_CASE(drafts_and_series_parents_are_never_shown) {
    auto const keep = std::chrono::seconds(std::chrono::days(30));
    BOOST_TEST(!in_event_life(event("draft", now + 24h), now, keep));
    auto parent = event("live", now + 24h, std::chrono::days(90));
    parent.is_series_parent = true;
    parent.series_id = "1";
    BOOST_TEST(!in_event_life(parent, now, keep));
    BOOST_TEST(never_published(parent));
    auto date = event("live", now + 24h);
    date.series_id = "1";
    BOOST_TEST(in_event_life(date, now, keep)); // an occurrence is an ordinary event
    BOOST_TEST(!never_published(date));
}

BOOST_AUTO_TEST_CASE(an_end_before_the_start_counts_as_ending_at_the_start) {
    auto e = event("ended", now - 1h);
    e.end.utc = e.start.utc - 5h;
    BOOST_TEST(!in_event_life(e, now, std::chrono::seconds(0)));
    BOOST_TEST(in_event_life(e, now, std::chrono::seconds(2h)));
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace icsbridge
