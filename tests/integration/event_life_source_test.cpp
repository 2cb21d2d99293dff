// File: event_life_source_test.cpp
// The events client over real loopback HTTP, for an organizer's events over their whole life: the two lists
// it asks for, a history of old events that costs about one page, drafts and series parents left out, and
// the failures that must keep the last good calendar (a failing page inside a count, a vanished event's
// ticket classes). The job board's envelope that announces posts and lists none is here too.
#include "integration/source_harness.hpp"
#include "support/upstream_json.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

using namespace icsbridge;
using icsbridge::test::ScriptedReply;
using icsbridge::test::ScriptedRequest;
using icsbridge::test::ScriptedUpstream;

namespace event_life_source_test {

std::string const token = "life-token-5150-secret";
sys_seconds const now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 23} + std::chrono::hours{12};

// A complete event (no detail request needed) starting `from_now` from now, two hours long.
std::string event_json(
    std::string const& id,
    std::string const& status,
    std::chrono::seconds from_now,
    std::string const& extra = {}
) {
    auto const start = now + from_now;
    test::UpstreamEvent e(id);
    e.status = status;
    e.more += extra;
    return e.between(start, start + std::chrono::hours(2)).json();
}

std::string page(std::vector<std::string> const& events, int number, int count) {
    return test::events_page(events, test::numbered_pagination(number, count));
}

int page_of(ScriptedRequest const& r) {
    auto const p = r.param("page");
    return p.empty() ? 1 : std::stoi(p);
}

struct LifeFixture : test::SourceFixture {
    LifeFixture()
        : SourceFixture(SourceType::events, token, "organizer") {}

    Result<std::vector<Event>> fetch(ScriptedUpstream const& up) {
        src.base_url = up.base_url();
        return test::run_source<std::vector<Event>, EventsSource>(src, logs, [this](EventsSource& s) {
            return s.fetch(ask(), now, {});
        });
    }
};

constexpr auto day = std::chrono::seconds(std::chrono::days(1));

} // namespace event_life_source_test

BOOST_AUTO_TEST_SUITE(event_life_source_test)

BOOST_FIXTURE_TEST_CASE(current_list_then_past_list_newest_first_until_the_cutoff, LifeFixture) {
    // Setup: the current list has a running, a future, a draft and a series parent; the past list holds 100
    // pages of history, newest first: a page within keep_past (30d), then years of old events.
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.param("time_filter") == "current_future")
            return {
                200,
                page(
                    {event_json("run", "started", -std::chrono::hours(1)),
                     event_json("next", "live", 3 * day),
                     event_json("draft", "draft", 4 * day),
                     event_json("parent", "live", day, R"(,"is_series_parent":true,"series_id":"s")"),
                     event_json("s1", "live", day, R"(,"series_id":"parent")"),
                     event_json("s2", "live", 8 * day, R"(,"series_id":"parent")"),
                     event_json("gone", "canceled", 5 * day)},
                    1,
                    1
                )};
        int const n = page_of(r);
        if (n == 1)
            return {
                200,
                page(
                    {event_json("ended10", "completed", -10 * day),
                     event_json("cancelled20", "canceled", -20 * day),
                     event_json("ended60", "ended", -60 * day)},
                    1,
                    100
                )};
        // Every later page is older than the cutoff.
        std::vector<std::string> old;
        for (int k = 0; k < 50; ++k)
            old.push_back(event_json(
                "old-" + std::to_string(n) + "-" + std::to_string(k),
                "completed",
                -(100 + n * 10) * day
            ));
        return {200, page(old, n, 100)};
    });

    // Run
    auto r = fetch(up);

    // Check
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    std::vector<std::string> const want{"run", "next", "s1", "s2", "gone", "ended10", "cancelled20"};
    BOOST_TEST(test::ids_of(*r) == want, boost::test_tools::per_element());
    auto const reqs = up.requests();
    // One current page, then past pages 1 and 2: page 2 lies wholly before the cutoff, so paging stops.
    BOOST_TEST_REQUIRE(reqs.size() == 3u);
    BOOST_TEST(reqs[0].param("status") == "live,started,ended,completed,canceled");
    BOOST_TEST(reqs[0].param("order_by") == "start_asc");
    BOOST_TEST(reqs[1].param("time_filter") == "past");
    BOOST_TEST(reqs[1].param("order_by") == "start_desc");
    BOOST_TEST(reqs[2].param("page") == "2");
}

BOOST_FIXTURE_TEST_CASE(keep_past_zero_asks_for_no_past_list, LifeFixture) {
    feed.keep_past = std::chrono::seconds(0);
    ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
        return {
            200,
            page(
                {event_json("run", "started", -std::chrono::hours(1)),
                 event_json("done", "ended", -std::chrono::hours(3))},
                1,
                1
            )};
    });
    auto r = fetch(up);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(test::ids_of(*r) == std::vector<std::string>{"run"}, boost::test_tools::per_element());
    BOOST_TEST(up.requests().size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(
    an_upstream_ignoring_time_filter_and_order_costs_more_but_loses_nothing, LifeFixture
) {
    // The same two pages for both lists, oldest first: the past list cannot stop early and repeats the
    // current list, which must neither fail the refresh nor duplicate an event.
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (page_of(r) == 1)
            return {
                200,
                page(
                    {event_json("ended10", "completed", -10 * day),
                     event_json("ended90", "completed", -90 * day)},
                    1,
                    2
                )};
        return {200, page({event_json("run", "started", -std::chrono::hours(1))}, 2, 2)};
    });
    auto r = fetch(up);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(
        test::ids_of(*r) == (std::vector<std::string>{"ended10", "run"}),
        boost::test_tools::per_element()
    );
    BOOST_TEST(up.requests().size() == 4u);
}

BOOST_FIXTURE_TEST_CASE(a_failing_page_inside_the_count_fails_the_refresh, LifeFixture) {
    feed.keep_past = std::chrono::seconds(0);
    for (std::string failure : {"bad_page", "empty"}) {
        BOOST_TEST_CONTEXT(failure) {
            ScriptedUpstream up([failure](ScriptedRequest const& r) -> ScriptedReply {
                int const n = page_of(r);
                if (n == 2)
                    return failure == "bad_page"
                               ? ScriptedReply{400, R"({"status_code":400,"error":"BAD_PAGE","error_description":"x"})"}
                               : ScriptedReply{200, page({}, 2, 3)};
                return {200, page({event_json("e" + std::to_string(n), "live", n * day)}, n, 3)};
            });
            auto r = fetch(up);
            BOOST_TEST_REQUIRE(r.has_error());
            BOOST_TEST((r.error().code == errc::upstream_malformed));
            BOOST_TEST(r.error().message.find("page 2 of 3") != std::string::npos, r.error().message);
            BOOST_TEST(r.error().message.find(token) == std::string::npos);
        }
    }
}

BOOST_FIXTURE_TEST_CASE(a_vanished_events_ticket_classes_keep_the_feed, LifeFixture) {
    feed.keep_past = std::chrono::seconds(0);
    feed.ticket_classes = true;
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.path == "/v3/events/a/ticket_classes/")
            return {404, R"({"status_code":404,"error":"NOT_FOUND","error_description":"gone"})"};
        if (r.path == "/v3/events/b/ticket_classes/")
            return {
                200,
                R"({"pagination":{"has_more_items":false},"ticket_classes":[{"id":"t","name":"GA","free":true}]})"};
        return {200, page({event_json("a", "live", day), event_json("b", "live", 2 * day)}, 1, 1)};
    });
    auto r = fetch(up);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST_REQUIRE(r->size() == 2u);
    BOOST_TEST((*r)[0].ticket_classes.empty());
    BOOST_TEST((*r)[1].ticket_classes.size() == 1u);
    BOOST_TEST(logs.joined().find("keeping the event without ticket classes") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_job_envelope_announcing_posts_without_a_listing_fails) {
    for (std::string body :
         {R"({"listings":{"total":20,"page":1,"pages":1,"perpage":100},"stat":"ok"})",
          R"({"listings":{"listing":[],"total":20,"page":1,"pages":1},"stat":"ok"})"}) {
        ScriptedUpstream up([body](ScriptedRequest const&) -> ScriptedReply { return {200, body}; });
        test::SourceFixture f(SourceType::jobs, token, "search");
        f.src.base_url = up.base_url();
        auto r = test::run_source<std::vector<JobPost>, JobsSource>(f.src, f.logs, [&](JobsSource& s) {
            return s.fetch(f.ask(), {});
        });
        BOOST_TEST_REQUIRE(r.has_error(), body);
        BOOST_TEST(r.error().message.find("20 were announced") != std::string::npos, r.error().message);
    }
    // An empty board that says so is an empty calendar, not an error.
    ScriptedUpstream empty([](ScriptedRequest const&) -> ScriptedReply {
        return {200, R"({"listings":{"listing":[],"total":0,"page":1,"pages":1},"stat":"ok"})"};
    });
    test::SourceFixture f(SourceType::jobs, token, "search");
    f.src.base_url = empty.base_url();
    auto r = test::run_source<std::vector<JobPost>, JobsSource>(f.src, f.logs, [&](JobsSource& s) {
        return s.fetch(f.ask(), {});
    });
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(r->empty());
}

BOOST_AUTO_TEST_SUITE_END()
