// File: webpush_client_test.cpp
// The push messages' wire (webpush::PushClient) against scripted loopback servers: a push resource on a
// private address or over http is refused before any connection is made; with push_allow_private (tests) the
// answer is read over verified TLS on a kept-alive connection; a redirect is an answer, never followed; a
// Retry-After is read.
#include "support/fixtures.hpp"
#include "support/run_coro.hpp"
#include "support/tls_server.hpp"
#include "webpush/address.hpp"
#include "webpush/push_client.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>

namespace webpush_client_test {

using namespace icsbridge;
using namespace icsbridge::test;
using namespace icsbridge::webpush;
using namespace std::chrono_literals;
namespace net = boost::asio;

ClientOptions options() {
    ClientOptions o;
    o.service_name = "push service";
    o.resolve_timeout = 2s;
    o.connect_timeout = 2s;
    o.handshake_timeout = 2s;
    o.io_timeout = 2s;
    o.request_timeout = 5s;
    return o;
}

AddressRule public_only() {
    return [](net::ip::address const& a) { return webpush::is_public(a); };
}

PushRequest message(std::string url) {
    // No body: the scripted server reads request heads only, so a kept-alive connection stays in step.
    return PushRequest{
        std::move(url),
        {{"TTL", "86400"}, {"Topic", "abc"}, {"Authorization", "vapid t=x, k=y"}},
        ""};
}

/** @brief Answers every request with `response`, counting the requests and keeping the last head. */
struct Answering {
    explicit Answering(std::string response)
        : response(std::move(response)) {}
    std::string response;
    std::atomic<int> requests{0};
    std::shared_ptr<std::string> last_head = std::make_shared<std::string>();
    ScriptedServer::Script script() {
        return [this](ServerConn& c) -> net::awaitable<void> {
            while (auto req = co_await c.read_request()) {
                ++requests;
                *last_head = req->head;
                if (!co_await c.write(response))
                    co_return;
            }
        };
    }
};

BOOST_AUTO_TEST_SUITE(webpush_client_test)

BOOST_AUTO_TEST_CASE(a_private_address_is_refused_before_any_connection) {
    TempDir dir;
    auto cert = make_self_signed_cert(dir.path());
    Answering answering(http_response(201, ""));
    ScriptedServer server(answering.script(), &cert);
    run_coro([&](net::any_io_executor) -> net::awaitable<void> {
        auto opts = options();
        opts.ca_file = cert.cert_file;
        PushClient client(opts, public_only(), false, null_logger());
        // localhost: a name whose every address is loopback; 127.0.0.1: a literal.
        for (auto const& url :
             {server.url("/push/1"), "https://127.0.0.1:" + std::to_string(server.port()) + "/p"}) {
            auto r = co_await client.post(message(url));
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST((r.error().code == errc::usage));
            BOOST_TEST(
                r.error().message.find("not a public address") != std::string::npos,
                r.error().message
            );
            BOOST_TEST(r.error().message.find("/push/1") == std::string::npos, r.error().message);
        }
    });
    BOOST_TEST(server.connections() == 0);
}

BOOST_AUTO_TEST_CASE(http_is_refused_unless_private_addresses_are_allowed) {
    Answering answering(http_response(201, ""));
    ScriptedServer server(answering.script());
    run_coro([&](net::any_io_executor) -> net::awaitable<void> {
        PushClient refusing(options(), public_only(), false, null_logger());
        auto r = co_await refusing.post(message(server.url("/push/1")));
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::usage));
        BOOST_TEST(r.error().message.find("not https") != std::string::npos, r.error().message);
        BOOST_TEST(server.connections() == 0);
        PushClient allowing(options(), public_only(), true, null_logger());
        auto ok = co_await allowing.post(message(server.url("/push/1")));
        BOOST_TEST_REQUIRE(ok.has_value(), (ok ? "" : ok.error().message));
        BOOST_TEST(ok->status == 201u);
    });
    BOOST_TEST(answering.requests == 1);
}

BOOST_AUTO_TEST_CASE(tls_is_verified_and_a_connection_kept_per_origin) {
    TempDir dir;
    auto cert = make_self_signed_cert(dir.path());
    Answering answering(http_response(201, ""));
    ScriptedServer server(answering.script(), &cert);
    run_coro([&](net::any_io_executor) -> net::awaitable<void> {
        PushClient untrusting(options(), public_only(), true, null_logger());
        auto refused = co_await untrusting.post(message(server.url("/push/1")));
        BOOST_TEST_REQUIRE(!refused.has_value());
        BOOST_TEST((refused.error().code == errc::upstream_tls));
        auto opts = options();
        opts.ca_file = cert.cert_file;
        PushClient client(opts, public_only(), true, null_logger());
        for (int i = 0; i < 3; ++i) {
            auto r = co_await client.post(message(server.url("/push/1")));
            BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
            BOOST_TEST(r->status == 201u);
        }
    });
    BOOST_TEST(server.connections() == 2); // the refused handshake, then one kept for all three
    BOOST_TEST(answering.requests == 3);
    auto const& head = *answering.last_head;
    BOOST_TEST(head.rfind("POST /push/1 HTTP/1.1\r\n", 0) == 0u, head);
    BOOST_TEST(head.find("TTL: 86400\r\n") != std::string::npos, head);
    BOOST_TEST(head.find("Topic: abc\r\n") != std::string::npos, head);
}

BOOST_AUTO_TEST_CASE(a_redirect_is_an_answer_never_followed) {
    Answering target(http_response(201, ""));
    ScriptedServer elsewhere(target.script());
    Answering redirecting(http_response(307, "", "Location: " + elsewhere.url("/push/9") + "\r\n"));
    ScriptedServer server(redirecting.script());
    run_coro([&](net::any_io_executor) -> net::awaitable<void> {
        PushClient client(options(), public_only(), true, null_logger());
        auto r = co_await client.post(message(server.url("/push/1")));
        BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
        BOOST_TEST(r->status == 307u);
    });
    BOOST_TEST(redirecting.requests == 1);
    BOOST_TEST(elsewhere.connections() == 0);
}

BOOST_AUTO_TEST_CASE(a_retry_after_is_read) {
    Answering busy(http_response(429, "", "Retry-After: 7\r\n"));
    ScriptedServer server(busy.script());
    run_coro([&](net::any_io_executor) -> net::awaitable<void> {
        PushClient client(options(), public_only(), true, null_logger());
        auto r = co_await client.post(message(server.url("/push/1")));
        BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
        BOOST_TEST(r->status == 429u);
        BOOST_TEST_REQUIRE(r->retry_after.has_value());
        BOOST_TEST(r->retry_after->count() == 7);
    });
    BOOST_TEST(busy.requests == 1); // the client tries once: retries wait in delivery's schedule
}

BOOST_AUTO_TEST_CASE(a_prepared_request_is_the_whole_request_once) {
    // What the sender's encryption threads make and its own thread writes as it is.
    PushClient client(options(), public_only(), true, null_logger());
    auto req = message("http://127.0.0.1:8443/push/abc?x=1");
    req.body = std::string("\x00\x01\r\ncipher", 10);
    auto p = client.prepare(req);
    BOOST_TEST_REQUIRE(p.has_value(), (p ? "" : p.error().message));
    auto const& b = p->bytes;
    BOOST_TEST(
        b.rfind("POST /push/abc?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8443\r\nUser-Agent: icsbridge/", 0) == 0u,
        b
    );
    auto const tail =
        "\r\nTTL: 86400\r\nTopic: abc\r\nAuthorization: vapid t=x, k=y\r\nContent-Length: 10\r\n\r\n" +
        req.body;
    BOOST_TEST_REQUIRE(b.size() > tail.size());
    BOOST_TEST(b.substr(b.size() - tail.size()) == tail);
    BOOST_TEST(std::count(b.begin(), b.end(), '\n') == 9); // 7 head lines, the blank one, the body's own
    BOOST_TEST(p->target.display == "http://127.0.0.1:8443"); // the path is the subscription's capability
    // A header value cannot add a header of its own; http needs the test switch.
    req.headers.back().second = "vapid t=x\r\nX-Injected: 1";
    auto const injected = client.prepare(req);
    BOOST_TEST_REQUIRE(!injected.has_value());
    BOOST_TEST((injected.error().code == errc::usage));
    PushClient strict(options(), public_only(), false, null_logger());
    BOOST_TEST(!strict.prepare(message("http://127.0.0.1:8443/push/abc")).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace webpush_client_test
