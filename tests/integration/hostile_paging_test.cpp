// File: hostile_paging_test.cpp
// Hostile upstream paging over loopback: an object_count that lies either way, and a job board that
// ignores `page` without saying so. Each ends with the items actually sent or a clear error, never a hang.
// (Endless continuation chains and page numbers that do not advance: events_source_test, jobs_source_test.)
#include "integration/source_harness.hpp"
#include "support/upstream_json.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace icsbridge;
using icsbridge::test::ScriptedReply;
using icsbridge::test::ScriptedRequest;
using icsbridge::test::ScriptedUpstream;

namespace hostile_paging_test {

std::string const secret = "hostile-paging-secret-31337";

/** @brief One page of `count` complete events with ids first..first+count-1 and the given pagination. */
std::string events_page(int first, int count, std::string const& pagination) {
    std::vector<std::string> events;
    for (int i = first; i < first + count; ++i) {
        test::UpstreamEvent e(std::to_string(i));
        e.name_json = R"({"text":"E"})";
        e.status.clear();
        e.more = R"(,"venue":null,"online_event":true,"organizer":{"name":"O"},"ticket_availability":{})";
        events.push_back(e.json());
    }
    return test::events_page(events, pagination);
}

Result<std::vector<Event>> fetch_events(ScriptedUpstream const& up) {
    test::SourceFixture f(SourceType::events, secret, "organizer");
    f.src.base_url = up.base_url();
    // One list (no ended events asked for) at a fixed time before the events: these tests count requests.
    f.feed.keep_past = std::chrono::seconds(0);
    sys_seconds const now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 22};
    return test::run_source<std::vector<Event>, EventsSource>(f.src, f.logs, [&](EventsSource& s) {
        return s.fetch(f.ask(), now, {});
    });
}

} // namespace hostile_paging_test

BOOST_AUTO_TEST_SUITE(hostile_paging_test)

BOOST_AUTO_TEST_CASE(an_object_count_that_lies_changes_nothing) {
    {
        // Says 10, sends 1000 on its only page: all are kept.
        ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
            return {200, events_page(1, 1000, R"({"object_count":10,"page_number":1,"page_count":1})")};
        });
        auto r = fetch_events(up);
        BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
        BOOST_TEST(r->size() == 1000u);
        BOOST_TEST(up.requests().size() == 1u);
    }
    {
        // Says 1000, sends 3 and no more: the 3, after one request (no chase for the missing 997).
        ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
            return {200, events_page(1, 3, R"({"object_count":1000,"has_more_items":false})")};
        });
        auto r = fetch_events(up);
        BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
        BOOST_TEST(r->size() == 3u);
        BOOST_TEST(up.requests().size() == 1u);
    }
    {
        // Counts of the wrong type and sign are ignored too.
        ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
            return {200, events_page(1, 2, R"({"object_count":-5,"page_count":"x","has_more_items":"no"})")};
        });
        auto r = fetch_events(up);
        BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
        BOOST_TEST(r->size() == 2u);
    }
}

BOOST_AUTO_TEST_CASE(a_job_board_ignoring_page_without_echoing_it_stops_with_a_clear_error) {
    // The same post on every page, 1000 pages announced, `page` never echoed.
    ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
        return {
            200,
            R"({"listings":{"listing":[{"id":"1","title":"T","post_date":"2026-01-02 10:00:00"}],)"
            R"("total":1000,"perpage":1,"pages":1000},"stat":"ok"})"};
    });
    test::SourceFixture f(SourceType::jobs, secret, "search");
    f.src.base_url = up.base_url();
    auto r = test::run_source<std::vector<JobPost>, JobsSource>(f.src, f.logs, [&](JobsSource& s) {
        return s.fetch(f.ask(), {});
    });
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_malformed));
    BOOST_TEST(r.error().message.find("repeated earlier posts") != std::string::npos, r.error().message);
    // Page 1 brings the post, pages 2-4 only repeat it: three stale pages end the refresh.
    BOOST_TEST(up.requests().size() == 4u);
}

BOOST_AUTO_TEST_SUITE_END()
