// File: server_test.cpp
// The server over real loopback HTTP (Beast client): every endpoint and status, validators, HEAD,
// gzip, tokens, keep-alive, limits (header size, bodies, slow clients, connection count), graceful stop.
#include "store/gzip.hpp"
#include "support/fixtures.hpp"
#include "support/run_coro.hpp"
#include "support/server_fixtures.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/server.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/test/unit_test.hpp>

#include <thread>

using namespace icsbridge;
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(server_test)

namespace {

constexpr auto use_tuple = net::as_tuple(net::use_awaitable);

/** @brief The server on 127.0.0.1:0 with its own io_context thread; feeds pub/secret/team published. */
struct Running {
    Config cfg;
    ServedFeeds store;
    ViewCache views;
    Metrics metrics;
    net::io_context ioc;
    Server server;
    std::uint16_t port = 0;
    std::thread thread;

    explicit Running(Config c = test::server_test_config())
        : cfg(prepare(std::move(c)))
        , store(cfg)
        , server(ioc.get_executor(), cfg, store, views, metrics, null_logger()) {
        auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
        test::publish(store, "pub", test::calendar_body(300), 300, now - 1h);
        test::publish(store, "secret", test::calendar_body(2, "s"), 2, now - 1h);
        test::publish(store, "team", test::calendar_body(1, "t"), 1, now - 1h);
        port = server.listen().value();
        net::co_spawn(ioc, server.run(), net::detached);
        thread = std::thread([this] { ioc.run(); });
    }
    ~Running() {
        server.stop();
        thread.join();
    }
    static Config prepare(Config c) {
        c.server.host = "127.0.0.1";
        c.server.port = 0;
        c.server.threads = 2;
        return c;
    }
};

using Response = http::response<http::string_body>;

net::awaitable<Response> request(
    std::uint16_t port,
    http::verb verb,
    std::string target,
    http::field f = http::field::unknown,
    std::string value = {},
    std::string agent = "Google-Calendar-Importer" // sends no Accept header at all
) {
    beast::tcp_stream stream(co_await net::this_coro::executor);
    stream.expires_after(10s);
    co_await stream.async_connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), port),
        net::use_awaitable
    );
    http::request<http::empty_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::user_agent, agent);
    if (f != http::field::unknown)
        req.set(f, value);
    co_await http::async_write(stream, req, net::use_awaitable);
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    parser.skip(verb == http::verb::head);
    co_await http::async_read(stream, buf, parser, net::use_awaitable);
    co_return parser.release();
}

/** @brief Sends raw bytes, then reads until the server closes (or 10 s pass); returns all it sent back. */
net::awaitable<std::string> raw(std::uint16_t port, std::string bytes) {
    beast::tcp_stream stream(co_await net::this_coro::executor);
    stream.expires_after(10s);
    co_await stream.async_connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), port),
        net::use_awaitable
    );
    if (!bytes.empty())
        co_await net::async_write(stream, net::buffer(bytes), use_tuple);
    std::string out;
    char chunk[4096];
    for (;;) {
        auto [ec, n] = co_await stream.async_read_some(net::buffer(chunk), use_tuple);
        out.append(chunk, n);
        if (ec)
            break;
    }
    co_return out;
}

std::string get_header(Response const& r, http::field f) {
    return std::string(r[f]);
}

} // namespace

BOOST_AUTO_TEST_CASE(every_endpoint_and_status) {
    Running s;
    test::run_coro([&](auto) -> net::awaitable<void> {
        auto feed = co_await request(s.port, http::verb::get, "/feeds/pub.ics");
        BOOST_TEST(feed.result_int() == 200u);
        BOOST_TEST(feed.body() == test::calendar_body(300));
        BOOST_TEST(get_header(feed, http::field::content_type) == "text/calendar; charset=utf-8");
        BOOST_TEST(get_header(feed, http::field::etag) == s.store.get("pub")->etag);
        BOOST_TEST(get_header(feed, http::field::last_modified) == s.store.get("pub")->last_modified_http);
        BOOST_TEST(get_header(feed, http::field::cache_control) == "public, max-age=900");
        BOOST_TEST(!get_header(feed, http::field::date).empty());

        auto index = co_await request(s.port, http::verb::get, "/");
        BOOST_TEST(index.result_int() == 200u);
        BOOST_TEST(index.body().find("webcal://cal.example.org:8080/feeds/pub.ics") != std::string::npos);

        auto health = co_await request(s.port, http::verb::get, "/healthz");
        BOOST_TEST(health.result_int() == 200u);
        BOOST_TEST(health.body().find("\"feeds\"") != std::string::npos);

        auto unknown = co_await request(s.port, http::verb::get, "/feeds/nope.ics");
        BOOST_TEST(unknown.result_int() == 404u);
        auto no_token = co_await request(s.port, http::verb::get, "/feeds/secret.ics");
        auto bad_token = co_await request(s.port, http::verb::get, "/feeds/secret.ics?token=guess");
        BOOST_TEST(no_token.result_int() == 404u);
        BOOST_TEST(no_token.body() == unknown.body());
        BOOST_TEST(bad_token.body() == unknown.body());
        auto good = co_await request(s.port, http::verb::get, "/feeds/secret.ics?token=s3cret-token-value");
        BOOST_TEST(good.result_int() == 200u);
        BOOST_TEST(get_header(good, http::field::cache_control) == "private, max-age=900");

        auto later = co_await request(s.port, http::verb::get, "/feeds/later.ics");
        BOOST_TEST(later.result_int() == 503u);
        BOOST_TEST(!get_header(later, http::field::retry_after).empty());

        auto post = co_await request(s.port, http::verb::delete_, "/feeds/pub.ics");
        BOOST_TEST(post.result_int() == 405u);
        BOOST_TEST(get_header(post, http::field::allow) == "GET, HEAD");
        auto other = co_await request(s.port, http::verb::get, "/other");
        BOOST_TEST(other.result_int() == 404u);

        auto metrics = co_await request(s.port, http::verb::get, "/metrics");
        BOOST_TEST(metrics.result_int() == 200u);
        BOOST_TEST(
            metrics.body().find("icsbridge_http_requests_total{route=\"feed\",status=\"404\"} 3\n") !=
            std::string::npos
        );
        BOOST_TEST(
            metrics.body().find("icsbridge_http_requests_total{route=\"feed\",status=\"503\"} 1\n") !=
            std::string::npos
        );
    });
}

BOOST_AUTO_TEST_CASE(validators_head_and_gzip) {
    Running s;
    test::run_coro([&](auto) -> net::awaitable<void> {
        auto snap = s.store.get("pub");
        auto a = co_await request(
            s.port,
            http::verb::get,
            "/feeds/pub.ics",
            http::field::if_none_match,
            snap->etag
        );
        BOOST_TEST(a.result_int() == 304u);
        BOOST_TEST(a.body().empty());
        BOOST_TEST(get_header(a, http::field::etag) == snap->etag);
        // Apple revalidates with If-Modified-Since.
        auto b = co_await request(
            s.port,
            http::verb::get,
            "/feeds/pub.ics",
            http::field::if_modified_since,
            snap->last_modified_http
        );
        BOOST_TEST(b.result_int() == 304u);
        auto c = co_await request(
            s.port,
            http::verb::get,
            "/feeds/pub.ics",
            http::field::if_modified_since,
            std::string("Thu, 01 Jan 2015 00:00:00 GMT")
        );
        BOOST_TEST(c.result_int() == 200u);

        auto head = co_await request(s.port, http::verb::head, "/feeds/pub.ics");
        BOOST_TEST(head.result_int() == 200u);
        BOOST_TEST(head.body().empty());
        BOOST_TEST(get_header(head, http::field::content_length) == std::to_string(snap->body.size()));
        BOOST_TEST(get_header(head, http::field::etag) == snap->etag);

        auto gz = co_await request(
            s.port,
            http::verb::get,
            "/feeds/pub.ics",
            http::field::accept_encoding,
            std::string("gzip")
        );
        BOOST_TEST(get_header(gz, http::field::content_encoding) == "gzip");
        BOOST_TEST(get_header(gz, http::field::vary) == "Accept-Encoding");
        BOOST_TEST(get_header(gz, http::field::etag) != snap->etag); // its own representation
        BOOST_TEST(gz.body().size() < snap->body.size());
        BOOST_TEST(test::gunzipped(gz.body()) == snap->body);
        auto plain = co_await request(
            s.port,
            http::verb::get,
            "/feeds/pub.ics",
            http::field::accept_encoding,
            std::string("gzip;q=0")
        );
        BOOST_TEST(get_header(plain, http::field::content_encoding).empty());
        BOOST_TEST(plain.body() == snap->body);
    });
}

BOOST_AUTO_TEST_CASE(keep_alive_serves_several_requests_on_one_connection) {
    Running s;
    test::run_coro([&](auto) -> net::awaitable<void> {
        auto out = co_await raw(
            s.port,
            "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nHEAD /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n\r\n"
            "GET /feeds/nope.ics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        );
        BOOST_TEST(out.find("HTTP/1.1 200 OK") == 0u);
        auto second = out.find("HTTP/1.1 200 OK", 1);
        auto third = out.find("HTTP/1.1 404 Not Found");
        BOOST_TEST(second != std::string::npos);
        BOOST_TEST(third != std::string::npos);
        BOOST_TEST(second < third);
        // HEAD sent no body: the next response follows its headers directly.
        BOOST_TEST(out.substr(third - 4, 4) == "\r\n\r\n");
    });
}

BOOST_AUTO_TEST_CASE(http_1_0_closes_unless_keep_alive_is_asked_for) {
    Running s;
    test::run_coro([&](auto) -> net::awaitable<void> {
        // raw() returns once the server closes: with a 1.0 request and no keep-alive it must.
        auto once = co_await raw(s.port, "GET /feeds/pub.ics HTTP/1.0\r\nHost: x\r\n\r\n");
        BOOST_TEST(once.find("HTTP/1.0 200 OK\r\n") == 0u);
        BOOST_TEST(once.find("\r\nConnection:") == std::string::npos);
        auto length = std::to_string(test::calendar_body(300).size());
        BOOST_TEST(once.find("\r\nContent-Length: " + length + "\r\n") != std::string::npos);
        BOOST_TEST(once.size() == once.find("\r\n\r\n") + 4 + test::calendar_body(300).size());

        auto kept = co_await raw(
            s.port,
            "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\nHEAD /feeds/pub.ics HTTP/1.0\r\n\r\n"
        );
        auto second = kept.find("HTTP/1.0 200 OK", 1);
        BOOST_TEST(kept.find("HTTP/1.0 200 OK") == 0u);
        BOOST_TEST(kept.substr(0, second).find("\r\nConnection: keep-alive\r\n") != std::string::npos);
        BOOST_REQUIRE(second != std::string::npos);
        BOOST_TEST(kept.find("\r\nConnection:", second) == std::string::npos);
        // HEAD: the headers of the GET, Content-Length included, and nothing after them.
        BOOST_TEST(kept.find("\r\nContent-Length: " + length + "\r\n", second) != std::string::npos);
        BOOST_TEST(kept.substr(kept.size() - 4) == "\r\n\r\n");
    });
}

BOOST_AUTO_TEST_CASE(large_bodies_are_sent_whole_and_hang_ups_do_not_hurt) {
    Running s;
    auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    auto body = test::calendar_body(20000); // megabytes; the gzip form goes out with sendfile()
    test::publish(s.store, "pub", body, 20000, now);
    BOOST_TEST_REQUIRE(s.store.get("pub")->gzip_file != nullptr);
    test::run_coro([&](auto ex) -> net::awaitable<void> {
        std::string const browser = "Mozilla/5.0";
        auto plain = co_await request(s.port, http::verb::get, "/feeds/pub.ics", {}, {}, browser);
        BOOST_TEST(plain.body() == body);
        // Google's fetcher gets the view it can take (the body is over Google's 1 MB).
        auto google = co_await request(s.port, http::verb::get, "/feeds/pub.ics");
        BOOST_TEST(google.body().size() < 900'000u);
        BOOST_TEST(google.body().starts_with("BEGIN:VCALENDAR\r\n"));
        auto gz = co_await request(
            s.port,
            http::verb::get,
            "/feeds/pub.ics",
            http::field::accept_encoding,
            "gzip",
            browser
        );
        BOOST_TEST(get_header(gz, http::field::content_encoding) == "gzip");
        BOOST_TEST(test::gunzipped(gz.body()) == body);
        // Clients that ask and hang up at once: sendfile() into closed connections fails with EPIPE
        // (without SIGPIPE ignored, it would end the test process).
        for (int i = 0; i < 20; ++i) {
            tcp::socket sock(ex);
            co_await sock.async_connect(
                tcp::endpoint(net::ip::make_address("127.0.0.1"), s.port),
                net::use_awaitable
            );
            std::string req = "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n";
            co_await net::async_write(sock, net::buffer(req), use_tuple);
            char c;
            co_await sock.async_read_some(net::buffer(&c, 1), use_tuple); // the response has begun
            sock.set_option(net::socket_base::linger(true, 0));           // reset, not a graceful close
            sock.close();
        }
        auto after = co_await request(s.port, http::verb::get, "/feeds/pub.ics", {}, {}, browser);
        BOOST_TEST(after.body() == body);
    });
}

BOOST_AUTO_TEST_CASE(limits_on_headers_bodies_and_bad_requests) {
    Running s;
    test::run_coro([&](auto) -> net::awaitable<void> {
        auto big = co_await raw(
            s.port,
            "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n"
        );
        BOOST_TEST(big.find("HTTP/1.1 431") == 0u);
        auto body =
            co_await raw(s.port, "POST /feeds/pub.ics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
        BOOST_TEST(body.find("HTTP/1.1 405") == 0u); // issue 11: a write is 405 with or without a body
        auto get_body =
            co_await raw(s.port, "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
        BOOST_TEST(get_body.find("HTTP/1.1 413") == 0u);
        auto garbage = co_await raw(s.port, "THIS IS NOT HTTP\r\n\r\n");
        BOOST_TEST(garbage.find("HTTP/1.1 400") == 0u);
        // Answered by the router, so the connection stays open unless asked to close (raw() reads to the
        // end).
        auto target =
            co_await raw(s.port, "GET http://[::1/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        BOOST_TEST(target.find("HTTP/1.1 400") == 0u);
    });
}

BOOST_AUTO_TEST_CASE(slow_clients_are_cut_off) {
    auto cfg = test::server_test_config();
    cfg.server.request_timeout = std::chrono::seconds(1);
    Running s(cfg);
    test::run_coro([&](auto) -> net::awaitable<void> {
        // Half a request, then silence: the server closes without answering.
        auto out = co_await raw(s.port, "GET /feeds/pub.ics HTTP/1.1\r\nHost: x\r\n");
        BOOST_TEST(out.empty());
    });
}

BOOST_AUTO_TEST_CASE(connections_beyond_the_limit_get_503) {
    auto cfg = test::server_test_config();
    cfg.server.max_connections = 1;
    Running s(cfg);
    test::run_coro([&](auto ex) -> net::awaitable<void> {
        beast::tcp_stream held(ex);
        co_await held.async_connect(
            tcp::endpoint(net::ip::make_address("127.0.0.1"), s.port),
            net::use_awaitable
        );
        auto out = co_await raw(s.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        BOOST_TEST(out.find("HTTP/1.1 503") == 0u);
    });
}

BOOST_AUTO_TEST_CASE(stop_closes_idle_connections_and_finishes) {
    auto s = std::make_unique<Running>();
    test::run_coro([&](auto ex) -> net::awaitable<void> {
        beast::tcp_stream idle(ex);
        idle.expires_after(10s);
        co_await idle.async_connect(
            tcp::endpoint(net::ip::make_address("127.0.0.1"), s->port),
            net::use_awaitable
        );
        // One request on it, so it is an idle keep-alive connection now.
        http::request<http::empty_body> req{http::verb::get, "/healthz", 11};
        co_await http::async_write(idle, req, net::use_awaitable);
        beast::flat_buffer buf;
        Response res;
        co_await http::async_read(idle, buf, res, net::use_awaitable);
        BOOST_TEST(res.result_int() == 200u);
        BOOST_TEST(res.keep_alive());
        s->server.stop();
        char c;
        auto [ec, n] = co_await idle.async_read_some(net::buffer(&c, 1), use_tuple);
        BOOST_TEST(ec == net::error::eof); // closed by the server, not by our 10 s expiry
    });
    s.reset(); // joins the server thread: run() has returned
}

BOOST_AUTO_TEST_SUITE_END()
