// File: hostile_requests_test.cpp
// Hostile clients against the real server on a loopback socket: garbage, oversized and traversing requests,
// bodies on GET, pipelining, slow and vanishing clients, a thousand idle connections. Each gets a 4xx or a
// closed connection, no log line shows a feed token, and the server still answers a normal request after.
#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include <icsbridge/server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/unit_test.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace icsbridge;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;
using namespace std::string_literals;

namespace {

std::vector<std::string> const secrets = {"s3cret-token-value", "alice-secret-1", "bob-secret-2"};

/** @brief The real server with a capturing log, a 4 MB public feed and the token feeds of server_fixtures. */
struct HostileServer {
    Config cfg;
    FeedStore store;
    test::StringLogger logs;
    net::io_context ioc;
    Server server;
    std::uint16_t port = 0;
    std::thread thread;

    explicit HostileServer(std::chrono::seconds request_timeout = 2s)
        : cfg(config(request_timeout))
        , store(cfg)
        , server(ioc.get_executor(), cfg, store, logs.logger()) {
        auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
        store.publish("pub", test::calendar_body(25000), 25000, now - 1h);
        store.publish("secret", test::calendar_body(2, "s"), 2, now - 1h);
        store.publish("team", test::calendar_body(1, "t"), 1, now - 1h);
        port = server.listen().value();
        net::co_spawn(ioc, server.run(), net::detached);
        thread = std::thread([this] { ioc.run(); });
    }
    ~HostileServer() {
        server.stop();
        thread.join();
        std::string const log = logs.joined();
        for (auto const& s : secrets)
            BOOST_TEST(log.find(s) == std::string::npos, "a feed token is in the log");
    }

    static Config config(std::chrono::seconds request_timeout) {
        Config c = test::server_test_config();
        c.server.host = "127.0.0.1";
        c.server.port = 0;
        c.server.threads = 2;
        c.server.request_timeout = request_timeout;
        c.server.max_connections = 2000;
        return c;
    }
};

/** @brief A blocking loopback client with 10 s socket timeouts, free to misbehave. */
class Client {
  public:
    explicit Client(std::uint16_t port)
        : sock_(ioc_) {
        sock_.connect({net::ip::make_address("127.0.0.1"), port});
        timeval tv{10, 0}; // a server that stops reading must not block our writes forever
        ::setsockopt(sock_.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }

    /** @brief False once the server has closed (or reset) the connection. */
    bool send(std::string_view bytes) {
        boost::system::error_code ec;
        net::write(sock_, net::buffer(bytes.data(), bytes.size()), ec);
        return !ec;
    }

    /** @brief Everything until the server closes, or `at_least` bytes, or 10 s pass. (Asio's blocking reads
     * ignore SO_RCVTIMEO, hence poll.) */
    std::string read_to_end(std::size_t at_least = std::string::npos) {
        std::string out;
        char buf[64 * 1024];
        auto const deadline = std::chrono::steady_clock::now() + 10s;
        while (out.size() < at_least) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now()
            );
            pollfd p{sock_.native_handle(), POLLIN, 0};
            if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0)
                break;
            auto n = ::recv(sock_.native_handle(), buf, sizeof buf, 0);
            if (n <= 0)
                break;
            out.append(buf, static_cast<std::size_t>(n));
        }
        return out;
    }

    tcp::socket& socket() { return sock_; }

  private:
    net::io_context ioc_;
    tcp::socket sock_;
};

/** @brief Sends `bytes` on a fresh connection and returns all the server sent back before closing. */
std::string round_trip(std::uint16_t port, std::string_view bytes) {
    Client c(port);
    c.send(bytes);
    return c.read_to_end();
}

/** @brief A 4xx status line, or nothing at all (the server closed without answering). */
bool refused(std::string const& response) {
    return response.empty() ||
           (response.starts_with("HTTP/1.1 4") && response.find("\r\n\r\n") != std::string::npos);
}

/** @brief The server still serves a normal request on a new connection. */
void still_serves(HostileServer& s) {
    auto out = round_trip(s.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    BOOST_TEST(out.starts_with("HTTP/1.1 200 OK"), "after a hostile request: " << out.substr(0, 40));
}

std::size_t count(std::string const& hay, std::string const& needle) {
    std::size_t n = 0;
    for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1))
        ++n;
    return n;
}

} // namespace

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
    HostileServer s(30s); // long enough that opening them all does not outlast it
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
