// File: hostile_requests_test.cpp
// Hostile clients against the real server on a loopback socket: garbage, oversized and traversing requests,
// bodies on GET, pipelining, slow and vanishing clients, a thousand idle connections. Each gets a 4xx or a
// closed connection, no log line shows a feed token, and the server still answers a normal request after.
#include "support/hostile_server.hpp"

#include <boost/test/unit_test.hpp>

#include <sys/socket.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::test;
namespace net = boost::asio;
using namespace std::chrono_literals;
using namespace std::string_literals;

BOOST_AUTO_TEST_SUITE(hostile_requests_test)

BOOST_AUTO_TEST_CASE(garbage_and_oversized_requests_get_4xx_or_a_closed_connection) {
    HostileServer s;
    std::string many_headers = "GET / HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 5000; ++i)
        many_headers += "X-H" + std::to_string(i) + ": v\r\n";
    std::vector<std::pair<std::string, std::string>> const cases = {
        {"garbage line", "THIS IS NOT HTTP AT ALL\r\n\r\n"},
        {"binary", "\x00\x01\x02\xff\r\n\r\n"s},
        {"no version", "GET /\r\n\r\n"},
        {"bad version", "GET / HTTP/9.9\r\nHost: x\r\n\r\n"},
        {"bad method", "G\x01T / HTTP/1.1\r\nHost: x\r\n\r\n"},
        {"100 KB header", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(100 * 1024, 'a') + "\r\n\r\n"},
        {"5000 headers", many_headers},
        {"64 KB URL", "GET /feeds/" + std::string(64 * 1024, 'a') + ".ics HTTP/1.1\r\nHost: x\r\n\r\n"},
        {"header without colon", "GET / HTTP/1.1\r\nHost x\r\n\r\n"},
        {"NUL in a header", "GET / HTTP/1.1\r\nHost: x\0y\r\n\r\n"s},
        {"invalid percent-encoding", "GET /feeds/%zz.ics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"},
        {"lone percent", "GET /% HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"},
        {"absolute URL",
         "GET http://evil.example/feeds/pub.ics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"},
        {"asterisk", "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"},
    };
    // Well-framed requests the router refuses (the last four) may keep the connection; they ask to close.
    for (auto const& [what, bytes] : cases) {
        auto out = round_trip(s.port, bytes);
        BOOST_TEST(refused(out), what << ": " << out.substr(0, 40));
        still_serves(s);
    }
}

BOOST_AUTO_TEST_CASE(path_traversal_never_leaves_the_feed_table) {
    HostileServer s;
    for (std::string target : {
             "/feeds/../../etc/passwd",
             "/feeds/%2e%2e/%2e%2e/etc/passwd",
             "/feeds/..%2f..%2fetc%2fpasswd.ics",
             "/feeds/%252e%252e%252f%252e%252e%252fetc%252fpasswd.ics",
             "/feeds/%2e%2e.ics",
             "/feeds/..%5c..%5cetc%5cpasswd.ics",
             "/feeds/../feeds/secret.ics",
             "/feeds/..%2fsecret.ics",
             "/feeds/secret.ics%00.ics",
             "/feeds/pub.ics%00",
             "/feeds/%00.ics",
             "/../../../../etc/passwd",
             "//etc/passwd",
         }) {
        auto out = round_trip(s.port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        BOOST_TEST(refused(out), target << ": " << out.substr(0, 40));
        BOOST_TEST(out.find("root:") == std::string::npos, target);
        BOOST_TEST(out.find("BEGIN:VCALENDAR") == std::string::npos, target);
    }
    still_serves(s);
}

BOOST_AUTO_TEST_CASE(encoded_token_names_are_redacted_in_the_access_log) {
    // Regression: the feed endpoint decodes "tok%65n" to "token", but the log redaction compared the raw
    // name, so the access log line showed the subscriber's secret.
    HostileServer s;
    for (std::string target :
         {"/feeds/secret.ics?tok%65n=s3cret-token-value",
          "/feeds/team.ics?%74oken=alice-secret-1",
          "/feeds/team.ics?TOKEN=bob-secret-2&x=1",
          "/feeds/secret.ics?token=s3cret-token-value"}) {
        auto out = round_trip(s.port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        BOOST_TEST(!out.empty(), target);
    }
    BOOST_TEST(s.logs.lines().size() >= 4u); // the requests were logged; the destructor checks the secrets
    still_serves(s);
}

BOOST_AUTO_TEST_CASE(bodies_on_get_are_refused) {
    HostileServer s;
    auto with_length =
        round_trip(s.port, "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789");
    BOOST_TEST(with_length.starts_with("HTTP/1.1 413"), with_length.substr(0, 40));
    auto chunked = round_trip(
        s.port,
        "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
        "chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\n"
    );
    BOOST_TEST(chunked.starts_with("HTTP/1.1 413"), chunked.substr(0, 40));
    // Both framings at once is a request-smuggling shape: refused, and nothing smuggled is answered.
    auto both = round_trip(
        s.port,
        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n\r\n"
    );
    BOOST_TEST(refused(both), both.substr(0, 40));
    BOOST_TEST(count(both, "HTTP/1.1 ") <= 1u);
    for (std::string framing : {
             "Content-Length: -1\r\n",
             "Content-Length: 99999999999999999999999\r\n",
             "Content-Length: 1\r\nContent-Length: 2\r\n",
             "Transfer-Encoding: gzip, chunked\r\n",
             "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
         }) {
        auto out = round_trip(s.port, "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n" + framing + "\r\n");
        BOOST_TEST(refused(out), framing << ": " << out.substr(0, 40));
        BOOST_TEST(out.find("BEGIN:VCALENDAR") == std::string::npos, framing);
    }
    still_serves(s);
}

BOOST_AUTO_TEST_CASE(http_1_0_is_answered_and_closed) {
    HostileServer s;
    Client c(s.port);
    c.send("GET /healthz HTTP/1.0\r\n\r\n");
    auto out = c.read_to_end(); // returns because the server closes, not after the 10 s timeout
    BOOST_TEST(out.starts_with("HTTP/1.0 200 OK"), out.substr(0, 40));
    BOOST_TEST(count(out, "HTTP/1.") == 1u);
    still_serves(s);
}

BOOST_AUTO_TEST_CASE(pipelined_requests_are_answered_in_order) {
    HostileServer s;
    auto out = round_trip(
        s.port,
        "GET /feeds/team.ics HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    );
    auto first = out.find("HTTP/1.1 404"), second = out.find("HTTP/1.1 404", first + 1),
         third = out.find("HTTP/1.1 200");
    BOOST_TEST(first == 0u);
    BOOST_TEST(second != std::string::npos);
    BOOST_TEST((third != std::string::npos && third > second));
    BOOST_TEST(count(out, "HTTP/1.1 ") == 3u);
}

BOOST_AUTO_TEST_CASE(a_client_sending_a_byte_a_second_is_cut_off) {
    HostileServer s; // request_timeout = 2 s
    Client c(s.port);
    std::string const request = "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n\r\n";
    std::size_t sent = 0;
    for (; sent < request.size(); ++sent) {
        if (!c.send(request.substr(sent, 1)))
            break;
        std::this_thread::sleep_for(1s);
        // The server closes on its own; a peek tells us without waiting for our 10 s timeout.
        char byte;
        if (::recv(c.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
            break;
    }
    BOOST_TEST(sent < 8u, "the server waited for " << sent << " bytes");
    BOOST_TEST(c.read_to_end().find("BEGIN:VCALENDAR") == std::string::npos);
    still_serves(s);
}

BOOST_AUTO_TEST_CASE(a_thousand_idle_connections_do_not_block_a_normal_request) {
    // All from one address here, so without the per-client cap (tested below).
    auto base = test::server_test_config();
    base.server.max_connections_per_client = 0;
    HostileServer s(30s, base); // long enough that opening them all does not outlast it
    std::vector<std::unique_ptr<Client>> idle;
    for (int i = 0; i < 1000; ++i)
        idle.push_back(std::make_unique<Client>(s.port));
    still_serves(s);
    // A few of them now send a real request: each is still served.
    for (int i = 0; i < 1000; i += 250) {
        idle[i]->send(
            "GET /feeds/team.ics?token=alice-secret-1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        );
        BOOST_TEST(idle[i]->read_to_end().starts_with("HTTP/1.1 200 OK"));
    }
    idle.clear();
    still_serves(s);
}

BOOST_AUTO_TEST_CASE(one_address_holding_half_sent_requests_is_answered_429_at_once) {
    // Issue 29 "Also": one address holding hundreds of half-sent requests made everyone wait.
    auto base = test::server_test_config();
    base.server.max_connections_per_client = 8;
    HostileServer s(30s, base); // half-sent requests would hold their connection for 30 s
    std::vector<std::unique_ptr<Client>> held;
    for (int i = 0; i < 8; ++i) {
        held.push_back(std::make_unique<Client>(s.port));
        held.back()->send("GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n");
    }
    // The ninth from the same address is answered at once (well before the 30 s request timeout).
    auto const start = std::chrono::steady_clock::now();
    Client ninth(s.port);
    auto const answer = ninth.read_to_end();
    BOOST_TEST(answer.starts_with("HTTP/1.1 429 Too Many Requests\r\n"), answer.substr(0, 40));
    BOOST_TEST(answer.find("Retry-After: 1\r\n") != std::string::npos);
    BOOST_TEST((std::chrono::steady_clock::now() - start < 5s));
    // Everyone else is served meanwhile.
    Client other(s.port, "127.0.0.2");
    other.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    BOOST_TEST(other.read_to_end().starts_with("HTTP/1.1 200 OK"));
    // A connection that ends gives its place back.
    held.pop_back();
    bool served = false;
    for (int i = 0; i < 50 && !served; ++i) {
        auto out = round_trip(s.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        served = out.starts_with("HTTP/1.1 200 OK");
        if (!served)
            std::this_thread::sleep_for(20ms);
    }
    BOOST_TEST(served);
    BOOST_TEST(s.metrics.http.get(Route::other, 429) >= 1u);
}

BOOST_AUTO_TEST_CASE(a_trusted_proxy_is_never_capped) {
    auto base = test::server_test_config();
    base.server.max_connections_per_client = 2;
    base.server.trusted_proxies = {"127.0.0.0/8"};
    HostileServer s(30s, base);
    std::vector<std::unique_ptr<Client>> held;
    for (int i = 0; i < 20; ++i) {
        held.push_back(std::make_unique<Client>(s.port));
        held.back()->send("GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n");
    }
    still_serves(s);
}

BOOST_AUTO_TEST_CASE(a_client_vanishing_mid_response_leaves_the_server_serving) {
    HostileServer s;
    auto size = s.store.get("pub")->body.size();
    BOOST_TEST_REQUIRE(size > 2u * 1024 * 1024);
    for (int i = 0; i < 5; ++i) {
        Client c(s.port);
        c.send("GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n\r\n");
        auto part = c.read_to_end(64 * 1024);
        BOOST_TEST(part.starts_with("HTTP/1.1 200 OK"));
        BOOST_TEST(part.size() < size);
        // RST instead of FIN: the server's next write fails at once.
        c.socket().set_option(net::socket_base::linger(i % 2 == 0, 0));
        c.socket().close();
    }
    auto full = round_trip(s.port, "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    BOOST_TEST(full.size() > size);
    BOOST_TEST(full.ends_with("END:VCALENDAR\r\n"));
    still_serves(s);
}

BOOST_AUTO_TEST_SUITE_END()
