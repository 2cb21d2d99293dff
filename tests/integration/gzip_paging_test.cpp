// File: gzip_paging_test.cpp
// Pages answered with Content-Encoding: gzip. Where a numbered list is parsed on another thread (`serve`),
// the client keeps each 2xx page gzipped (HttpRequest::keep_gzip) and the parser thread inflates it: the
// same events in page order as when the client decodes them, and a corrupt page fails the refresh with the
// client's own message, naming the list's path and no secret.
#include "integration/scripted_upstream.hpp"
#include "integration/source_harness.hpp"
#include "store/gzip.hpp"
#include "support/run_coro.hpp"
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

namespace gzip_paging_test {

std::string const token = "gzip-paging-token-3141";
sys_seconds const now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 22};
constexpr int page_count = 9;

// Page n of a counted list: events n*10+0..2; later pages answer sooner (answers out of page order).
ScriptedReply page(ScriptedRequest const& r, bool gzip) {
    auto const p = r.param("page");
    int const n = p.empty() ? 1 : std::stoi(p);
    std::vector<std::string> events;
    for (int id : {n * 10, n * 10 + 1, n * 10 + 2})
        events.push_back(test::UpstreamEvent(std::to_string(id)).json());
    std::string const pagination = R"({"page_number":)" + std::to_string(n) + R"(,"page_count":)" +
                                   std::to_string(page_count) + R"(,"has_more_items":)" +
                                   (n < page_count ? "true" : "false") + "}";
    ScriptedReply reply{
        200,
        test::events_page(events, pagination),
        std::chrono::milliseconds((page_count - n) * 10)};
    if (gzip) {
        reply.body = gzip_compress(reply.body);
        reply.headers.emplace_back("Content-Encoding", "gzip");
    }
    return reply;
}

Result<std::vector<Event>> fetch(
    ScriptedUpstream::Handler handler, std::optional<boost::asio::any_io_executor> parse_on = std::nullopt
) {
    ScriptedUpstream up(std::move(handler));
    test::SourceFixture f(SourceType::events, token, "organizer");
    f.src.base_url = up.base_url();
    f.src.max_concurrency = 4;
    f.feed.keep_past = std::chrono::seconds(0); // one list
    return test::run_source<std::vector<Event>, EventsSource>(f.src, f.logs, [&](EventsSource& s) {
        if (parse_on)
            s.parse_pages_on(*parse_on);
        return s.fetch(f.ask(), now, {});
    });
}

ClientOptions options() {
    ClientOptions o;
    o.service_name = "events API";
    o.retry.max_attempts = 1;
    return o;
}

} // namespace gzip_paging_test

BOOST_AUTO_TEST_SUITE(gzip_paging_test)

BOOST_AUTO_TEST_CASE(only_a_2xx_answer_asked_for_is_kept_gzipped_and_decode_body_inflates_it) {
    std::string const payload = std::string(5000, 'x') + "{\"caf\xc3\xa9\": 1}";
    ScriptedUpstream up([&](ScriptedRequest const& r) -> ScriptedReply {
        return {
            r.path == "/missing" ? 404U : 200U,
            gzip_compress(payload),
            {},
            {{"Content-Encoding", "gzip"}}};
    });
    auto const ok_url = up.base_url() + "/ok?api_key=" + token;
    test::run_coro([&](boost::asio::any_io_executor ex) -> boost::asio::awaitable<void> {
        HttpClient client(ex, options());
        HttpRequest kept(ok_url);
        kept.keep_gzip = true;
        auto r = co_await client.get(kept);
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(r->content_encoding == "gzip");
        BOOST_TEST((r->body == gzip_compress(payload)));
        auto body = client.decode_body(*r, ok_url);
        BOOST_TEST_REQUIRE(body.has_value());
        BOOST_TEST((*body == payload));

        // Not asked for, or not a 2xx: decoded by the client as before.
        auto plain = co_await client.get(HttpRequest(ok_url));
        BOOST_TEST_REQUIRE(plain.has_value());
        BOOST_TEST(plain->content_encoding.empty());
        BOOST_TEST((plain->body == payload));
        HttpRequest missing(up.base_url() + "/missing");
        missing.keep_gzip = true;
        auto err = co_await client.get(missing);
        BOOST_TEST_REQUIRE(err.has_value());
        BOOST_TEST(err->status == 404U);
        BOOST_TEST(err->content_encoding.empty());
        BOOST_TEST((err->body == payload));

        // Corrupt: the client's message, with the URL redacted.
        HttpResponse bad = *r;
        bad.body[bad.body.size() / 2] ^= 0x55;
        bad.body[bad.body.size() / 2 + 1] ^= 0x55;
        auto corrupt = client.decode_body(bad, ok_url);
        BOOST_TEST_REQUIRE(corrupt.has_error());
        BOOST_TEST((corrupt.error().code == errc::upstream_io));
        BOOST_TEST(
            corrupt.error().message.find("events API: corrupt gzip body in the response to GET http://") == 0,
            corrupt.error().message
        );
        BOOST_TEST(corrupt.error().message.find("/ok?") != std::string::npos, corrupt.error().message);
        BOOST_TEST(corrupt.error().message.find(token) == std::string::npos, corrupt.error().message);
    });
    // The same limit as the client's own decode.
    test::run_coro([&](boost::asio::any_io_executor ex) -> boost::asio::awaitable<void> {
        auto o = options();
        o.max_body = 1000;
        HttpClient small(ex, o);
        HttpResponse big;
        big.status = 200;
        big.content_encoding = "gzip";
        big.body = gzip_compress(payload);
        auto r = small.decode_body(big, ok_url);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST((r.error().code == errc::upstream_too_large));
        co_return;
    });
}

BOOST_AUTO_TEST_CASE(gzip_pages_parsed_on_another_thread_give_the_control_thread_s_events_in_page_order) {
    boost::asio::thread_pool parsers(2);
    auto const plain = fetch([](ScriptedRequest const& r) { return page(r, false); });
    auto const here = fetch([](ScriptedRequest const& r) { return page(r, true); });
    auto const there = fetch([](ScriptedRequest const& r) { return page(r, true); }, parsers.get_executor());
    BOOST_TEST_REQUIRE(plain.has_value());
    BOOST_TEST_REQUIRE(here.has_value(), (here ? std::string() : here.error().message));
    BOOST_TEST_REQUIRE(there.has_value(), (there ? std::string() : there.error().message));
    auto const ids = test::ids_of(*plain);
    BOOST_TEST_REQUIRE(ids.size() == std::size_t(page_count * 3));
    BOOST_TEST(ids.front() == "10");
    BOOST_TEST(test::ids_of(*here) == ids, boost::test_tools::per_element());
    BOOST_TEST(test::ids_of(*there) == ids, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_corrupt_gzip_page_parsed_elsewhere_fails_the_refresh_naming_the_list_s_path) {
    boost::asio::thread_pool parsers(1);
    auto r = fetch(
        [](ScriptedRequest const& q) {
            auto reply = page(q, true);
            if (q.param("page") == "5")
                reply.body = reply.body.substr(0, 10) + std::string(200, '\x7f'); // gzip header, then junk
            return reply;
        },
        parsers.get_executor()
    );
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_io));
    auto const& m = r.error().message;
    BOOST_TEST(m.find("corrupt gzip body in the response to GET http://") != std::string::npos, m);
    BOOST_TEST(m.find("/v3/users/me/events/") != std::string::npos, m);
    BOOST_TEST(m.find("page=5") != std::string::npos, m);
    BOOST_TEST(m.find(token) == std::string::npos, m);
}

BOOST_AUTO_TEST_SUITE_END()
