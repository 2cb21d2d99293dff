// File: http_client_test.cpp
// The HTTP client against scripted loopback servers: keep-alive, gzip, limits, retries, every
// deadline, resets, TLS trust, the concurrency bound, cancellation and secret hygiene.
#include "store/gzip.hpp"
#include "support/fixtures.hpp"
#include "support/run_coro.hpp"
#include "support/tls_server.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/net.hpp>
#include <icsbridge/sources.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::test;
using namespace std::chrono_literals;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

namespace http_client_test {

// Short deadlines and backoffs keep the suite fast; tests that exercise one limit lower just that one.
ClientOptions test_options() {
    ClientOptions o;
    o.service_name = "events API";
    o.resolve_timeout = 2s;
    o.connect_timeout = 2s;
    o.handshake_timeout = 2s;
    o.io_timeout = 2s;
    o.request_timeout = 5s;
    o.retry.max_attempts = 3;
    o.retry.initial_backoff = 10ms;
    o.retry.max_backoff = 2s;
    o.retry.max_total = 10s;
    return o;
}

// Answers every request on every connection with the same response.
ScriptedServer::Script always(std::string response) {
    return [response](ServerConn& c) -> net::awaitable<void> {
        while (co_await c.read_request())
            if (!co_await c.write(response))
                co_return;
    };
}

// The Nth request the server sees (over all connections) gets responses[min(N, last)].
ScriptedServer::Script
in_sequence(std::vector<std::string> responses, std::shared_ptr<std::atomic<int>> count) {
    return [responses, count](ServerConn& c) -> net::awaitable<void> {
        while (co_await c.read_request()) {
            auto n = static_cast<std::size_t>((*count)++);
            if (!co_await c.write(responses[std::min(n, responses.size() - 1)]))
                co_return;
        }
    };
}

// Accepts, reads the request, then never answers.
ScriptedServer::Script silent() {
    return [](ServerConn& c) -> net::awaitable<void> {
        co_await c.read_request();
        co_await c.sleep(1h);
    };
}

// Runs `gets` concurrently on `ex` and returns their results in order.
net::awaitable<std::vector<Result<HttpResponse>>>
all_of(net::any_io_executor ex, std::vector<net::awaitable<Result<HttpResponse>>> gets) {
    std::vector<std::optional<Result<HttpResponse>>> slots(gets.size());
    std::size_t done = 0;
    for (std::size_t i = 0; i < gets.size(); ++i)
        net::co_spawn(ex, std::move(gets[i]), [&, i](std::exception_ptr e, Result<HttpResponse> r) {
            if (e)
                std::rethrow_exception(e);
            slots[i] = std::move(r);
            ++done;
        });
    net::steady_timer poll(ex);
    while (done < slots.size()) {
        poll.expires_after(5ms);
        co_await poll.async_wait(net::use_awaitable);
    }
    std::vector<Result<HttpResponse>> out;
    for (auto& s : slots)
        out.push_back(std::move(*s));
    co_return out;
}

bool contains(std::string const& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}

} // namespace http_client_test

BOOST_AUTO_TEST_SUITE(http_client_test)

BOOST_AUTO_TEST_CASE(keep_alive_reuses_one_connection_for_sequential_requests) {
    // Setup
    std::vector<std::string> seen;
    std::mutex mtx;
    ScriptedServer server([&](ServerConn& c) -> net::awaitable<void> {
        int n = 0;
        while (auto req = co_await c.read_request()) {
            {
                std::lock_guard lock(mtx);
                seen.push_back(
                    req->header("User-Agent") + "|" + req->header("Accept-Encoding") + "|" +
                    req->header("Host") + "|" + req->target
                );
            }
            co_await c.write(http_response(200, "body" + std::to_string(n++)));
        }
    });
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient client(ex, test_options());
        // Run
        for (int i = 0; i < 3; ++i) {
            auto r = co_await client.get({server.url("/v3/x/?page=" + std::to_string(i)), {}});
            // Check
            BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
            BOOST_TEST(r->status == 200u);
            BOOST_TEST(r->body == "body" + std::to_string(i));
            BOOST_TEST(r->attempts == 1);
        }
    });
    BOOST_TEST(server.connections() == 1);
    std::string host = "127.0.0.1:" + std::to_string(server.port());
    BOOST_TEST_REQUIRE(seen.size() == 3u);
    BOOST_TEST(seen[2] == std::string("icsbridge/") + ICSBRIDGE_VERSION + "|gzip|" + host + "|/v3/x/?page=2");
}

BOOST_AUTO_TEST_CASE(configured_user_agent_and_extra_headers_are_sent) {
    std::string seen;
    ScriptedServer server([&](ServerConn& c) -> net::awaitable<void> {
        auto req = co_await c.read_request();
        seen = req->header("User-Agent") + "|" + req->header("Authorization");
        co_await c.write(http_response(200, "ok"));
    });
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.user_agent = "my-bridge/2";
        HttpClient client(ex, opts);
        HttpRequest req{server.url("/"), {}};
        req.headers.emplace_back("Authorization", "Bearer abc");
        auto r = co_await client.get(std::move(req));
        BOOST_TEST_REQUIRE(r.has_value());
    });
    BOOST_TEST(seen == "my-bridge/2|Bearer abc");
}

BOOST_AUTO_TEST_CASE(other_methods_send_their_name_and_body) {
    std::string seen;
    ScriptedServer server([&](ServerConn& c) -> net::awaitable<void> {
        auto req = co_await c.read_request();
        seen = req->method + " " + req->target + "|" + req->header("Content-Length") + "|" +
               req->header("If-None-Match");
        // The body is left unread: the connection is not reused.
        co_await c.write(http_response(201, "", "ETag: \"e1\"\r\nConnection: close\r\n"));
    });
    std::string etag, status_line;
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient client(ex, test_options());
        HttpRequest req{server.url("/cal/x.ics"), {{"If-None-Match", "*"}}};
        req.method = "PUT";
        req.body = "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n";
        auto r = co_await client.request(std::move(req));
        BOOST_TEST_REQUIRE(r.has_value());
        status_line = std::to_string(r->status);
        etag = r->header("ETag");
    });
    BOOST_TEST(seen == "PUT /cal/x.ics|32|*");
    BOOST_TEST(status_line == "201");
    BOOST_TEST(etag == "\"e1\"");
}

BOOST_AUTO_TEST_CASE(gzip_body_is_decoded) {
    std::string payload(20000, 'x');
    payload += "{\"events\": [\"caf\xc3\xa9\"]}";
    ScriptedServer server(always(http_response(200, gzip_compress(payload), "Content-Encoding: gzip\r\n")));
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient client(ex, test_options());
        auto r = co_await client.get({server.url("/"), {}});
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(r->body == payload);
        BOOST_TEST(r->header("content-encoding") == "gzip");
    });
}

BOOST_AUTO_TEST_CASE(oversized_bodies_are_refused) {
    auto big = std::string(5000, 'a');
    ScriptedServer plain(always(http_response(200, big)));
    ScriptedServer chunked(
        always("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1388\r\n" + big + "\r\n0\r\n\r\n")
    );
    ScriptedServer bomb(always(http_response(200, gzip_compress(big), "Content-Encoding: gzip\r\n")));
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.max_body = 1000;
        opts.max_body_key = "[sources.eb] max_response_mb";
        HttpClient client(ex, opts);
        for (auto* s : {&plain, &chunked, &bomb}) {
            auto r = co_await client.get({s->url("/big"), {}});
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST((r.error().code == errc::upstream_too_large));
            // The error names the key a user can set, not an internal option.
            BOOST_TEST(contains(r.error().message, "raise [sources.eb] max_response_mb"), r.error().message);
            BOOST_TEST(contains(r.error().message, "events API: "), r.error().message);
        }
    });
}

BOOST_AUTO_TEST_CASE(a_source_sets_the_body_limit_and_names_its_key) {
    SourceConfig src;
    src.name = "eb";
    src.max_response_mb = 3;
    auto const opts = client_options_for(src);
    BOOST_TEST(opts.max_body == std::size_t{3} * 1024 * 1024);
    BOOST_TEST(opts.max_body_key == "[sources.eb] max_response_mb");
}

BOOST_AUTO_TEST_CASE(server_errors_are_retried_until_success) {
    auto count = std::make_shared<std::atomic<int>>(0);
    ScriptedServer server(in_sequence(
        {http_response(500, "oops"), http_response(502, "bad gateway"), http_response(200, "fine")},
        count
    ));
    StringLogger logs;
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient client(ex, test_options(), logs.logger());
        auto r = co_await client.get({server.url("/x"), {}});
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(r->status == 200u);
        BOOST_TEST(r->body == "fine");
        BOOST_TEST(r->attempts == 3);
    });
    BOOST_TEST(count->load() == 3);
    BOOST_TEST(contains(logs.joined(), "answered 500; retrying"), logs.joined());
    BOOST_TEST(contains(logs.joined(), "-> 200 in"), logs.joined());
}

BOOST_AUTO_TEST_CASE(rate_limit_is_retried_after_the_retry_after_delay) {
    auto count = std::make_shared<std::atomic<int>>(0);
    ScriptedServer server(
        in_sequence({http_response(429, "slow down", "Retry-After: 1\r\n"), http_response(200, "ok")}, count)
    );
    StringLogger logs;
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient client(ex, test_options(), logs.logger());
        auto r = co_await client.get({server.url("/x"), {}});
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(r->status == 200u);
        BOOST_TEST(r->attempts == 2);
    });
    BOOST_TEST(contains(logs.joined(), "answered 429; retrying in 1s"), logs.joined());
}

BOOST_AUTO_TEST_CASE(retry_after_beyond_the_budget_returns_the_response_at_once) {
    auto count = std::make_shared<std::atomic<int>>(0);
    ScriptedServer server(in_sequence({http_response(503, "maintenance", "Retry-After: 3600\r\n")}, count));
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient client(ex, test_options());
        auto r = co_await client.get({server.url("/x"), {}});
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(r->status == 503u);
        BOOST_TEST(r->attempts == 1);
    });
    BOOST_TEST(count->load() == 1);
}

BOOST_AUTO_TEST_CASE(persistent_server_error_is_returned_as_a_value_after_max_attempts) {
    auto count = std::make_shared<std::atomic<int>>(0);
    ScriptedServer server(in_sequence({http_response(503, "down")}, count));
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient client(ex, test_options());
        auto r = co_await client.get({server.url("/x"), {}});
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(r->status == 503u);
        BOOST_TEST(r->body == "down");
        BOOST_TEST(r->attempts == 3);
    });
    BOOST_TEST(count->load() == 3);
}

BOOST_AUTO_TEST_CASE(client_errors_are_not_retried) {
    for (unsigned status : {404u, 401u, 400u}) {
        auto count = std::make_shared<std::atomic<int>>(0);
        ScriptedServer server(in_sequence({http_response(status, "{\"error\":\"NOT_AUTHORIZED\"}")}, count));
        run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
            HttpClient client(ex, test_options());
            auto r = co_await client.get({server.url("/x"), {}});
            BOOST_TEST_REQUIRE(r.has_value());
            BOOST_TEST(r->status == status);
            BOOST_TEST(r->attempts == 1);
        });
        BOOST_TEST(count->load() == 1);
    }
}

BOOST_AUTO_TEST_CASE(refused_connection_is_an_upstream_connect_error) {
    // A port that was free a moment ago: nothing listens there.
    unsigned short port = 0;
    {
        net::io_context ioc;
        tcp::acceptor a(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
        port = a.local_endpoint().port();
    }
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.retry.max_attempts = 2;
        HttpClient client(ex, opts);
        auto r = co_await client.get({"http://127.0.0.1:" + std::to_string(port) + "/v3/users/me/", {}});
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::upstream_connect));
        auto const& m = r.error().message;
        BOOST_TEST(contains(m, "events API: cannot connect to 127.0.0.1:" + std::to_string(port)), m);
        BOOST_TEST(contains(m, "refused"), m);
        BOOST_TEST(contains(m, "/v3/users/me/"), m);
        BOOST_TEST(contains(m, "gave up after 2 attempts"), m);
    });
}

BOOST_AUTO_TEST_CASE(connect_deadline_fires_when_the_listen_queue_is_full) {
    // Setup: a listener with the smallest backlog that never accepts, its queue filled by other
    // sockets, so the kernel drops our SYN and connect() just waits.
    net::io_context fill_ioc;
    tcp::acceptor listener(fill_ioc);
    tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 0);
    listener.open(ep.protocol());
    listener.bind(ep);
    listener.listen(0);
    ep = listener.local_endpoint();
    std::vector<std::unique_ptr<tcp::socket>> fillers;
    for (int i = 0; i < 4; ++i) {
        fillers.push_back(std::make_unique<tcp::socket>(fill_ioc));
        fillers.back()->async_connect(ep, [](boost::system::error_code) {});
    }
    fill_ioc.run_for(200ms);

    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.connect_timeout = 300ms;
        opts.retry.max_attempts = 1;
        HttpClient client(ex, opts);
        auto r = co_await client.get({"http://127.0.0.1:" + std::to_string(ep.port()) + "/x", {}});
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::upstream_timeout));
        BOOST_TEST(
            contains(r.error().message, "timed out after 300ms connecting to 127.0.0.1:"),
            r.error().message
        );
    });
}

BOOST_AUTO_TEST_CASE(read_deadline_fires_when_the_server_never_answers) {
    ScriptedServer server(silent());
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.io_timeout = 200ms;
        opts.retry.max_attempts = 1;
        HttpClient client(ex, opts);
        auto r = co_await client.get({server.url("/v3/users/me/events/?status=live"), {}});
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::upstream_timeout));
        BOOST_TEST(
            r.error().message == "events API: timed out after 200ms waiting for a response to GET " +
                                     server.url("/v3/users/me/events/?status=live"),
            r.error().message
        );
    });
}

BOOST_AUTO_TEST_CASE(read_deadline_fires_when_the_body_stalls) {
    ScriptedServer server([](ServerConn& c) -> net::awaitable<void> {
        co_await c.read_request();
        co_await c.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial");
        co_await c.sleep(1h);
    });
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.io_timeout = 200ms;
        opts.retry.max_attempts = 1;
        HttpClient client(ex, opts);
        auto r = co_await client.get({server.url("/x"), {}});
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::upstream_timeout));
        BOOST_TEST(
            contains(r.error().message, "timed out after 200ms reading the response body of GET"),
            r.error().message
        );
    });
}

BOOST_AUTO_TEST_CASE(whole_request_deadline_fires_on_a_trickling_body) {
    // Each byte arrives well within io_timeout, but the whole answer would take seconds.
    ScriptedServer server([](ServerConn& c) -> net::awaitable<void> {
        co_await c.read_request();
        if (!co_await c.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"))
            co_return;
        for (int i = 0; i < 100; ++i) {
            co_await c.sleep(50ms);
            if (!co_await c.write("x"))
                co_return;
        }
    });
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.io_timeout = 2s;
        opts.request_timeout = 400ms;
        opts.retry.max_attempts = 1;
        HttpClient client(ex, opts);
        auto r = co_await client.get({server.url("/x"), {}});
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::upstream_timeout));
        BOOST_TEST(
            contains(r.error().message, "timed out after 400ms reading the response body"),
            r.error().message
        );
    });
}

BOOST_AUTO_TEST_CASE(connection_reset_mid_body_is_an_io_error) {
    ScriptedServer server([](ServerConn& c) -> net::awaitable<void> {
        co_await c.read_request();
        co_await c.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + std::string(100, 'x'));
        co_await c.sleep(50ms);
        c.reset();
    });
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.retry.max_attempts = 2;
        HttpClient client(ex, opts);
        auto r = co_await client.get({server.url("/x"), {}});
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::upstream_io));
        BOOST_TEST(
            contains(r.error().message, "connection lost reading the response body of GET"),
            r.error().message
        );
        BOOST_TEST(contains(r.error().message, "gave up after 2 attempts"), r.error().message);
    });
    BOOST_TEST(server.connections() == 2);
}

BOOST_AUTO_TEST_CASE(pooled_connection_closed_by_the_server_is_replaced_without_a_retry) {
    // The first connection answers one request, then hangs up on the next one without a word.
    ScriptedServer server([](ServerConn& c) -> net::awaitable<void> {
        int n = 0;
        while (co_await c.read_request()) {
            if (c.index() == 0 && n == 1) {
                c.close();
                co_return;
            }
            co_await c.write(http_response(200, "conn" + std::to_string(c.index())));
            ++n;
        }
    });
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient client(ex, test_options());
        auto first = co_await client.get({server.url("/1"), {}});
        BOOST_TEST_REQUIRE(first.has_value());
        auto second = co_await client.get({server.url("/2"), {}});
        BOOST_TEST_REQUIRE(second.has_value(), (second ? "" : second.error().message));
        BOOST_TEST(second->body == "conn1");
        BOOST_TEST(second->attempts == 1);
    });
    BOOST_TEST(server.connections() == 2);
}

BOOST_AUTO_TEST_CASE(idle_connection_closed_by_the_server_is_not_reused) {
    ScriptedServer server([](ServerConn& c) -> net::awaitable<void> {
        co_await c.read_request();
        // Claims keep-alive, then closes right away (as an idle timeout would).
        co_await c.write(http_response(200, "conn" + std::to_string(c.index())));
        c.close();
    });
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient client(ex, test_options());
        auto first = co_await client.get({server.url("/1"), {}});
        BOOST_TEST_REQUIRE(first.has_value());
        net::steady_timer t(ex, 100ms);
        co_await t.async_wait(net::use_awaitable);
        auto second = co_await client.get({server.url("/2"), {}});
        BOOST_TEST_REQUIRE(second.has_value(), (second ? "" : second.error().message));
        BOOST_TEST(second->body == "conn1");
        BOOST_TEST(second->attempts == 1);
    });
}

BOOST_AUTO_TEST_CASE(self_signed_certificate_is_refused_without_ca_file) {
    TempDir dir;
    auto cert = make_self_signed_cert(dir.path());
    ScriptedServer server(always(http_response(200, "secret data")), &cert);
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.service_name = "job board API";
        HttpClient client(ex, opts);
        auto r = co_await client.get({server.url("/api/posts/"), {}});
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::upstream_tls));
        BOOST_TEST(
            contains(
                r.error().message,
                "job board API: TLS certificate of localhost not trusted (self-signed certificate); set "
                "ca_file"
            ),
            r.error().message
        );
    });
    // Certificate failures are not transient: one try only.
    BOOST_TEST(server.connections() == 1);
}

BOOST_AUTO_TEST_CASE(self_signed_certificate_is_accepted_with_ca_file) {
    TempDir dir;
    auto cert = make_self_signed_cert(dir.path());
    ScriptedServer server(always(http_response(200, "hello over tls")), &cert);
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.ca_file = cert.cert_file;
        HttpClient client(ex, opts);
        for (int i = 0; i < 2; ++i) {
            auto r = co_await client.get({server.url("/api/posts/"), {}});
            BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
            BOOST_TEST(r->body == "hello over tls");
        }
    });
    BOOST_TEST(server.connections() == 1);
}

BOOST_AUTO_TEST_CASE(unreadable_ca_file_is_reported) {
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.ca_file = "/nonexistent/ca.pem";
        HttpClient client(ex, opts);
        auto r = co_await client.get({"https://localhost:1/", {}});
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::upstream_tls));
        BOOST_TEST(contains(r.error().message, "cannot load ca_file /nonexistent/ca.pem"), r.error().message);
    });
}

BOOST_AUTO_TEST_CASE(a_retry_after_wait_does_not_hold_the_concurrency_slot) {
    // Issue 16: the slot was held across the Retry-After wait, so with max_concurrency = 1 every other
    // request of the source (other feeds, other pages) waited out someone else's throttling.
    std::atomic<int> slow_seen{0};
    ScriptedServer server([&](ServerConn& c) -> net::awaitable<void> {
        while (auto req = co_await c.read_request()) {
            bool const throttle = req->target == "/slow" && slow_seen++ == 0;
            auto reply = throttle ? http_response(429, "slow down", "Retry-After: 2\r\n")
                                  : http_response(200, req->target);
            if (!co_await c.write(reply))
                co_return;
        }
    });
    std::vector<std::string> finished;
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.max_concurrency = 1;
        HttpClient client(ex, opts);
        auto fetch = [&](std::string path) -> net::awaitable<void> {
            auto r = co_await client.get({server.url(path), {}});
            BOOST_TEST(r.has_value(), path);
            finished.push_back(path);
        };
        net::co_spawn(ex, fetch("/slow"), net::detached);
        net::steady_timer t(ex, 100ms); // /slow has had its 429 and is waiting
        co_await t.async_wait(net::use_awaitable);
        net::co_spawn(ex, fetch("/fast"), net::detached);
        while (finished.size() < 2) {
            t.expires_after(10ms);
            co_await t.async_wait(net::use_awaitable);
        }
    });
    BOOST_TEST_REQUIRE(finished.size() == 2u);
    BOOST_TEST(finished[0] == "/fast"); // served during /slow's wait, not after it
    BOOST_TEST(slow_seen.load() == 2);
}

BOOST_AUTO_TEST_CASE(concurrency_is_bounded_by_max_concurrency) {
    std::atomic<int> in_flight{0};
    std::atomic<int> peak{0};
    ScriptedServer server([&](ServerConn& c) -> net::awaitable<void> {
        while (auto req = co_await c.read_request()) {
            int now = ++in_flight;
            int prev = peak.load();
            while (now > prev && !peak.compare_exchange_weak(prev, now)) {
            }
            co_await c.sleep(50ms);
            --in_flight;
            co_await c.write(http_response(200, req->target));
        }
    });
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.max_concurrency = 2;
        HttpClient client(ex, opts);
        std::vector<net::awaitable<Result<HttpResponse>>> gets;
        for (int i = 0; i < 8; ++i)
            gets.push_back(client.get({server.url("/e/" + std::to_string(i)), {}}));
        auto results = co_await all_of(ex, std::move(gets));
        for (int i = 0; i < 8; ++i) {
            BOOST_TEST_REQUIRE(results[i].has_value());
            BOOST_TEST(results[i]->body == "/e/" + std::to_string(i));
        }
    });
    BOOST_TEST(peak.load() == 2);
    BOOST_TEST(server.connections() <= 2);
}

BOOST_AUTO_TEST_CASE(cancellation_returns_promptly_with_shutdown) {
    ScriptedServer server(silent());
    run_coro(
        [&](net::any_io_executor ex) -> net::awaitable<void> {
            HttpClient client(ex, test_options());
            net::cancellation_signal stop;
            std::optional<Result<HttpResponse>> got;
            net::co_spawn(
                ex,
                client.get({server.url("/x"), {}}),
                net::bind_cancellation_slot(
                    stop.slot(),
                    [&](std::exception_ptr e, Result<HttpResponse> r) {
                        if (e)
                            std::rethrow_exception(e);
                        got = std::move(r);
                    }
                )
            );
            net::steady_timer t(ex, 100ms);
            co_await t.async_wait(net::use_awaitable);
            stop.emit(net::cancellation_type::terminal);
            while (!got) {
                t.expires_after(5ms);
                co_await t.async_wait(net::use_awaitable);
            }
            BOOST_TEST_REQUIRE(!got->has_value());
            BOOST_TEST((got->error().code == errc::shutdown));
        },
        10s
    );
}

BOOST_AUTO_TEST_CASE(secrets_never_appear_in_errors_or_logs) {
    std::string const api_key = "K3Y-s3cr3t-4a9f";
    std::string const token = "T0K3N-s3cr3t-77b1";
    auto count = std::make_shared<std::atomic<int>>(0);
    ScriptedServer errors(in_sequence({http_response(500, "no")}, count));
    ScriptedServer stalls(silent());
    StringLogger logs;
    std::string messages;
    run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto opts = test_options();
        opts.io_timeout = 200ms;
        HttpClient client(ex, opts, logs.logger());
        std::vector<std::pair<std::string, std::string>> auth{{"Authorization", "Bearer " + token}};
        for (auto const& url :
             {errors.url("/api/posts/search/?api_key=" + api_key + "&keywords=php"),
              stalls.url("/api/posts/?api_key=" + api_key),
              "http://127.0.0.1:1/api/?api_key=" + api_key,
              "ftp://host/?api_key=" + api_key}) {
            auto r = co_await client.get({url, auth});
            messages += (r ? std::to_string(r->status) : r.error().message) + "\n";
        }
    });
    auto all = messages + logs.joined();
    BOOST_TEST(!contains(all, api_key), all);
    BOOST_TEST(!contains(all, token), all);
    BOOST_TEST(contains(all, "api_key=***"), all);
}

BOOST_AUTO_TEST_SUITE_END()
