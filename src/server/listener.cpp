// File: listener.cpp
// The socket side of the server: the accept loop (connection limit, graceful stop) and one session
// coroutine per connection on its own strand (keep-alive, header/body/time limits, access log).
// Everything a response contains comes from handle_request(); this file only moves bytes.
#include "store/etag.hpp"
#include <icsbridge/server.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <unordered_map>

namespace icsbridge {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr auto use_tuple = net::as_tuple(net::use_awaitable);
constexpr std::size_t header_limit = 16 * 1024;
constexpr auto shutdown_grace = 10s;

struct SessionState {
    explicit SessionState(tcp::socket s)
        : stream(std::move(s)) {}
    beast::tcp_stream stream;
    bool idle = false; ///< waiting for the next request; only touched on the session's strand
};

/** @brief The Date header, formatted once per second per thread. */
std::string const& date_header(std::chrono::sys_seconds now) {
    thread_local std::chrono::sys_seconds cached{};
    thread_local std::string text;
    if (now != cached || text.empty()) {
        cached = now;
        text = format_http_date(now);
    }
    return text;
}

/** @brief A user agent fit for one log line (no quotes or control characters to forge lines with). */
std::string printable(std::string_view s) {
    std::string out(s.substr(0, 200));
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == 0x7f)
            c = '?';
    return out;
}

bool is_parse_error(beast::error_code const& ec) {
    return ec.category() == make_error_code(http::error::bad_target).category();
}

} // namespace

struct Server::Impl {
    Impl(net::any_io_executor e, Config const& c, FeedStore const& s, Logger l)
        : ex(e)
        , strand(net::make_strand(e))
        , cfg(c)
        , store(s)
        , log(std::move(l))
        , acceptor(strand) {}

    net::any_io_executor ex;
    net::strand<net::any_io_executor> strand; ///< the acceptor's
    Config const& cfg;
    FeedStore const& store;
    Logger log;
    tcp::acceptor acceptor;
    std::uint16_t port = 0;
    std::atomic<bool> stopping{false};
    std::atomic<std::size_t> active{0};
    std::mutex mtx;
    std::uint64_t next_id = 0;
    std::unordered_map<std::uint64_t, std::weak_ptr<SessionState>> sessions;

    /** @brief Runs `fn(state)` on every open session's strand. */
    template <class Fn>
    void for_each_session(Fn fn) {
        std::lock_guard lock(mtx);
        for (auto& [id, weak] : sessions)
            if (auto st = weak.lock())
                net::post(st->stream.get_executor(), [st, fn] { fn(*st); });
    }
};

namespace {

using Impl = Server::Impl;

net::awaitable<void> send_error(beast::tcp_stream& stream, unsigned status, unsigned version, Impl& impl) {
    http::response<http::string_body> res{static_cast<http::status>(status), version};
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    res.set(
        http::field::date,
        date_header(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()))
    );
    res.body() = std::string(http::obsolete_reason(static_cast<http::status>(status))) + "\n";
    res.keep_alive(false);
    res.prepare_payload();
    stream.expires_after(impl.cfg.server.request_timeout);
    co_await http::async_write(stream, res, use_tuple);
    impl.store.http_metrics().count(Route::other, status);
}

net::awaitable<void> run_session(std::shared_ptr<Impl> impl, std::shared_ptr<SessionState> st) {
    auto& stream = st->stream;
    auto const& sc = impl->cfg.server;
    beast::flat_buffer buffer;
    for (bool first = true;; first = false) {
        // Between requests the client gets the idle timeout to start the next one (a new connection:
        // request_timeout); once a byte has arrived it gets request_timeout for the whole request, so a
        // slow client is cut off. Until that first byte the connection counts as idle for stop().
        if (buffer.size() == 0) {
            st->idle = true;
            if (impl->stopping)
                break;
            stream.expires_after(first ? sc.request_timeout : sc.idle_timeout);
            auto [ec, n] = co_await stream.async_read_some(buffer.prepare(4096), use_tuple);
            st->idle = false;
            if (ec)
                break;
            buffer.commit(n);
        }
        http::request_parser<http::empty_body> parser;
        parser.header_limit(header_limit);
        parser.body_limit(0); // no endpoint takes a body
        stream.expires_after(sc.request_timeout);
        auto [ec, n] = co_await http::async_read(stream, buffer, parser, use_tuple);
        if (ec) {
            if (ec == http::error::body_limit || ec == http::error::unexpected_body)
                co_await send_error(stream, 413, 11, *impl);
            else if (ec == http::error::header_limit)
                co_await send_error(stream, 431, 11, *impl);
            else if (is_parse_error(ec) && ec != http::error::end_of_stream && ec != http::error::partial_message)
                co_await send_error(stream, 400, 11, *impl);
            break;
        }
        auto const& req = parser.get();
        auto started = std::chrono::steady_clock::now();
        auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
        ServerRequest sreq;
        sreq.method = req.method_string();
        sreq.target = req.target();
        if (auto it = req.find(http::field::if_none_match); it != req.end())
            sreq.if_none_match = it->value();
        if (auto it = req.find(http::field::if_modified_since); it != req.end())
            sreq.if_modified_since = it->value();
        sreq.accept_encoding = req[http::field::accept_encoding];
        ServerResponse res = handle_request(sreq, impl->store, impl->cfg, now);

        // The body is a view into the immutable snapshot, which `res` keeps alive until written.
        http::response<http::span_body<char const>> msg{static_cast<http::status>(res.status), req.version()};
        for (auto const& [name, value] : res.headers)
            msg.set(name, value);
        msg.set(http::field::date, date_header(now));
        auto body = res.body();
        if (res.status != 304)
            msg.content_length(body.size());
        if (!res.head && res.status != 304)
            msg.body() = {body.data(), body.size()};
        bool keep = req.keep_alive() && !impl->stopping;
        msg.keep_alive(keep);
        stream.expires_after(sc.idle_timeout);
        auto [wec, written] = co_await http::async_write(stream, msg, use_tuple);
        impl->store.http_metrics().count(res.route, res.status);
        // Build the access-log line only when it will be written: this is the hot path.
        if (impl->log.sink && impl->log.min <= LogLevel::info) {
            auto ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
            char took[32];
            std::snprintf(took, sizeof took, "%.1fms", ms);
            impl->log.info(
                std::string(sreq.method) + " " + redact_url(sreq.target) + " " + std::to_string(res.status) +
                " " + std::to_string(res.head || res.status == 304 ? 0 : body.size()) + " " + took + " \"" +
                printable(req[http::field::user_agent]) + "\""
            );
        }
        if (wec || !keep)
            break;
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream.socket().close(ignored);
}

/** @brief Over the connection limit: a best-effort 503 without waiting for the client, then close. */
template <class Socket>
void reject(Socket& sock) {
    static constexpr std::string_view msg = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n"
                                            "Content-Length: 0\r\nConnection: close\r\n\r\n";
    beast::error_code ec;
    sock.non_blocking(true, ec);
    sock.write_some(net::buffer(msg.data(), msg.size()), ec);
    sock.shutdown(tcp::socket::shutdown_both, ec);
    sock.close(ec);
}

net::awaitable<void> accept_loop(std::shared_ptr<Impl> impl) {
    while (!impl->stopping) {
        auto [ec, sock] = co_await impl->acceptor.async_accept(net::make_strand(impl->ex), use_tuple);
        if (ec) {
            if (impl->stopping || ec == net::error::operation_aborted || !impl->acceptor.is_open())
                break;
            // Out of file descriptors and the like: back off instead of spinning.
            impl->log.warn("accept failed: " + ec.message());
            net::steady_timer t(impl->strand, 100ms);
            co_await t.async_wait(use_tuple);
            continue;
        }
        if (impl->active.load() >= impl->cfg.server.max_connections) {
            impl->store.http_metrics().count(Route::other, 503);
            reject(sock);
            continue;
        }
        auto st = std::make_shared<SessionState>(tcp::socket(std::move(sock)));
        std::uint64_t id;
        {
            std::lock_guard lock(impl->mtx);
            id = impl->next_id++;
            impl->sessions.emplace(id, st);
        }
        ++impl->active;
        auto ex = st->stream.get_executor();
        // One strand per connection; an exception ends that session only, never the server.
        net::co_spawn(ex, run_session(impl, std::move(st)), [impl, id](std::exception_ptr e) {
            {
                std::lock_guard lock(impl->mtx);
                impl->sessions.erase(id);
            }
            --impl->active;
            if (e) {
                try {
                    std::rethrow_exception(e);
                } catch (std::exception const& ex) {
                    impl->log.error(std::string("session failed: ") + ex.what());
                }
            }
        });
    }
    // Let requests in flight finish; idle connections were closed by stop().
    net::steady_timer t(impl->strand);
    auto deadline = std::chrono::steady_clock::now() + shutdown_grace;
    while (impl->active.load() > 0 && std::chrono::steady_clock::now() < deadline) {
        t.expires_after(20ms);
        co_await t.async_wait(use_tuple);
    }
    if (impl->active.load() > 0) {
        impl->log.warn(
            std::to_string(impl->active.load()) + " connection(s) still open after the grace period; closing"
        );
        impl->for_each_session([](SessionState& s) { s.stream.close(); });
        while (impl->active.load() > 0) {
            t.expires_after(20ms);
            co_await t.async_wait(use_tuple);
        }
    }
}

} // namespace

Server::Server(net::any_io_executor ex, Config const& cfg, FeedStore const& store, Logger log)
    : impl_(std::make_shared<Impl>(ex, cfg, store, std::move(log))) {}

Server::~Server() = default;

Result<std::uint16_t> Server::listen() {
    auto const& sc = impl_->cfg.server;
    beast::error_code ec;
    auto addr = net::ip::make_address(sc.host, ec);
    if (ec) {
        tcp::resolver resolver(impl_->ex);
        auto results = resolver.resolve(sc.host, std::to_string(sc.port), ec);
        if (ec || results.empty())
            return fail(errc::io_error, "cannot resolve listen address " + sc.host + ": " + ec.message());
        addr = results.begin()->endpoint().address();
    }
    tcp::endpoint ep(addr, sc.port);
    auto& a = impl_->acceptor;
    std::string where = sc.host + ":" + std::to_string(sc.port);
    if (a.open(ep.protocol(), ec); ec)
        return fail(errc::io_error, "cannot open socket for " + where + ": " + ec.message());
    a.set_option(net::socket_base::reuse_address(true), ec);
    if (a.bind(ep, ec); ec)
        return fail(errc::io_error, "cannot listen on " + where + ": " + ec.message());
    if (a.listen(net::socket_base::max_listen_connections, ec); ec)
        return fail(errc::io_error, "cannot listen on " + where + ": " + ec.message());
    impl_->port = a.local_endpoint().port();
    return impl_->port;
}

std::uint16_t Server::port() const {
    return impl_->port;
}

std::size_t Server::connections() const {
    return impl_->active.load();
}

net::awaitable<void> Server::run() {
    // The loop runs on the acceptor's strand, where stop() closes the acceptor.
    co_await net::co_spawn(impl_->strand, accept_loop(impl_), net::use_awaitable);
}

void Server::stop() {
    if (impl_->stopping.exchange(true))
        return;
    auto impl = impl_;
    net::post(impl->strand, [impl] {
        beast::error_code ec;
        impl->acceptor.close(ec);
    });
    // A session waiting for its next request is closed now; one inside a request finishes it first
    // (it sees `stopping` and answers with Connection: close).
    impl->for_each_session([](SessionState& s) {
        if (s.idle)
            s.stream.socket().cancel();
    });
}

} // namespace icsbridge
