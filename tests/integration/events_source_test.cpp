// File: events_source_test.cpp
// The events API client over real loopback HTTP: paging (page numbers, continuation) and its guards,
// organization discovery, concurrent completion of expansions, ticket classes, headers and auth errors.
#include "fake_upstream/fake_upstream.hpp"
#include "integration/source_harness.hpp"
#include "support/upstream_json.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <vector>

using namespace icsbridge;
using icsbridge::test::ScriptedReply;
using icsbridge::test::ScriptedRequest;
using icsbridge::test::ScriptedUpstream;

namespace events_source_test {

std::string const token = "s3cr3t-events-token-4711";

// 2026-11-22T10:00:00Z
sys_seconds const now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 22} + std::chrono::hours{10};

std::string event_json(std::string const& id, bool expanded, std::string const& venue_name = "Hall") {
    test::UpstreamEvent e(id);
    e.name_json = R"({"text":"Event )" + id + R"(","html":null})";
    e.zone_json = R"("Europe/Berlin")";
    e.start_local = "2026-12-01T19:00:00";
    e.start_utc_json = R"("2026-12-01T18:00:00Z")";
    e.end_local = "2026-12-01T21:00:00";
    e.end_utc_json = R"("2026-12-01T20:00:00Z")";
    e.more = R"(,"venue_id":"v)" + id + R"(","organizer_id":"o1")";
    if (expanded)
        e.more += R"(,"venue":{"id":"v)" + id + R"(","name":")" + venue_name +
                  R"(","address":{"localized_address_display":"Main St 1"}},"organizer":{"name":"Org"},)" +
                  R"("ticket_availability":{"is_sold_out":false})";
    return e.json();
}

using test::events_page;

std::string numbered(int page, int count) {
    return R"({"page_number":)" + std::to_string(page) + R"(,"page_count":)" + std::to_string(count) +
           R"(,"has_more_items":)" + (page < count ? "true" : "false") + R"(,"object_count":5})";
}

std::string continued(std::string const& token_value) {
    return token_value.empty() ? R"({"has_more_items":false,"continuation":null})"
                               : R"({"has_more_items":true,"continuation":")" + token_value + R"("})";
}

// Page n of an endless list: one fresh event and the given pagination.
ScriptedReply nth_page(int n, std::string const& pagination) {
    return {200, events_page({event_json(std::to_string(n), true)}, pagination)};
}

struct EventsFixture : test::SourceFixture {
    EventsFixture()
        : SourceFixture(SourceType::events, token, "organizer") {
        // These tests are about paging one list; keep_past > 0 adds the list of ended events
        // (event_life_test covers that one).
        feed.keep_past = std::chrono::seconds(0);
    }

    Result<std::vector<Event>> fetch(ScriptedUpstream const& up) {
        src.base_url = up.base_url();
        return test::run_source<std::vector<Event>, EventsSource>(src, logs, [this](EventsSource& s) {
            return s.fetch(ask(), now, record_progress());
        });
    }
};

} // namespace events_source_test

BOOST_AUTO_TEST_SUITE(events_source_test)

BOOST_FIXTURE_TEST_CASE(organizer_follows_page_numbers_and_keeps_each_event_once, EventsFixture) {
    // Setup: three pages; page 2 repeats event 2 (contents shift between requests).
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        auto page = r.param("page");
        if (page.empty())
            return {200, events_page({event_json("1", true), event_json("2", true)}, numbered(1, 3))};
        if (page == "2")
            return {
                200,
                events_page({event_json("2", true, "Moved"), event_json("3", true)}, numbered(2, 3))};
        if (page == "3")
            return {200, events_page({event_json("4", true)}, numbered(3, 3))};
        return {400, R"({"error":"BAD_PAGE"})"};
    });

    // Run
    auto r = fetch(up);

    // Check
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(
        test::ids_of(*r) == (std::vector<std::string>{"1", "2", "3", "4"}),
        boost::test_tools::per_element()
    );
    BOOST_TEST((*r)[1].venue->name == "Hall"); // the first copy wins
    auto reqs = up.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 3u);
    for (auto const& q : reqs) {
        BOOST_TEST(q.path == "/v3/users/me/events/");
        BOOST_TEST(q.authorization == "Bearer " + token);
        BOOST_TEST(q.content_type == "application/json");
        // Every published state, so an event stays while it runs (never drafts).
        BOOST_TEST(q.param("status") == "live,started,ended,completed,canceled");
        BOOST_TEST(q.param("time_filter") == "current_future");
        BOOST_TEST(q.param("expand") == "venue,ticket_availability,organizer");
        BOOST_TEST(q.target.find(token) == std::string::npos);
    }
    BOOST_TEST(reqs[1].param("page") == "2");
    BOOST_TEST(reqs[2].param("page") == "3");
    BOOST_TEST_REQUIRE(progress.size() == 3u);
    BOOST_TEST(progress[2].pages == 3);
    BOOST_TEST(progress[2].items == 4u);
    BOOST_TEST((progress[2].total == 5u));
}

BOOST_FIXTURE_TEST_CASE(organization_id_is_discovered_and_continuation_followed, EventsFixture) {
    feed.select = "organization";
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.path == "/v3/users/me/organizations/")
            return {200, test::read_fixture("events/organizations.json")};
        if (r.path != "/v3/organizations/207140026882/events/")
            return {404, R"({"error":"NOT_FOUND"})"};
        auto c = r.param("continuation");
        if (c.empty())
            return {200, events_page({event_json("a", true)}, continued("tok-1"))};
        if (c == "tok-1")
            return {200, events_page({event_json("b", true), event_json("a", true)}, continued("tok-2"))};
        // "When all records have been retrieved, the continuation token will return an empty list."
        return {200, events_page({}, continued(""))};
    });

    auto r = fetch(up);

    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(test::ids_of(*r) == (std::vector<std::string>{"a", "b"}), boost::test_tools::per_element());
    auto reqs = up.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 4u);
    BOOST_TEST(reqs[0].path == "/v3/users/me/organizations/");
    BOOST_TEST(!reqs[1].has_param("continuation"));
    BOOST_TEST(reqs[2].param("continuation") == "tok-1");
    BOOST_TEST(reqs[3].param("continuation") == "tok-2");
    BOOST_TEST(reqs[3].param("status") == "live,started,ended,completed,canceled");
}

BOOST_FIXTURE_TEST_CASE(configured_organization_id_skips_discovery, EventsFixture) {
    feed.select = "organization";
    feed.organization_id = "42";
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.path == "/v3/organizations/42/events/")
            return {200, events_page({event_json("a", true)}, continued(""))};
        return {404, R"({"error":"NOT_FOUND"})"};
    });

    auto r = fetch(up);

    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(up.requests().size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(no_organization_is_a_clear_error, EventsFixture) {
    feed.select = "organization";
    ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
        return {200, R"({"organizations":[],"pagination":{"object_count":0}})"};
    });

    auto r = fetch(up);

    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_not_found));
    BOOST_TEST(r.error().message.find("belongs to no organization") != std::string::npos);
    BOOST_TEST(r.error().message.find("organization_id") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(endless_continuation_chain_stops_at_max_items_with_a_clear_error, EventsFixture) {
    feed.select = "organization";
    feed.organization_id = "42";
    feed.max_items = 150;
    // Every page announces more, with a fresh token and a fresh event: only max_items can end it.
    ScriptedUpstream up([n = 0](ScriptedRequest const&) mutable -> ScriptedReply {
        ++n;
        return nth_page(n, continued("tok-" + std::to_string(n)));
    });

    auto r = fetch(up);

    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_too_large));
    BOOST_TEST(r.error().message.find("max_items = 150") != std::string::npos, r.error().message);
    // Each page holds one event: the refresh stops right after the 151st, not at a fixed page count.
    BOOST_TEST(up.requests().size() == 151u);
}

BOOST_FIXTURE_TEST_CASE(repeated_token_or_page_number_stops_with_a_clear_error, EventsFixture) {
    feed.select = "organization";
    feed.organization_id = "42";
    {
        ScriptedUpstream up([n = 0](ScriptedRequest const&) mutable -> ScriptedReply {
            ++n;
            return nth_page(n, continued(n < 3 ? "tok-a" : "tok-b"));
        });
        auto r = fetch(up);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST((r.error().code == errc::upstream_malformed));
        BOOST_TEST(r.error().message.find("the same continuation token came twice") != std::string::npos);
        BOOST_TEST(up.requests().size() == 2u);
    }
    {
        feed.select = "organizer";
        // A server that ignores `page` and answers page 1 of 3 forever.
        ScriptedUpstream up([n = 0](ScriptedRequest const&) mutable -> ScriptedReply {
            ++n;
            return nth_page(n, numbered(1, 3));
        });
        auto r = fetch(up);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST(
            r.error().message == "events API: malformed response from /v3/users/me/events/: page_number 1 "
                                 "did not advance after page 1; "
                                 "stopped following pages"
        );
    }
}

BOOST_FIXTURE_TEST_CASE(events_lacking_expansions_are_completed_concurrently_in_list_order, EventsFixture) {
    // Setup: a list that ignored `expand`; details answer slowly enough for requests to overlap.
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.path == "/v3/users/me/events/") {
            std::vector<std::string> list;
            for (int i = 1; i <= 6; ++i)
                list.push_back(event_json(std::to_string(i), i == 3));
            return {200, events_page(list, numbered(1, 1))};
        }
        auto id = r.path.substr(std::string("/v3/events/").size());
        id.pop_back();
        if (r.param("expand") != "venue,ticket_availability,organizer")
            return {400, R"({"error":"ARGUMENTS_ERROR"})"};
        return {200, event_json(id, true, "Detail " + id), std::chrono::milliseconds(100)};
    });

    auto r = fetch(up);

    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(
        test::ids_of(*r) == (std::vector<std::string>{"1", "2", "3", "4", "5", "6"}),
        boost::test_tools::per_element()
    );
    for (auto const& e : *r) {
        BOOST_TEST_REQUIRE(e.venue.has_value());
        BOOST_TEST(e.venue->name == (e.id == "3" ? "Hall" : "Detail " + e.id));
        BOOST_TEST(e.organizer_name == "Org");
    }
    BOOST_TEST(up.requests().size() == 6u); // the list and 5 details; event 3 was complete
    // Sequential requests would never overlap; HttpClient allows max_concurrency (4) at once.
    BOOST_TEST(up.max_in_flight() > 1);
}

BOOST_FIXTURE_TEST_CASE(ticket_classes_are_fetched_per_event_across_pages, EventsFixture) {
    feed.ticket_classes = true;
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.path == "/v3/users/me/events/")
            return {200, events_page({event_json("1", true), event_json("2", true)}, numbered(1, 1))};
        if (r.path == "/v3/events/1/ticket_classes/") {
            if (r.param("continuation") == "tc-2")
                return {
                    200,
                    R"({"pagination":{"has_more_items":false},"ticket_classes":[{"id":"t3","name":"Late","free":false,"cost":{"currency":"EUR","value":2500,"major_value":"25.00"}}]})"};
            return {
                200,
                R"({"pagination":{"has_more_items":true,"continuation":"tc-2"},"ticket_classes":[{"id":"t1","name":"Early","free":false,"cost":{"currency":"EUR","value":1500,"major_value":"15.00"}},{"id":"t2","name":"Free","free":true,"cost":null}]})"};
        }
        if (r.path == "/v3/events/2/ticket_classes/")
            return {200, test::read_fixture("events/ticket_classes_gbe.json")};
        return {404, R"({"error":"NOT_FOUND"})"};
    });

    auto r = fetch(up);

    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST_REQUIRE(r->size() == 2u);
    auto const& first = (*r)[0].ticket_classes;
    BOOST_TEST_REQUIRE(first.size() == 3u);
    BOOST_TEST(first[0].cost->minor == 1500);
    BOOST_TEST(first[1].free);
    BOOST_TEST(first[2].name == "Late");
    BOOST_TEST((*r)[1].ticket_classes.size() == 2u);
}

BOOST_FIXTURE_TEST_CASE(search_passes_params_window_and_expand_percent_encoded, EventsFixture) {
    feed.select = "search";
    feed.window = std::chrono::days(90);
    feed.params = {
        {"q", "rust & c++"},
        {"location.address", "San Francisco, CA"},
        {"categories", ""},
        {"location.within", "25mi"}};
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.path == "/v3/events/search/")
            return {200, test::read_fixture("events/search_fx_srch.json")};
        return {200, event_json("46990677381", true)};
    });

    auto r = fetch(up);

    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    auto reqs = up.requests();
    // The event came without expansions, so it was completed with a detail request.
    BOOST_TEST_REQUIRE(reqs.size() == 2u);
    BOOST_TEST(reqs[1].path == "/v3/events/46990677381/");
    auto const& q = reqs[0];
    BOOST_TEST(q.path == "/v3/events/search/");
    std::vector<std::pair<std::string, std::string>> const expected{
        {"q", "rust & c++"},
        {"location.address", "San Francisco, CA"},
        {"location.within", "25mi"},
        {"start_date.range_start", "2026-11-22T10:00:00"},
        {"start_date.range_end", "2027-02-20T10:00:00"},
        {"expand", "venue,ticket_availability,organizer"},
    };
    BOOST_TEST_REQUIRE(q.query.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        BOOST_TEST(q.query[i].first == expected[i].first);
        BOOST_TEST(q.query[i].second == expected[i].second);
    }
    // Encoded on the wire: '&' and '+' inside a value must not split or turn into spaces.
    BOOST_TEST(q.target.find("q=rust%20%26%20c%2B%2B") != std::string::npos, q.target);
}

BOOST_FIXTURE_TEST_CASE(auth_failures_and_retired_endpoints_give_clear_messages, EventsFixture) {
    {
        ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
            return {
                401,
                R"({"status_code":401,"error":"NO_AUTH","error_description":"An OAuth token is required for all requests"})"};
        });
        auto r = fetch(up);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST((r.error().code == errc::upstream_auth));
        BOOST_TEST(
            r.error().message.find("events API rejected the token (401 NO_AUTH)") == 0u,
            r.error().message
        );
    }
    {
        ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
            return {
                403,
                R"({"error_description": "This user is not able to use legacy user endpoints, please use the organization equivalent.", "status_code": 403, "error": "NOT_AUTHORIZED"})"};
        });
        auto r = fetch(up);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST((r.error().code == errc::upstream_auth));
        BOOST_TEST(
            r.error().message.find(R"(select = "organization")") != std::string::npos,
            r.error().message
        );
    }
    {
        feed.select = "search";
        ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
            return {404, R"({"status_code":404,"error":"NOT_FOUND","error_description":"Invalid URL"})"};
        });
        auto r = fetch(up);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST((r.error().code == errc::upstream_not_found));
        BOOST_TEST(r.error().message.find("shut down") != std::string::npos, r.error().message);
    }
    {
        feed.select = "organizer";
        ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
            // An error page that echoes the request, Authorization header included.
            return {200, "<html>Bearer " + token + "</html>"};
        });
        auto r = fetch(up);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST((r.error().code == errc::upstream_malformed));
        BOOST_TEST(
            r.error().message.find("events API: malformed response from /v3/users/me/events/: not JSON") == 0u
        );
    }
}

BOOST_AUTO_TEST_CASE(organizer_and_organization_lists_of_the_fake_upstream) {
    // Setup: small pages, and lists that drop `expand`, so paging and completion both happen.
    test::FakeUpstreamOptions opts;
    opts.events_page_size = 7;
    opts.ignore_expand = true;
    opts.now = now;
    test::FakeUpstream fake(opts);
    test::SourceFixture f(SourceType::events, opts.events_token, "organizer");
    f.feed.keep_past = std::chrono::seconds(0); // one list, so the last page's count is the whole list's
    f.src.base_url = fake.base_url();
    auto fetch = [&] {
        return test::run_source<std::vector<Event>, EventsSource>(f.src, f.logs, [&](EventsSource& s) {
            return s.fetch(f.ask(), now, f.record_progress());
        });
    };

    for (std::string select : {"organizer", "organization"}) {
        BOOST_TEST_CONTEXT("select = " << select) {
            f.feed.select = select;
            f.progress.clear();
            fake.clear_requests();

            auto r = fetch();

            BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
            auto const got = test::ids_of(*r);
            BOOST_TEST(std::set<std::string>(got.begin(), got.end()).size() == got.size());
            BOOST_TEST_REQUIRE(f.progress.size() >= 2u);
            BOOST_TEST((f.progress.back().total == got.size()));
            auto const reqs = fake.requests();
            std::size_t details = 0;
            for (auto const& q : reqs) {
                BOOST_TEST(q.authorization == "Bearer " + opts.events_token);
                if (q.path.rfind("/v3/events/", 0) == 0)
                    ++details;
            }
            BOOST_TEST(details >= got.size() / 2); // most events were completed one by one
            bool const continued = std::any_of(reqs.begin(), reqs.end(), [](auto const& q) {
                return std::any_of(q.query.begin(), q.query.end(), [](auto const& kv) {
                    return kv.first == "continuation";
                });
            });
            // Both lists give a page count and tokens, like the service, and take page numbers: pages 2..N
            // go by number (token_paging_test covers the endpoints that refuse them).
            BOOST_TEST(!continued);
            bool const numbered = std::any_of(reqs.begin(), reqs.end(), [](auto const& q) {
                return std::any_of(q.query.begin(), q.query.end(), [](auto const& kv) {
                    return kv.first == "page";
                });
            });
            BOOST_TEST(numbered);
        }
    }

    // A wrong token: the fake answers like the service, and the message says what to fix.
    f.src.secret = "not-the-demo-token";
    auto r = fetch();
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_auth));
    BOOST_TEST(r.error().message.find("events API rejected the token") == 0u, r.error().message);
}

BOOST_AUTO_TEST_SUITE_END()
