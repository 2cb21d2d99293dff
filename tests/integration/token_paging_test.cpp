// File: token_paging_test.cpp
// Lists paged like the real events API — `page_count` and a `continuation` token on every page — read from
// the fake upstream over loopback: pages 2..N by number, several at a time, where the endpoint takes page
// numbers (tried once, then remembered); by token where it refuses them (400) or ignores them (answers
// another page); and read again by token when items move while the pages are read, so that no event is
// lost or doubled.
#include "fake_upstream/fake_upstream.hpp"
#include "integration/source_harness.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <vector>

using namespace icsbridge;
using icsbridge::test::FakeUpstream;
using icsbridge::test::FakeUpstreamOptions;
using icsbridge::test::RecordedRequest;
namespace fake = icsbridge::test::fake;

namespace token_paging_test {

sys_seconds const now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 22};
constexpr int events = 95; // 10 pages of 10, the last one short

FakeUpstreamOptions options() {
    FakeUpstreamOptions o;
    o.generate_events = events;
    o.events_page_size = 10;
    o.now = now;
    return o;
}

// What the fake saw of one fetch: the page parameter of each list request ("" for none), and whether any
// list request carried a continuation token.
struct Seen {
    std::vector<std::string> pages;
    std::size_t by_token = 0;
    int max_in_flight = 0;
};

Seen seen(FakeUpstream& up) {
    Seen out;
    for (RecordedRequest const& r : up.requests()) {
        if (r.path != "/v3/users/me/events/")
            continue;
        std::string page;
        for (auto const& [k, v] : r.query) {
            if (k == "page")
                page = v;
            if (k == "continuation")
                ++out.by_token;
        }
        out.pages.push_back(page);
    }
    out.max_in_flight = up.max_in_flight();
    up.clear_requests();
    return out;
}

std::size_t numbered(Seen const& s) {
    return static_cast<std::size_t>(std::count_if(s.pages.begin(), s.pages.end(), [](auto const& p) {
        return !p.empty();
    }));
}

// Fetches the organizer feed `times` times with ONE EventsSource (its memory of page numbers carries over),
// `seen` after each fetch, and returns the ids of each.
struct Fetches {
    std::vector<std::vector<std::string>> ids;
    std::vector<Seen> seen;
    std::string log;
};

Fetches fetch(FakeUpstream& up, int concurrency, int times = 1) {
    test::SourceFixture f(SourceType::events, "demo-events-token", "organizer");
    f.src.base_url = up.base_url();
    f.src.max_concurrency = concurrency;
    f.feed.keep_past = std::chrono::seconds(0); // one list: everything not yet ended
    Fetches out;
    test::run_coro([&](boost::asio::any_io_executor ex) -> boost::asio::awaitable<void> {
        auto opts = client_options_for(f.src);
        opts.retry.max_attempts = 1;
        HttpClient http(ex, opts, f.logs.logger());
        EventsSource source(f.src, http, f.logs.logger());
        for (int i = 0; i < times; ++i) {
            auto r = co_await source.fetch(f.ask(), now, {});
            BOOST_TEST_REQUIRE(r.has_value(), (r ? std::string() : r.error().message));
            out.ids.push_back(test::ids_of(*r));
            out.seen.push_back(seen(up));
        }
    });
    out.log = f.logs.joined();
    BOOST_TEST(out.log.find(f.src.secret) == std::string::npos);
    return out;
}

// The list as a one-page-at-a-time client reads it now (the reference every other read must equal).
std::vector<std::string> one_at_a_time(FakeUpstream& up) {
    auto const r = fetch(up, 1);
    return r.ids.at(0);
}

// The `pagination` object of GET /v3/users/me/events/?QUERY on the fake.
boost::json::object pagination_of(FakeUpstream& up, std::string const& query) {
    boost::json::object out;
    test::run_coro([&](boost::asio::any_io_executor ex) -> boost::asio::awaitable<void> {
        HttpClient http(ex, ClientOptions{});
        HttpRequest req(
            up.base_url() + "/v3/users/me/events/?status=live" + query,
            {{"Authorization", "Bearer demo-events-token"}}
        );
        auto r = co_await http.get(req);
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST_REQUIRE(r->status == 200u, r->body);
        out = boost::json::parse(r->body).at("pagination").as_object();
    });
    return out;
}

void no_doubles(std::vector<std::string> const& ids) {
    std::set<std::string> const unique(ids.begin(), ids.end());
    BOOST_TEST(unique.size() == ids.size());
}

} // namespace token_paging_test

BOOST_AUTO_TEST_SUITE(token_paging_test)

BOOST_AUTO_TEST_CASE(the_fake_pages_like_the_service_with_a_count_and_a_token_on_every_page) {
    FakeUpstream up(options());
    auto const first = pagination_of(up, "");
    BOOST_TEST(first.at("page_number").as_int64() == 1);
    BOOST_TEST(first.at("page_count").as_int64() == 10);
    BOOST_TEST(first.at("object_count").as_int64() == events);
    BOOST_TEST_REQUIRE(first.at("continuation").is_string());
    // The token and page=2 lead to the same page, which has its own token.
    auto const by_token =
        pagination_of(up, "&continuation=" + std::string(first.at("continuation").as_string()));
    auto const by_number = pagination_of(up, "&page=2");
    BOOST_TEST(by_token.at("page_number").as_int64() == 2);
    BOOST_TEST(by_number.at("page_number").as_int64() == 2);
    BOOST_TEST(by_token.at("continuation") == by_number.at("continuation"));
    BOOST_TEST(by_token.at("continuation") != first.at("continuation"));
    auto const last = pagination_of(up, "&page=10");
    BOOST_TEST(!last.at("has_more_items").as_bool());
    BOOST_TEST(!last.contains("continuation"));
    // Told to ignore page numbers, page=2 is page 1.
    up.set_page_numbers(fake::PageNumbers::ignore);
    BOOST_TEST(pagination_of(up, "&page=2").at("page_number").as_int64() == 1);
}

BOOST_AUTO_TEST_CASE(pages_come_by_number_several_at_a_time_where_numbers_are_taken) {
    FakeUpstream up(options());
    auto const reference = one_at_a_time(up);
    BOOST_TEST_REQUIRE(reference.size() == std::size_t(events));

    up.set_fault(test::Fault{test::Fault::latency, std::chrono::milliseconds(20)});
    auto const r = fetch(up, 4, 2);
    BOOST_TEST(r.ids[0] == reference, boost::test_tools::per_element());
    BOOST_TEST(r.ids[1] == reference, boost::test_tools::per_element());
    // First fetch: page 1, then 2..10 several at a time (at most 4 ahead until page 2 has shown that page
    // numbers work).
    BOOST_TEST(r.seen[0].pages.size() == 10u);
    BOOST_TEST(numbered(r.seen[0]) == 9u);
    BOOST_TEST(r.seen[0].by_token == 0u);
    BOOST_TEST(r.seen[0].max_in_flight > 1);
    BOOST_TEST(r.seen[0].max_in_flight <= 4);
    // Second fetch: remembered; the same pages.
    BOOST_TEST(numbered(r.seen[1]) == 9u);
    BOOST_TEST(r.seen[1].by_token == 0u);
}

BOOST_AUTO_TEST_CASE(refused_or_ignored_page_numbers_go_on_by_token_and_are_not_tried_again) {
    // refuse: 400 BAD_PAGE for any page=N; ignore: page=N answered with page 1 (caught by its page_number).
    for (auto mode : {fake::PageNumbers::refuse, fake::PageNumbers::ignore}) {
        BOOST_TEST_CONTEXT("page numbers: " << fake::page_numbers_name(mode)) {
            FakeUpstream up(options());
            auto const reference = one_at_a_time(up);
            up.set_page_numbers(mode);

            auto const r = fetch(up, 4, 2);
            BOOST_TEST(r.ids[0] == reference, boost::test_tools::per_element());
            BOOST_TEST(r.ids[1] == reference, boost::test_tools::per_element());
            // Page 1, page=2 not answered as asked (and 3..5, sent with it, dropped), then pages 2..10 by
            // token; next time tokens only.
            BOOST_TEST(numbered(r.seen[0]) >= 1u);
            BOOST_TEST(numbered(r.seen[0]) <= 4u);
            BOOST_TEST(r.seen[0].by_token == 9u);
            BOOST_TEST(numbered(r.seen[1]) == 0u);
            BOOST_TEST(r.seen[1].by_token == 9u);
            BOOST_TEST(r.log.find("did not answer page=2") != std::string::npos, r.log);
        }
    }
}

BOOST_AUTO_TEST_CASE(events_added_or_ended_while_the_pages_travel_are_neither_lost_nor_doubled) {
    // After page 1 has been answered, 3 events appear at the head (every later page by number would hold 3
    // events of the page before it, and the 3 would be missed), or page 1's first 4 events end (pages by
    // number would skip the 4 events that slid onto page 1, and keep the ended ones).
    struct Case {
        fake::ListShift shift;
        std::size_t listed_after;
    };
    for (auto const& c : {Case{{3, 0, 1}, events}, Case{{0, 4, 1}, events - 4}}) {
        BOOST_TEST_CONTEXT("added " << c.shift.add << ", ended " << c.shift.remove) {
            FakeUpstream up(options());
            up.set_shift(c.shift);
            auto const r = fetch(up, 4);
            auto const after = one_at_a_time(up); // the list as it is now
            BOOST_TEST_REQUIRE(after.size() == c.listed_after);
            BOOST_TEST(r.ids[0] == after, boost::test_tools::per_element());
            no_doubles(r.ids[0]);
            // Page 1, page=2 (its counts differ from page 1's), then the list again from page 1 by token.
            BOOST_TEST(r.seen[0].pages.front().empty());
            BOOST_TEST(r.seen[0].by_token == 9u);
            BOOST_TEST(r.seen[0].pages.size() - numbered(r.seen[0]) == 2u + 9u); // page 1 twice, 9 by token
            BOOST_TEST(r.log.find("reading it again by continuation token") != std::string::npos, r.log);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_list_read_by_token_is_not_disturbed_by_items_moving) {
    FakeUpstream up(options());
    up.set_page_numbers(fake::PageNumbers::refuse);
    up.set_shift(fake::ListShift{0, 4, 3});
    auto const r = fetch(up, 4);
    // The token is a cursor: the 4 events that ended before it do not move it, nothing is skipped.
    BOOST_TEST(r.ids[0].size() == std::size_t(events));
    no_doubles(r.ids[0]);
}

BOOST_AUTO_TEST_SUITE_END()
