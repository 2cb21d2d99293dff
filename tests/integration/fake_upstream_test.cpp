// File: fake_upstream_test.cpp
// The fake upstream over real loopback sockets with a plain Beast client: auth errors, both pagination
// styles, expansions, search filters, every fault kind, gzip, reload and request recording.
#include "fake_upstream/fake_upstream.hpp"
#include "support/fixtures.hpp"
#include "support/run_coro.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fake_upstream_test {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace json = boost::json;
using tcp = net::ip::tcp;
using icsbridge::test::FakeUpstream;
using icsbridge::test::Fault;
using namespace std::chrono_literals;

constexpr auto use_tuple = net::as_tuple(net::use_awaitable);
constexpr char const* events_auth = "Bearer demo-events-token";

struct Reply {
    beast::error_code ec; ///< connect/write/read failure (timeouts, resets, truncation)
    unsigned status = 0;
    http::fields headers;
    std::string body;

    json::value json() const { return json::parse(body); }
};

struct Get {
    Get(std::string t, std::string auth = {}, std::string enc = {}, std::chrono::milliseconds limit = 10s)
        : target(std::move(t))
        , authorization(std::move(auth))
        , accept_encoding(std::move(enc))
        , timeout(limit) {}
    std::string target;
    std::string authorization;
    std::string accept_encoding;
    std::chrono::milliseconds timeout;
    http::verb method = http::verb::get;
};

net::awaitable<Reply> fetch_on(beast::tcp_stream& stream, Get const& g) {
    Reply r;
    http::request<http::empty_body> req{g.method, g.target, 11};
    req.set(http::field::host, "127.0.0.1");
    if (!g.authorization.empty())
        req.set(http::field::authorization, g.authorization);
    if (!g.accept_encoding.empty())
        req.set(http::field::accept_encoding, g.accept_encoding);
    stream.expires_after(g.timeout);
    std::tie(r.ec, std::ignore) = co_await http::async_write(stream, req, use_tuple);
    if (r.ec)
        co_return r;
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 << 20);
    std::tie(r.ec, std::ignore) = co_await http::async_read(stream, buffer, parser, use_tuple);
    if (r.ec)
        co_return r;
    auto res = parser.release();
    r.status = res.result_int();
    r.headers = res.base();
    r.body = std::move(res.body());
    co_return r;
}

net::awaitable<Reply> fetch(unsigned short port, Get g) {
    beast::tcp_stream stream(co_await net::this_coro::executor);
    stream.expires_after(g.timeout);
    auto [ec] =
        co_await stream.async_connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), use_tuple);
    if (ec) {
        Reply r;
        r.ec = ec;
        co_return r;
    }
    co_return co_await fetch_on(stream, g);
}

// Runs one request to completion (with a deadline) from a synchronous test body.
Reply get(FakeUpstream const& fake, Get g) {
    Reply out;
    icsbridge::test::run_coro([&](auto) -> net::awaitable<void> { out = co_await fetch(fake.port(), g); });
    return out;
}

Reply events_get(FakeUpstream const& fake, std::string target) {
    return get(fake, {"/v3" + target, events_auth});
}

Reply jobs_get(FakeUpstream const& fake, std::string target) {
    target += (target.find('?') == std::string::npos ? "?" : "&");
    return get(fake, {target + "api_key=demo-jobs-key"});
}

std::string str(json::value const& v, std::string_view key) {
    return std::string(v.at(key).as_string());
}

// The fixture's events, straight from the file, as the oracle for what the server must list.
json::array fixture_events() {
    return json::parse(icsbridge::test::read_fixture("upstream/events/events.json")).at("events").as_array();
}

// As the service: an event that has started is no longer `live` (issue: events through their whole life).
bool is_live(json::value const& ev) {
    return str(ev, "status") == "live";
}

} // namespace fake_upstream_test

BOOST_AUTO_TEST_SUITE(fake_upstream_test)

BOOST_AUTO_TEST_CASE(events_auth_errors_have_the_service_shapes) {
    FakeUpstream fake;
    // Run
    auto missing = get(fake, {"/v3/users/me/events/?status=live"});
    auto wrong = get(fake, {"/v3/users/me/events/?status=live", "Bearer not-the-token"});
    auto unknown = events_get(fake, "/nothing/here/");
    auto no_org = events_get(fake, "/organizations/1/events/?status=live");
    // Check
    BOOST_TEST(missing.status == 401u);
    BOOST_TEST(str(missing.json(), "error") == "NO_AUTH");
    BOOST_TEST(missing.json().at("status_code").as_int64() == 401);
    BOOST_TEST(wrong.status == 400u);
    BOOST_TEST(str(wrong.json(), "error") == "INVALID_AUTH");
    BOOST_TEST(unknown.status == 404u);
    BOOST_TEST(str(unknown.json(), "error") == "NOT_FOUND");
    BOOST_TEST(no_org.status == 404u);
    BOOST_TEST(
        str(no_org.json(), "error_description") == "The organization_id you requested does not exist."
    );
}

BOOST_AUTO_TEST_CASE(job_board_rejects_a_missing_or_wrong_api_key) {
    FakeUpstream fake;
    auto missing = get(fake, {"/api/posts/recent/"});
    auto wrong = get(fake, {"/api/categories/?api_key=nope"});
    auto unknown = jobs_get(fake, "/api/posts/1/");
    BOOST_TEST(missing.status == 403u);
    BOOST_TEST(json::serialize(missing.json()) == R"({"stat":"fail","code":1,"desc":"Invalid API key"})");
    BOOST_TEST(wrong.status == 403u);
    BOOST_TEST(unknown.status == 404u);
    BOOST_TEST(unknown.json().at("code").as_int64() == 2);
}

BOOST_AUTO_TEST_CASE(page_number_paging_visits_every_live_event_once) {
    FakeUpstream fake;
    std::multiset<std::string> seen;
    int pages = 0;
    // Run
    for (int page = 1;; ++page) {
        auto r = events_get(fake, "/users/me/events/?status=live&page=" + std::to_string(page));
        BOOST_TEST_REQUIRE(r.status == 200u);
        auto const body = r.json();
        for (auto const& ev : body.at("events").as_array())
            seen.insert(str(ev, "id"));
        ++pages;
        auto const& p = body.at("pagination");
        BOOST_TEST(p.at("page_number").as_int64() == page);
        if (!p.at("has_more_items").as_bool())
            break;
        BOOST_TEST_REQUIRE(page < 20);
    }
    // Check
    std::multiset<std::string> expected;
    for (auto const& ev : fixture_events())
        if (is_live(ev))
            expected.insert(str(ev, "id"));
    BOOST_TEST(seen == expected);
    BOOST_TEST(pages >= 3);
    auto past_end = events_get(fake, "/users/me/events/?status=live&page=" + std::to_string(pages + 1));
    BOOST_TEST(past_end.status == 400u);
    BOOST_TEST(str(past_end.json(), "error") == "BAD_PAGE");
}

BOOST_AUTO_TEST_CASE(continuation_paging_visits_every_organization_event_once) {
    FakeUpstream fake;
    auto orgs = events_get(fake, "/users/me/organizations/");
    BOOST_TEST_REQUIRE(orgs.status == 200u);
    auto const org = str(orgs.json().at("organizations").at(0), "id");
    std::multiset<std::string> seen;
    std::string continuation;
    int pages = 0;
    // Run
    for (;;) {
        auto target = "/organizations/" + org + "/events/?status=live";
        if (!continuation.empty())
            target += "&continuation=" + continuation;
        auto r = events_get(fake, target);
        BOOST_TEST_REQUIRE(r.status == 200u);
        auto const body = r.json();
        for (auto const& ev : body.at("events").as_array())
            seen.insert(str(ev, "id"));
        ++pages;
        auto const& p = body.at("pagination").as_object();
        if (!p.at("has_more_items").as_bool()) {
            BOOST_TEST(!p.contains("continuation"));
            break;
        }
        continuation = str(p, "continuation");
        BOOST_TEST_REQUIRE(pages < 20);
    }
    // Check
    std::multiset<std::string> expected;
    for (auto const& ev : fixture_events())
        if (is_live(ev) && str(ev, "organization_id") == org)
            expected.insert(str(ev, "id"));
    BOOST_TEST(seen == expected);
    BOOST_TEST(pages >= 3);
    auto bad = events_get(fake, "/organizations/" + org + "/events/?status=live&continuation=garbage");
    BOOST_TEST(bad.status == 400u);
    BOOST_TEST(str(bad.json(), "error") == "BAD_CONTINUATION_TOKEN");
}

BOOST_AUTO_TEST_CASE(expand_is_honoured_and_ignore_expand_drops_it_from_lists) {
    FakeUpstream fake;
    auto const first = str(fixture_events().at(0), "id");
    // Run
    auto plain = events_get(fake, "/events/" + first + "/");
    auto expanded = events_get(fake, "/events/" + first + "/?expand=venue,organizer");
    auto list = events_get(fake, "/users/me/events/?status=live&expand=venue,ticket_availability");
    fake.set_ignore_expand(true);
    auto list_ignored = events_get(fake, "/users/me/events/?status=live&expand=venue,ticket_availability");
    auto detail_ignored = events_get(fake, "/events/" + first + "/?expand=venue");
    // Check
    auto const p = plain.json().as_object();
    BOOST_TEST(!p.contains("venue"));
    BOOST_TEST(!p.contains("organizer"));
    BOOST_TEST(!p.contains("ticket_availability"));
    auto const e = expanded.json().as_object();
    BOOST_TEST(e.at("venue").is_object());
    BOOST_TEST(e.at("organizer").is_object());
    BOOST_TEST(!e.contains("ticket_availability"));
    int with_venue = 0;
    auto const list_json = list.json();
    for (auto const& ev : list_json.at("events").as_array()) {
        BOOST_TEST(ev.as_object().contains("ticket_availability"));
        with_venue += ev.as_object().contains("venue");
    }
    BOOST_TEST(with_venue > 0);
    auto const list_ignored_json = list_ignored.json();
    for (auto const& ev : list_ignored_json.at("events").as_array()) {
        BOOST_TEST(!ev.as_object().contains("venue"));
        BOOST_TEST(!ev.as_object().contains("ticket_availability"));
    }
    BOOST_TEST(detail_ignored.json().as_object().contains("venue"));
}

BOOST_AUTO_TEST_CASE(search_filters_by_text_category_place_and_date) {
    FakeUpstream fake;
    // Run
    auto rust = events_get(
        fake,
        "/events/search/?q=RUST&location.address=San+Francisco&location.within=25mi&categories=102"
    );
    auto march = events_get(
        fake,
        "/events/search/"
        "?start_date.range_start=2027-03-01T00:00:00&start_date.range_end=2027-03-31T23:59:59&page_size=100"
    );
    auto bad_date = events_get(fake, "/events/search/?start_date.range_start=tomorrow");
    // Check
    BOOST_TEST_REQUIRE(rust.status == 200u);
    auto const hits = rust.json().at("events").as_array();
    BOOST_TEST(hits.size() >= 2u);
    for (auto const& ev : hits) {
        auto const text =
            str(ev.at("name"), "text") + " " +
            (ev.at("description").at("text").is_string() ? str(ev.at("description"), "text") : "");
        BOOST_TEST(text.find("Rust") != std::string::npos);
        BOOST_TEST(str(ev, "category_id") == "102");
        BOOST_TEST(str(ev, "venue_id") != "");
    }
    BOOST_TEST(str(rust.json().at("location"), "address") == "San Francisco");
    std::set<std::string> expected, got;
    for (auto const& ev : fixture_events()) {
        auto const local = str(ev.at("start"), "local");
        if (local >= "2027-03-01T00:00:00" && local <= "2027-03-31T23:59:59")
            expected.insert(str(ev, "id"));
    }
    auto const march_json = march.json();
    for (auto const& ev : march_json.at("events").as_array())
        got.insert(str(ev, "id"));
    BOOST_TEST(got == expected);
    BOOST_TEST(!expected.empty());
    BOOST_TEST(bad_date.status == 400u);
    BOOST_TEST(str(bad_date.json(), "error") == "ARGUMENTS_ERROR");
}

BOOST_AUTO_TEST_CASE(job_board_search_recent_and_taxonomies) {
    FakeUpstream fake;
    // Run
    auto search =
        jobs_get(fake, "/api/posts/search/?keywords=designer,nomatchword&category=3&perpage=5&page=2");
    auto recent = jobs_get(fake, "/api/posts/recent/?perpage=100");
    auto categories = jobs_get(fake, "/api/categories/");
    auto tags = jobs_get(fake, "/api/tags/");
    auto one = jobs_get(fake, "/api/posts/25963/");
    // Check
    auto const s = search.json().at("listings");
    BOOST_TEST(str(s, "perpage") == "5");
    BOOST_TEST(s.at("page").as_int64() == 2);
    BOOST_TEST(s.at("total").as_int64() > 5);
    for (auto const& l : s.at("listing").as_array())
        BOOST_TEST(str(l.at("category"), "id") == "3");
    auto const all = recent.json().at("listings").at("listing").as_array();
    BOOST_TEST(all.size() >= 55u);
    for (std::size_t i = 1; i < all.size(); ++i)
        BOOST_TEST(str(all[i - 1], "post_date") >= str(all[i], "post_date"));
    BOOST_TEST(categories.json().at("categories").at("category").as_array().size() > 0u);
    BOOST_TEST(tags.json().at("tags").at("tag").at(0).at("count").is_int64());
    BOOST_TEST(str(one.json().at("listing"), "title") == "Front-End Designer/Developer");
    BOOST_TEST(str(one.json(), "stat") == "ok");
}

BOOST_AUTO_TEST_CASE(status_faults_carry_status_and_retry_after_then_expire) {
    FakeUpstream fake;
    fake.set_fault(Fault{Fault::status429, {}, 7, 1});
    auto limited = events_get(fake, "/users/me/events/?status=live");
    auto after = events_get(fake, "/users/me/events/?status=live");
    fake.set_fault(Fault{Fault::status503, {}, 3, 1});
    auto unavailable = jobs_get(fake, "/api/posts/recent/");
    fake.set_fault(Fault{Fault::status500, {}, 1, 2});
    auto broken1 = jobs_get(fake, "/api/posts/recent/");
    auto broken2 = events_get(fake, "/users/me/");
    auto healed = events_get(fake, "/users/me/");
    // Check
    BOOST_TEST(limited.status == 429u);
    BOOST_TEST(limited.headers[http::field::retry_after] == "7");
    BOOST_TEST(str(limited.json(), "error") == "HIT_RATE_LIMIT");
    BOOST_TEST(after.status == 200u);
    BOOST_TEST(unavailable.status == 503u);
    BOOST_TEST(unavailable.headers[http::field::retry_after] == "3");
    BOOST_TEST(broken1.status == 500u);
    BOOST_TEST(str(broken1.json(), "stat") == "fail");
    BOOST_TEST(broken2.status == 500u);
    BOOST_TEST(str(broken2.json(), "error") == "INTERNAL_ERROR");
    BOOST_TEST(healed.status == 200u);
}

BOOST_AUTO_TEST_CASE(reset_truncate_and_malformed_json_are_seen_by_the_client) {
    FakeUpstream fake;
    fake.set_fault(Fault{Fault::reset, {}, 1, 1});
    auto reset = events_get(fake, "/users/me/events/?status=live");
    fake.set_fault(Fault{Fault::truncate, {}, 1, 1});
    auto truncated = events_get(fake, "/users/me/events/?status=live");
    fake.set_fault(Fault{Fault::malformed_json, {}, 1, 1});
    auto malformed = jobs_get(fake, "/api/posts/recent/");
    // Check
    BOOST_TEST(reset.ec.failed());
    BOOST_TEST(truncated.ec.failed());
    BOOST_TEST(malformed.status == 200u);
    boost::system::error_code ec;
    json::parse(malformed.body, ec);
    BOOST_TEST(ec.failed());
}

BOOST_AUTO_TEST_CASE(hang_and_latency_do_not_block_other_connections) {
    FakeUpstream fake;
    fake.set_fault(Fault{Fault::hang, {}, 1, 1});
    Reply hung, other, slow;
    icsbridge::test::run_coro([&](auto ex) -> net::awaitable<void> {
        beast::tcp_stream stream(ex);
        co_await stream.async_connect(
            tcp::endpoint(net::ip::make_address("127.0.0.1"), fake.port()),
            net::use_awaitable
        );
        http::request<http::empty_body> req{http::verb::get, "/v3/users/me/", 11};
        req.set(http::field::authorization, events_auth);
        co_await http::async_write(stream, req, net::use_awaitable);
        // Wait until the fake has taken the request (and with it the one-shot hang fault).
        while (fake.requests().empty()) {
            net::steady_timer t(ex, 5ms);
            co_await t.async_wait(net::use_awaitable);
        }
        other = co_await fetch(fake.port(), {"/v3/users/me/", events_auth});
        beast::flat_buffer buffer;
        http::response<http::string_body> res;
        stream.expires_after(300ms);
        std::tie(hung.ec, std::ignore) = co_await http::async_read(stream, buffer, res, use_tuple);
        // Latency far beyond the client's patience is a timeout; without it the same request succeeds.
        fake.set_fault(Fault{Fault::latency, 5s, 1, 1});
        slow = co_await fetch(fake.port(), {"/v3/users/me/", events_auth, {}, 200ms});
    });
    BOOST_TEST(other.status == 200u);
    BOOST_TEST(hung.ec == beast::error_code(beast::error::timeout));
    BOOST_TEST(slow.ec == beast::error_code(beast::error::timeout));
    fake.set_fault(Fault{});
    BOOST_TEST(events_get(fake, "/users/me/").status == 200u);
}

BOOST_AUTO_TEST_CASE(stopping_does_not_wait_for_a_hung_connection) {
    net::io_context ioc;
    tcp::socket client(ioc);
    {
        FakeUpstream fake;
        fake.set_fault(Fault{Fault::hang, {}, 1, -1});
        client.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), fake.port()));
        http::request<http::empty_body> req{http::verb::get, "/api/tags/", 11};
        http::write(client, req);
        while (fake.requests().empty())
            std::this_thread::sleep_for(5ms);
        // Leaving the scope destroys the server while the client still waits for an answer.
    }
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    beast::error_code ec;
    http::read(client, buffer, res, ec);
    BOOST_TEST(ec.failed());
}

BOOST_AUTO_TEST_CASE(gzip_only_when_asked) {
    FakeUpstream fake;
    auto plain = events_get(fake, "/users/me/events/?status=live");
    auto zipped = get(fake, {"/v3/users/me/events/?status=live", events_auth, "gzip, deflate"});
    BOOST_TEST(plain.headers[http::field::content_encoding] == "");
    BOOST_TEST(zipped.headers[http::field::content_encoding] == "gzip");
    BOOST_TEST(icsbridge::test::gunzipped(zipped.body) == plain.body);
}

BOOST_AUTO_TEST_CASE(reload_switches_data_and_a_bad_dir_keeps_the_old) {
    FakeUpstream fake;
    icsbridge::test::TempDir tmp;
    std::filesystem::copy(
        icsbridge::test::fixture_path("upstream"),
        tmp.path(),
        std::filesystem::copy_options::recursive
    );
    auto events = fixture_events();
    events.resize(2);
    events[0].as_object()["name"] = json::object{{"text", "Renamed"}, {"html", "Renamed"}};
    std::ofstream(tmp.file("events/events.json"), std::ios::trunc)
        << json::serialize(json::object{{"events", events}});
    // Run
    BOOST_TEST_REQUIRE(fake.reload(tmp.path()));
    auto after = events_get(fake, "/users/me/events/?status=live");
    bool const bad = fake.reload(tmp.file("does-not-exist"));
    auto still = events_get(fake, "/users/me/events/?status=live");
    // Check
    BOOST_TEST(after.json().at("pagination").at("object_count").as_int64() == 2);
    BOOST_TEST(after.body.find("Renamed") != std::string::npos);
    BOOST_TEST(!bad);
    BOOST_TEST(still.body == after.body);
}

BOOST_AUTO_TEST_CASE(requests_are_recorded_with_decoded_query_and_authorization) {
    FakeUpstream fake;
    events_get(fake, "/events/search/?q=caf%C3%A9+du+nord&expand=venue");
    jobs_get(fake, "/api/tags/");
    auto const recorded = fake.requests();
    BOOST_TEST_REQUIRE(recorded.size() == 2u);
    BOOST_TEST(recorded[0].method == "GET");
    BOOST_TEST(recorded[0].path == "/v3/events/search/");
    BOOST_TEST((recorded[0].authorization == events_auth));
    BOOST_TEST_REQUIRE(recorded[0].query.size() == 2u);
    BOOST_TEST(recorded[0].query[0].second == "café du nord");
    BOOST_TEST(recorded[1].authorization.empty());
    BOOST_TEST(recorded[0].connection_id != recorded[1].connection_id);
    fake.clear_requests();
    BOOST_TEST(fake.requests().empty());
}

BOOST_AUTO_TEST_CASE(generated_events_replace_the_fixture_list) {
    icsbridge::test::FakeUpstreamOptions options;
    options.generate_events = 250;
    FakeUpstream fake(options);
    auto r = events_get(fake, "/users/me/events/?status=live&page_size=100&page=3");
    BOOST_TEST(r.json().at("pagination").at("object_count").as_int64() == 250);
    BOOST_TEST(r.json().at("events").as_array().size() == 50u);
}

BOOST_AUTO_TEST_SUITE_END()
