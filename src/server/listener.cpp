// File: listener.cpp
// The socket side of the server: the accept loop (connection limit, graceful stop) and one session
// coroutine per connection on its own strand or single-threaded worker (keep-alive, header/body/time limits,
// access log). Everything a response contains comes from handle_request(); this file only moves bytes. Beast
// parses requests; responses are serialized here into one reused buffer and sent with the body (a view into
// the immutable snapshot) as one gather-write, or with sendfile() for a large gzip body: Beast's fields and
// serializer cost more than the rest together.
#include "store/etag.hpp"
#include <icsbridge/server.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/status.hpp>

#include <sys/sendfile.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <limits>
#include <mutex>
#include <tuple>
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

using steady = std::chrono::steady_clock;

struct SessionState {
    explicit SessionState(tcp::socket s)
        : socket(std::move(s))
        , watchdog(socket.get_executor()) {}
    tcp::socket socket;
    // One timer per connection that wakes up once per timeout period, instead of arming and cancelling a
    // timer around every read and write (beast::tcp_stream): moving the deadline is a plain store.
    net::steady_timer watchdog;
    steady::time_point deadline;
    bool idle = false; ///< waiting for the next request
    bool done = false; ///< the session has ended; the watchdog stops
    std::string head;  ///< the response header block, reused so its capacity is kept
    // All of the above is only touched on the session's strand.

    void expires_after(steady::duration d) { deadline = steady::now() + d; }
};

/** @brief Closes the socket once the deadline has passed (pending operations then fail). */
void watch(std::shared_ptr<SessionState> st) {
    st->watchdog.expires_at(st->deadline);
    st->watchdog.async_wait([st](boost::system::error_code) mutable {
        if (st->done)
            return;
        if (steady::now() >= st->deadline) {
            beast::error_code ignored;
            st->socket.close(ignored);
            return;
        }
        watch(std::move(st));
    });
}

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
    Impl(
        net::any_io_executor e,
        Config const& c,
        FeedStore const& s,
        Logger l,
        std::vector<net::any_io_executor> w
    )
        : ex(e)
        , workers(std::move(w))
        , strand(net::make_strand(e))
        , cfg(c)
        , store(s)
        , log(std::move(l))
        , acceptor(strand) {}

    net::any_io_executor ex;
    std::vector<net::any_io_executor> workers; ///< single-threaded; empty: strands on ex
    std::size_t next_worker = 0;               ///< touched by the accept loop only
    net::strand<net::any_io_executor> strand;  ///< the acceptor's
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
                net::post(st->socket.get_executor(), [st, fn] { fn(*st); });
    }
};

namespace {

using Impl = Server::Impl;

void append_number(std::string& out, std::size_t n) {
    char digits[24];
    auto r = std::to_chars(digits, digits + sizeof digits, n);
    out.append(digits, r.ptr);
}

/**
 * @brief The status line and header block, field for field what Beast's serializer wrote for the
 * same message: the handler's headers, Date, Content-Length (not for 304), then Connection as
 * `keep_alive()` sets it (close for a 1.1 connection ending, keep-alive for a 1.0 one kept open).
 */
void serialize_head(
    std::string& out,
    unsigned version,
    ServerResponse const& res,
    std::string_view date,
    std::size_t body_size,
    bool keep
) {
    out.clear();
    out += "HTTP/";
    out += static_cast<char>('0' + version / 10 % 10);
    out += '.';
    out += static_cast<char>('0' + version % 10);
    out += ' ';
    append_number(out, res.status);
    out += ' ';
    out += http::obsolete_reason(static_cast<http::status>(res.status));
    out += "\r\n";
    for (auto const& [name, value] : res.headers) {
        out += name;
        out += ": ";
        out += value;
        out += "\r\n";
    }
    out += "Date: ";
    out += date;
    out += "\r\n";
    if (res.status != 304) {
        out += "Content-Length: ";
        append_number(out, body_size);
        out += "\r\n";
    }
    if (version >= 11 && !keep)
        out += "Connection: close\r\n";
    else if (version < 11 && keep)
        out += "Connection: keep-alive\r\n";
    out += "\r\n";
}

/**
 * @brief A completion condition for async_write that hands the kernel everything that is left in one
 * system call. Asio's transfer_all caps each write at 64 KiB, which for a large body means several
 * sendmsg() calls and pushes per response where the socket could take it all at once.
 */
std::size_t whole_buffers(beast::error_code const& ec, std::size_t) {
    return ec ? 0 : std::numeric_limits<std::size_t>::max();
}

/**
 * @brief Sends `size` bytes of `fd` from its start with sendfile(): the kernel hands the file's pages to
 * the socket instead of copying them from our memory, as nginx does for static files.
 */
net::awaitable<beast::error_code> send_file(SessionState& st, int fd, std::size_t size) {
    off_t offset = 0;
    while (size > 0) {
        auto n = ::sendfile(st.socket.native_handle(), fd, &offset, size);
        if (n > 0) {
            size -= static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            auto [ec] = co_await st.socket.async_wait(tcp::socket::wait_write, use_tuple);
            if (ec)
                co_return ec;
            continue;
        }
        co_return beast::error_code(n < 0 ? errno : EIO, boost::system::system_category());
    }
    co_return beast::error_code{};
}

/** @brief Writes the response (head, and the body unless HEAD or 304) in one gather-write. */
net::awaitable<beast::error_code>
send(SessionState& st, unsigned version, ServerResponse const& res, std::string_view date, bool keep) {
    auto body = res.body();
    serialize_head(st.head, version, res, date, body.size(), keep);
    if (res.head || res.status == 304)
        body = {};
    // A large gzip body, the form most subscribers fetch, goes out with sendfile(): copying it from the heap
    // was the largest single cost of such a request. The head is held back (MSG_MORE) to share a segment.
    if (!body.empty() && res.gzip && res.snapshot->gzip_file) {
        beast::error_code ec;
        auto sent = st.socket.send(net::buffer(st.head), MSG_MORE, ec); // non-blocking
        if (ec && ec != net::error::would_block)
            co_return ec;
        if (sent < st.head.size()) {
            auto [wec, n] = co_await net::async_write(st.socket, net::buffer(st.head) + sent, use_tuple);
            if (wec)
                co_return wec;
        }
        co_return co_await send_file(st, res.snapshot->gzip_file->fd(), body.size());
    }
    std::array<net::const_buffer, 2> bufs{net::buffer(st.head), net::buffer(body.data(), body.size())};
    auto [ec, n] = co_await net::async_write(st.socket, bufs, whole_buffers, use_tuple);
    co_return ec;
}

sys_seconds now_seconds() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

net::awaitable<void> send_error(SessionState& st, unsigned status, Impl& impl) {
    ServerResponse res;
    res.status = status;
    res.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    res.text = std::string(http::obsolete_reason(static_cast<http::status>(status))) + "\n";
    st.expires_after(impl.cfg.server.request_timeout);
    co_await send(st, 11, res, date_header(now_seconds()), false);
    impl.store.http_metrics().count(Route::other, status);
}

/**
 * @brief Reads one request into `parser` (what http::async_read does, without a composed operation
 * and its extra post per request). Errors as Beast reports them: end_of_stream when the peer closed
 * before a byte of it, partial_message when it closed in the middle.
 */
net::awaitable<beast::error_code>
read_request(SessionState& st, beast::flat_buffer& buffer, http::request_parser<http::empty_body>& parser) {
    beast::error_code ec;
    for (;;) {
        if (buffer.size() > 0) {
            auto used = parser.put(buffer.data(), ec);
            buffer.consume(used);
            if (ec && ec != http::error::need_more)
                co_return ec;
            if (parser.is_done())
                co_return beast::error_code{};
            if (!ec && used > 0)
                continue; // the header is done; parse what follows it
            ec = {};
        }
        auto size = beast::read_size(buffer, 65536);
        if (size == 0)
            co_return beast::error_code(http::error::buffer_overflow);
        auto [rec, n] = co_await st.socket.async_read_some(buffer.prepare(size), use_tuple);
        buffer.commit(n);
        if (rec == net::error::eof) {
            if (!parser.got_some())
                co_return beast::error_code(http::error::end_of_stream);
            parser.put_eof(ec);
            co_return ec;
        }
        if (rec)
            co_return rec;
    }
}

net::awaitable<void> run_session(std::shared_ptr<Impl> impl, std::shared_ptr<SessionState> st) {
    auto const& sc = impl->cfg.server;
    beast::flat_buffer buffer;
    beast::error_code nb;
    st->socket.non_blocking(true, nb); // synchronous reads return would_block instead of waiting
    st->expires_after(sc.request_timeout);
    watch(st);
    for (bool first = true;; first = false) {
        // Between requests the client gets the idle timeout to start the next one (a new connection:
        // request_timeout); once a byte has arrived it gets request_timeout for the whole request, so a
        // slow client is cut off. Until that first byte the connection counts as idle for stop().
        if (buffer.size() == 0) {
            st->idle = true;
            if (impl->stopping)
                break;
            st->expires_after(first ? sc.request_timeout : sc.idle_timeout);
            beast::error_code ec;
            std::size_t n = 0;
            if (!first) {
                // Right after a response the next request is rarely there yet: wait for it rather than
                // start with a read that fails (one system call less per keep-alive request).
                std::tie(ec) = co_await st->socket.async_wait(tcp::socket::wait_read, use_tuple);
                if (!ec)
                    n = st->socket.read_some(buffer.prepare(4096), ec); // non-blocking
            }
            if (first || ec == net::error::would_block)
                std::tie(ec, n) = co_await st->socket.async_read_some(buffer.prepare(4096), use_tuple);
            st->idle = false;
            if (ec)
                break;
            buffer.commit(n);
        }
        http::request_parser<http::empty_body> parser;
        parser.header_limit(header_limit);
        parser.body_limit(0); // no endpoint takes a body
        st->expires_after(sc.request_timeout);
        if (auto ec = co_await read_request(*st, buffer, parser)) {
            if (ec == http::error::body_limit || ec == http::error::unexpected_body)
                co_await send_error(*st, 413, *impl);
            else if (ec == http::error::header_limit)
                co_await send_error(*st, 431, *impl);
            else if (is_parse_error(ec) && ec != http::error::end_of_stream && ec != http::error::partial_message)
                co_await send_error(*st, 400, *impl);
            break;
        }
        auto const& req = parser.get();
        auto started = steady::now();
        auto now = now_seconds();
        ServerRequest sreq;
        sreq.method = req.method_string();
        sreq.target = req.target();
        if (auto it = req.find(http::field::if_none_match); it != req.end())
            sreq.if_none_match = it->value();
        if (auto it = req.find(http::field::if_modified_since); it != req.end())
            sreq.if_modified_since = it->value();
        sreq.accept_encoding = req[http::field::accept_encoding];
        // The body is a view into the immutable snapshot, which `res` keeps alive until written.
        ServerResponse res = handle_request(sreq, impl->store, impl->cfg, now);
        bool keep = req.keep_alive() && !impl->stopping;
        st->expires_after(sc.idle_timeout);
        auto wec = co_await send(*st, req.version(), res, date_header(now), keep);
        impl->store.http_metrics().count(res.route, res.status);
        // Build the access-log line only when it will be written: this is the hot path.
        if (impl->log.sink && impl->log.min <= LogLevel::info) {
            auto ms = std::chrono::duration<double, std::milli>(steady::now() - started).count();
            char took[32];
            std::snprintf(took, sizeof took, "%.1fms", ms);
            impl->log.info(
                std::string(sreq.method) + " " + redact_url(sreq.target) + " " + std::to_string(res.status) +
                " " + std::to_string(res.head || res.status == 304 ? 0 : res.body().size()) + " " + took +
                " \"" + printable(req[http::field::user_agent]) + "\""
            );
        }
        if (wec || !keep)
            break;
    }
    st->done = true;
    st->watchdog.cancel();
    beast::error_code ignored;
    st->socket.shutdown(tcp::socket::shutdown_send, ignored);
    st->socket.close(ignored);
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
        // The new socket belongs to the executor its session will run on.
        net::any_io_executor session_ex = impl->workers.empty()
                                              ? net::any_io_executor(net::make_strand(impl->ex))
                                              : impl->workers[impl->next_worker++ % impl->workers.size()];
        auto [ec, sock] = co_await impl->acceptor.async_accept(session_ex, use_tuple);
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
        beast::error_code ignored;
        sock.set_option(tcp::no_delay(true), ignored); // the last segment of a response must not wait
        auto st = std::make_shared<SessionState>(tcp::socket(std::move(sock)));
        std::uint64_t id;
        {
            std::lock_guard lock(impl->mtx);
            id = impl->next_id++;
            impl->sessions.emplace(id, st);
        }
        ++impl->active;
        auto ex = st->socket.get_executor();
        // One strand (or one single-threaded worker) per connection; an exception ends that session only,
        // never the server.
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
        impl->for_each_session([](SessionState& s) {
            beast::error_code ignored;
            s.socket.close(ignored);
        });
        while (impl->active.load() > 0) {
            t.expires_after(20ms);
            co_await t.async_wait(use_tuple);
        }
    }
}

} // namespace

Server::Server(
    net::any_io_executor ex,
    Config const& cfg,
    FeedStore const& store,
    Logger log,
    std::vector<net::any_io_executor> workers
)
    : impl_(std::make_shared<Impl>(ex, cfg, store, std::move(log), std::move(workers))) {
    // sendfile() has no MSG_NOSIGNAL: a client hanging up in the middle of a body would otherwise end the
    // whole process with SIGPIPE. Servers ignore it (nginx does); the write then fails with EPIPE.
    ::signal(SIGPIPE, SIG_IGN);
}

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
        if (s.idle) {
            beast::error_code ignored;
            s.socket.cancel(ignored);
        }
    });
}

} // namespace icsbridge
