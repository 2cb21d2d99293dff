// File: parallel_paging_test.cpp
// Pages 2..N of a counted list are requested several at a time (within max_concurrency) and used in page
// order: the same events in the same order as one page at a time, whatever order the answers come in.
// A continuation list stays one page at a time. Pages parsed on other threads (`serve`) keep page order.
#include "integration/source_harness.hpp"
#include "support/upstream_json.hpp"

#include <boost/asio/thread_pool.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

using namespace icsbridge;
using icsbridge::test::ScriptedReply;
using icsbridge::test::ScriptedRequest;
using icsbridge::test::ScriptedUpstream;

namespace parallel_paging_test {

std::string const token = "paging-token-2718";
sys_seconds const now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 22};
constexpr int page_count = 9;

// Page n holds events n*10+0..2 (event n*10+2 again on page n+1: contents shift between requests).
std::string page_body(int n, std::string const& pagination) {
    std::vector<int> ids{n * 10, n * 10 + 1, n * 10 + 2};
    if (n > 1)
        ids.insert(ids.begin(), (n - 1) * 10 + 2);
    std::vector<std::string> events;
    for (int id : ids)
        events.push_back(test::UpstreamEvent(std::to_string(id)).json());
    return test::events_page(events, pagination);
}

// Later pages answer sooner, so answers arrive out of page order when several are in flight.
ScriptedReply numbered_page(ScriptedRequest const& r) {
    auto const p = r.param("page");
    int const n = p.empty() ? 1 : std::stoi(p);
    std::string const pagination = R"({"page_number":)" + std::to_string(n) + R"(,"page_count":)" +
                                   std::to_string(page_count) + R"(,"has_more_items":)" +
                                   (n < page_count ? "true" : "false") + "}";
    return {200, page_body(n, pagination), std::chrono::milliseconds((page_count - n) * 15)};
}

struct Run {
    std::vector<std::string> ids;
    int in_flight = 0;
    std::size_t requests = 0;
};

// `parse_on`: where the source parses the pages it reads several at a time (as `serve` has it).
Run fetch(
    ScriptedUpstream::Handler handler,
    int concurrency,
    std::optional<boost::asio::any_io_executor> parse_on = std::nullopt
) {
    ScriptedUpstream up(std::move(handler));
    test::SourceFixture f(SourceType::events, token, "organizer");
    f.src.base_url = up.base_url();
    f.src.max_concurrency = concurrency;
    f.feed.keep_past = std::chrono::seconds(0); // one list
    auto r = test::run_source<std::vector<Event>, EventsSource>(f.src, f.logs, [&](EventsSource& s) {
        if (parse_on)
            s.parse_pages_on(*parse_on);
        return s.fetch(f.ask(), now, {});
    });
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    return Run{test::ids_of(*r), up.max_in_flight(), up.requests().size()};
}

} // namespace parallel_paging_test

BOOST_AUTO_TEST_SUITE(parallel_paging_test)

BOOST_AUTO_TEST_CASE(counted_pages_come_several_at_a_time_and_are_used_in_page_order) {
    auto const one = fetch(numbered_page, 1);
    auto const four = fetch(numbered_page, 4);

    BOOST_TEST(one.in_flight == 1);
    BOOST_TEST(four.in_flight > 1);
    BOOST_TEST(four.in_flight <= 4);
    BOOST_TEST(one.requests == std::size_t(page_count));
    BOOST_TEST(four.requests == std::size_t(page_count));
    BOOST_TEST(four.ids == one.ids, boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(one.ids.size() == std::size_t(page_count * 3));
    BOOST_TEST(one.ids.front() == "10");
    BOOST_TEST(one.ids.back() == std::to_string(page_count * 10 + 2));
}

BOOST_AUTO_TEST_CASE(pages_parsed_on_other_threads_are_still_used_in_page_order) {
    // Two parsing threads, answers out of page order: each page's events still follow the page before.
    boost::asio::thread_pool parsers(2);
    auto const one = fetch(numbered_page, 1);
    auto const four = fetch(numbered_page, 4, parsers.get_executor());
    BOOST_TEST(four.in_flight > 1);
    BOOST_TEST(four.requests == std::size_t(page_count));
    BOOST_TEST(four.ids == one.ids, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_page_that_does_not_parse_off_thread_fails_the_refresh_in_context) {
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.param("page") == "5")
            return {200, R"({"events": "not a list"})"};
        return numbered_page(r);
    });
    boost::asio::thread_pool parsers(1);
    test::SourceFixture f(SourceType::events, token, "organizer");
    f.src.base_url = up.base_url();
    f.src.max_concurrency = 4;
    f.feed.keep_past = std::chrono::seconds(0);
    auto r = test::run_source<std::vector<Event>, EventsSource>(f.src, f.logs, [&](EventsSource& s) {
        s.parse_pages_on(parsers.get_executor());
        return s.fetch(f.ask(), now, {});
    });
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_malformed));
    BOOST_TEST(r.error().message.find("malformed response from /v3/users/me/events/") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_failing_page_in_a_window_fails_the_refresh) {
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.param("page") == "5")
            return {500, R"({"status_code":500,"error":"INTERNAL_ERROR","error_description":"x"})"};
        return numbered_page(r);
    });
    test::SourceFixture f(SourceType::events, token, "organizer");
    f.src.base_url = up.base_url();
    f.src.max_concurrency = 4;
    f.feed.keep_past = std::chrono::seconds(0);
    auto r = test::run_source<std::vector<Event>, EventsSource>(f.src, f.logs, [&](EventsSource& s) {
        return s.fetch(f.ask(), now, {});
    });
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_status));
}

BOOST_AUTO_TEST_CASE(continuation_lists_stay_one_page_at_a_time) {
    auto const run = fetch(
        [](ScriptedRequest const& r) -> ScriptedReply {
            auto const c = r.param("continuation");
            int const n = c.empty() ? 1 : std::stoi(c.substr(1));
            std::string const pagination = n < page_count ? R"({"has_more_items":true,"continuation":"c)" +
                                                                std::to_string(n + 1) + R"("})"
                                                          : std::string(R"({"has_more_items":false})");
            return {200, page_body(n, pagination), std::chrono::milliseconds(5)};
        },
        4
    );
    BOOST_TEST(run.in_flight == 1);
    BOOST_TEST(run.ids.size() == std::size_t(page_count * 3));
}

BOOST_AUTO_TEST_SUITE_END()
