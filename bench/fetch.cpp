// File: fetch.cpp
// Benchmark of the HTTP client's fetch pattern: 10 sequential page requests, then 500 concurrent
// expansion requests, against a server that adds fixed latency; compares wall time with the lower bound
// 10*latency + ceil(500/concurrency)*latency.
//
// Usage: icsbridge-bench-fetch [--latency-ms 50] [--concurrency 4] [--pages 10] [--expansions 500]
//   in-process loopback server with that latency, raw GETs through HttpClient; or
// icsbridge-bench-fetch --base-url URL --token TOKEN [--latency-ms 50] [--concurrency 4]
//   the events client (select = organizer) against an external upstream whose latency is assumed, e.g.
//   icsbridge-fake-upstream --latency-ms 50 --generate-events 500 --page-size 50 --ignore-expand
//   --events-token T (there every event needs one expansion request, so the bound is pages +
//   ceil(events/concurrency) waves).
#include <icsbridge/net.hpp>
#include <icsbridge/sources.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;
using namespace icsbridge;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

constexpr auto tuple_awaitable = net::as_tuple(net::use_awaitable);

struct Options {
    int latency_ms = 50;
    int concurrency = 4;
    int pages = 10;
    int expansions = 500;
    std::string base_url;
    std::string token;
};

[[noreturn]] void usage(char const* why) {
    std::cerr
        << "icsbridge-bench-fetch: " << why
        << "\nusage: icsbridge-bench-fetch [--latency-ms N] [--concurrency N] [--pages N] [--expansions N]"
           " [--base-url URL [--token T]]\n";
    std::exit(2);
}

Options parse_args(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc)
            usage(("missing value after " + a).c_str());
        std::string v = argv[++i];
        if (a == "--latency-ms")
            o.latency_ms = std::stoi(v);
        else if (a == "--concurrency")
            o.concurrency = std::stoi(v);
        else if (a == "--pages")
            o.pages = std::stoi(v);
        else if (a == "--expansions")
            o.expansions = std::stoi(v);
        else if (a == "--base-url")
            o.base_url = v;
        else if (a == "--token")
            o.token = v;
        else
            usage(("unknown option " + a).c_str());
    }
    if (o.concurrency < 1 || o.latency_ms < 0 || o.pages < 0 || o.expansions < 0)
        usage("values must be positive");
    return o;
}

/** A keep-alive loopback server that answers every request after a fixed delay. */
class LatencyServer {
  public:
    explicit LatencyServer(milliseconds latency)
        : latency_(latency) {
        tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 0);
        acceptor_.open(ep.protocol());
        acceptor_.bind(ep);
        acceptor_.listen();
        net::co_spawn(ioc_, accept_loop(), net::detached);
        thread_ = std::thread([this] { ioc_.run(); });
    }
    ~LatencyServer() {
        ioc_.stop();
        thread_.join();
    }
    std::string base_url() const {
        return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
    }

  private:
    net::awaitable<void> session(tcp::socket s) {
        std::string buf;
        std::string body(800, 'x');
        body = "{\"id\": \"1\", \"pad\": \"" + body + "\"}";
        std::string response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\n\r\n" + body;
        net::steady_timer delay(s.get_executor());
        for (;;) {
            auto [ec, n] =
                co_await net::async_read_until(s, net::dynamic_buffer(buf), "\r\n\r\n", tuple_awaitable);
            if (ec)
                co_return;
            buf.erase(0, n);
            delay.expires_after(latency_);
            co_await delay.async_wait(tuple_awaitable);
            auto [wec, wn] = co_await net::async_write(s, net::buffer(response), tuple_awaitable);
            if (wec)
                co_return;
        }
    }

    net::awaitable<void> accept_loop() {
        for (;;) {
            auto [ec, s] = co_await acceptor_.async_accept(tuple_awaitable);
            if (ec)
                co_return;
            net::co_spawn(ioc_, session(std::move(s)), net::detached);
        }
    }

    milliseconds latency_;
    net::io_context ioc_;
    tcp::acceptor acceptor_{ioc_};
    std::thread thread_;
};

struct Outcome {
    int failures = 0;
    milliseconds pages{};
    milliseconds expansions{};
    int page_count = 0;
    int event_count = 0;
    std::string error;
};

// The real pipeline: EventsSource follows every page and expands every incomplete event.
net::awaitable<void> run_events(Options const& o, Outcome& out) {
    auto ex = co_await net::this_coro::executor;
    SourceConfig src;
    src.name = "bench";
    src.type = SourceType::events;
    src.base_url = o.base_url;
    src.secret = o.token;
    src.max_concurrency = o.concurrency;
    UpstreamQuery feed;
    feed.name = "bench";
    feed.source = "bench";
    feed.select = "organizer";
    HttpClient client(ex, client_options_for(src));
    EventsSource events(src, client);
    auto t0 = steady_clock::now();
    auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    auto r = co_await events.fetch(feed, now, [&](FetchProgress const& p) { out.page_count = p.pages; });
    out.expansions = std::chrono::duration_cast<milliseconds>(steady_clock::now() - t0);
    if (!r) {
        out.failures = 1;
        out.error = r.error().message;
    } else {
        out.event_count = static_cast<int>(r->size());
    }
}

net::awaitable<void> run(Options const& o, std::string const& base, Outcome& out) {
    auto ex = co_await net::this_coro::executor;
    ClientOptions co;
    co.service_name = "bench";
    co.max_concurrency = o.concurrency;
    HttpClient client(ex, co);
    std::vector<std::pair<std::string, std::string>> headers;
    if (!o.token.empty())
        headers.emplace_back("Authorization", "Bearer " + o.token);

    // Pages follow each other (a continuation token is only known after the previous page).
    auto t0 = steady_clock::now();
    for (int p = 1; p <= o.pages; ++p) {
        HttpRequest req(base + "/v3/users/me/events/?status=live&page=" + std::to_string(p), headers);
        auto r = co_await client.get(std::move(req));
        if (!r || r->status != 200)
            ++out.failures;
    }
    auto t1 = steady_clock::now();

    // Expansions are independent: all are issued at once and the client's limit paces them.
    int pending = o.expansions;
    net::steady_timer all_done(ex, steady_clock::time_point::max());
    for (int i = 0; i < o.expansions; ++i) {
        HttpRequest req(
            base + "/v3/events/" + std::to_string(1000 + i) + "/?expand=venue,organizer",
            headers
        );
        net::co_spawn(ex, client.get(std::move(req)), [&](std::exception_ptr e, Result<HttpResponse> r) {
            if (e || !r || r->status != 200)
                ++out.failures;
            if (--pending == 0)
                all_done.cancel();
        });
    }
    if (pending > 0)
        co_await all_done.async_wait(tuple_awaitable);
    auto t2 = steady_clock::now();
    out.pages = std::chrono::duration_cast<milliseconds>(t1 - t0);
    out.expansions = std::chrono::duration_cast<milliseconds>(t2 - t1);
}

} // namespace

int main(int argc, char** argv) {
    auto o = parse_args(argc, argv);
    if (!o.base_url.empty()) {
        net::io_context ioc;
        Outcome out;
        net::co_spawn(ioc, run_events(o, out), [](std::exception_ptr e) {
            if (e)
                std::rethrow_exception(e);
        });
        ioc.run();
        if (out.failures) {
            std::printf("fetch failed: %s\n", out.error.c_str());
            return 1;
        }
        long long waves = (out.event_count + o.concurrency - 1) / o.concurrency;
        long long lower = (out.page_count + waves) * o.latency_ms;
        long long wall = out.expansions.count();
        std::printf(
            "events fetch: %d pages, %d events (each expanded), latency %d ms assumed, max_concurrency %d\n",
            out.page_count,
            out.event_count,
            o.latency_ms,
            o.concurrency
        );
        std::printf(
            "  total %lld ms, lower bound %lld ms, ratio %.3f\n",
            wall,
            lower,
            lower ? double(wall) / double(lower) : 0.0
        );
        return 0;
    }
    std::unique_ptr<LatencyServer> server;
    server = std::make_unique<LatencyServer>(milliseconds(o.latency_ms));
    std::string base = server->base_url();

    net::io_context ioc;
    Outcome out;
    net::co_spawn(ioc, run(o, base, out), [](std::exception_ptr e) {
        if (e)
            std::rethrow_exception(e);
    });
    ioc.run();

    long long waves = (o.expansions + o.concurrency - 1) / o.concurrency;
    long long lower = static_cast<long long>(o.pages + waves) * o.latency_ms;
    long long wall = (out.pages + out.expansions).count();
    std::printf(
        "fetch: %d pages + %d expansions, latency %d ms (in-process loopback server), max_concurrency %d\n",
        o.pages,
        o.expansions,
        o.latency_ms,
        o.concurrency
    );
    std::printf(
        "  pages      %6lld ms (lower bound %lld ms)\n",
        static_cast<long long>(out.pages.count()),
        static_cast<long long>(o.pages) * o.latency_ms
    );
    std::printf(
        "  expansions %6lld ms (lower bound %lld ms)\n",
        static_cast<long long>(out.expansions.count()),
        waves * o.latency_ms
    );
    std::printf(
        "  total      %6lld ms, lower bound %lld ms, ratio %.3f\n",
        wall,
        lower,
        lower ? double(wall) / double(lower) : 0.0
    );
    if (out.failures) {
        std::printf("  %d requests FAILED\n", out.failures);
        return 1;
    }
    return 0;
}
