// File: listener.cpp
// The socket side of the server: the accept loop (connection limit, fd reserve, graceful stop) and one
// session coroutine per connection on its own strand or single-threaded worker (keep-alive, header/body/time
// limits, access log). Everything a response contains comes from handle_request(); the bytes move in
// session_io.cpp.
#include "server/hooks.hpp"
#include "server/session_io.hpp"
#include "util/trim.hpp"
#include <icsbridge/server.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
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

using server_detail::SessionState;
using server_detail::steady;

/** @brief A user agent fit for one log line (no quotes or control characters to forge lines with). */
std::string printable(std::string_view s) {
    std::string out(s.substr(0, 200));
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == 0x7f)
            c = '?';
    return out;
}

/**
 * @brief True unless the request has a Transfer-Encoding other than exactly `chunked` (`identity`,
 * `gzip, chunked`, `chunked, chunked`, or an empty one): those are refused, never guessed at.
 */
bool plain_chunked_or_absent(http::request<http::string_body> const& req) {
    int codings = 0;
    bool chunked_only = true;
    auto [first, last] = req.equal_range(http::field::transfer_encoding);
    for (auto field = first; field != last; ++field) {
        std::string_view list = field->value();
        while (!list.empty()) {
            auto comma = list.find(',');
            auto coding = trim_ows(list.substr(0, comma));
            list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
            if (coding.empty())
                continue;
            ++codings;
            chunked_only = chunked_only && beast::iequals(coding, "chunked");
        }
        if (codings == 0)
            return false; // "Transfer-Encoding:" with no coding
    }
    return codings <= 1 && chunked_only;
}

bool is_parse_error(beast::error_code const& ec) {
    return ec.category() == make_error_code(http::error::bad_target).category();
}

} // namespace

struct Server::Impl {
    Impl(
        net::any_io_executor e,
        std::shared_ptr<LiveConfig const> c,
        FeedStore const& s,
        Logger l,
        std::vector<net::any_io_executor> w,
        HookSink h
    )
        : ex(e)
        , workers(std::move(w))
        , strand(net::make_strand(e))
        , live(std::move(c))
        , cfg(live->get())
        , store(s)
        , log(std::move(l))
        , on_hook(std::move(h))
        , acceptor(strand)
        , max_connections(cfg->server.max_connections) {}

    ~Impl() {
        if (spare_fd >= 0)
            ::close(spare_fd);
    }

    net::any_io_executor ex;
    std::vector<net::any_io_executor> workers; ///< single-threaded; empty: strands on ex
    std::size_t next_worker = 0;               ///< touched by the accept loop only
    net::strand<net::any_io_executor> strand;  ///< the acceptor's
    std::shared_ptr<LiveConfig const> live;    ///< each request is answered from the config in force
    /// The config at start: what only a restart changes (listen address, limits, timeouts)
    std::shared_ptr<Config const> cfg;
    FeedStore const& store;
    Logger log;
    HookSink on_hook;
    tcp::acceptor acceptor;
    std::uint16_t port = 0;
    /// cfg.server.max_connections, lowered by listen() to fit the open-file limit with a reserve
    std::size_t max_connections = 0;
    std::atomic<bool> stopping{false};
    /// Held open so that, out of descriptors, closing it lets one waiting client be answered 503
    int spare_fd = -1;
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

sys_seconds now_seconds() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

net::awaitable<void> send_error(SessionState& st, unsigned status, Impl& impl) {
    ServerResponse res;
    res.status = status;
    res.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    res.text = std::string(http::obsolete_reason(static_cast<http::status>(status))) + "\n";
    co_await server_detail::send(st, 11, res, server_detail::date_header(now_seconds()), false);
    impl.store.http_metrics().count(Route::other, status);
}

net::awaitable<void> run_session(std::shared_ptr<Impl> impl, std::shared_ptr<SessionState> st) {
    auto const& sc = impl->cfg->server;
    beast::flat_buffer buffer;
    beast::error_code nb;
    st->socket.non_blocking(true, nb); // synchronous reads return would_block instead of waiting
    st->write_stall = sc.idle_timeout;
    st->expires_after(sc.request_timeout);
    bool linger = false; // answered without reading a body: drain before closing
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
        http::request_parser<http::string_body> parser;
        parser.header_limit(header_limit);
        // read_request stops at the header; only a hook's body is read, under its own limit (below).
        parser.body_limit(boost::none);
        // Every request gets its own deadline, the second on a keep-alive connection too.
        st->expires_after(sc.request_timeout);
        if (auto ec = co_await server_detail::read_request(*st, buffer, parser)) {
            if (ec == http::error::body_limit || ec == http::error::unexpected_body)
                co_await send_error(*st, 413, *impl);
            else if (ec == http::error::header_limit)
                co_await send_error(*st, 431, *impl);
            else if (is_parse_error(ec) && ec != http::error::end_of_stream && ec != http::error::partial_message)
                co_await send_error(*st, 400, *impl);
            break;
        }
        auto const& req = parser.get();
        // A coding other than chunked cannot be framed, so where this request ends, and whether what follows
        // is another one, is unknowable (request smuggling): refuse it and close (RFC 9112 6.1).
        if (!plain_chunked_or_absent(req)) {
            co_await send_error(*st, 400, *impl);
            linger = true;
            break;
        }
        // Only a webhook has a body, and only a small one: read it (announced too large: leave it unread and
        // answer 413). Any other body is refused: on GET/HEAD as too large; other methods get their 405 from
        // the router below, then the connection closes, since the body was not read.
        bool body_too_large = false;
        if (req.method() == http::verb::post && req.target().starts_with("/hooks/") && !parser.is_done()) {
            auto announced = parser.content_length();
            body_too_large = announced && *announced > hook_body_limit;
            if (!body_too_large) {
                parser.body_limit(hook_body_limit);
                auto bec = co_await server_detail::read_body(*st, buffer, parser);
                body_too_large = bec == http::error::body_limit;
                if (bec && !body_too_large) {
                    if (is_parse_error(bec) && bec != http::error::partial_message)
                        co_await send_error(*st, 400, *impl);
                    break;
                }
            }
        }
        bool const body_unread = !parser.is_done();
        if (body_unread && (req.method() == http::verb::get || req.method() == http::verb::head)) {
            co_await send_error(*st, 413, *impl);
            linger = true;
            break;
        }
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
        sreq.authorization = req[http::field::authorization];
        sreq.body = req.body();
        sreq.body_too_large = body_too_large;
        // The body is a view into the immutable snapshot, which `res` keeps alive until written.
        ServerResponse res = handle_request(sreq, impl->store, *impl->live->get(), now);
        bool keep = req.keep_alive() && !impl->stopping && !body_unread;
        auto wec =
            co_await server_detail::send(*st, req.version(), res, server_detail::date_header(now), keep);
        impl->store.http_metrics().count(res.route, res.status);
        if (!res.hook_source.empty()) {
            impl->log.info(
                "hook for source " + res.hook_source + " (" + res.hook_action + "): refreshing its feeds"
            );
            if (impl->on_hook)
                impl->on_hook(res.hook_source);
        }
        // Build the access-log line only when it will be written: this is the hot path.
        if (impl->log.sink && impl->log.min <= LogLevel::info) {
            auto ms = std::chrono::duration<double, std::milli>(steady::now() - started).count();
            char took[32];
            std::snprintf(took, sizeof took, "%.1fms", ms);
            impl->log.info(
                std::string(sreq.method) + " " + redact_url(redact_hook_target(sreq.target)) + " " +
                std::to_string(res.status) + " " +
                std::to_string(res.head || res.status == 304 ? 0 : res.body().size()) + " " + took + " \"" +
                printable(req[http::field::user_agent]) + "\""
            );
        }
        if (wec || !keep) {
            linger = body_unread && !wec;
            break;
        }
    }
    if (linger)
        co_await server_detail::drain_before_close(*st, std::min<steady::duration>(sc.request_timeout, 5s));
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
            bool const out_of_fds = ec == net::error::no_descriptors || ec.value() == ENFILE;
            // Out of file descriptors: the waiting client would hang until it gives up. Free the spare
            // descriptor, take that one connection, answer it 503 and close it, then keep the spare again.
            if (out_of_fds && impl->spare_fd >= 0) {
                ::close(impl->spare_fd);
                impl->spare_fd = -1;
                beast::error_code aec;
                tcp::socket doomed(session_ex);
                impl->acceptor.accept(doomed, aec);
                if (!aec) {
                    impl->store.http_metrics().count(Route::other, 503);
                    reject(doomed);
                }
                impl->spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
            }
            // Either way, back off instead of spinning on an acceptor that stays readable.
            impl->log.warn(
                "accept failed: " + ec.message() +
                (out_of_fds ? " (open files: raise LimitNOFILE= or lower [server] max_connections)" : "")
            );
            net::steady_timer t(impl->strand, 100ms);
            co_await t.async_wait(use_tuple);
            continue;
        }
        if (impl->active.load() >= impl->max_connections) {
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
    std::vector<net::any_io_executor> workers,
    HookSink on_hook
)
    // The caller keeps `cfg` alive for the server's life: no ownership taken.
    : Server(
          ex,
          std::make_shared<LiveConfig const>(std::shared_ptr<Config const>(&cfg, [](Config const*) {})),
          store,
          std::move(log),
          std::move(workers),
          std::move(on_hook)
      ) {}

Server::Server(
    net::any_io_executor ex,
    std::shared_ptr<LiveConfig const> live,
    FeedStore const& store,
    Logger log,
    std::vector<net::any_io_executor> workers,
    HookSink on_hook
)
    : impl_(std::make_shared<Impl>(
          ex, std::move(live), store, std::move(log), std::move(workers), std::move(on_hook)
      )) {
    // SIGPIPE is main()'s to ignore (a process-wide setting): a write to a closed socket then fails with
    // EPIPE.
}

Server::~Server() = default;

Result<std::uint16_t> Server::listen() {
    auto const& sc = impl_->cfg->server;
    // Connections must never use up the descriptors that snapshot writes, upstream requests and the 503
    // path need: keep a reserve below the open-file limit (serve raises it to the hard limit first).
    impl_->max_connections = sc.max_connections;
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
        std::size_t reserve = 64;
        for (auto const& [name, src] : impl_->cfg->sources)
            reserve += static_cast<std::size_t>(src.max_concurrency);
        auto const fit = lim.rlim_cur > reserve * 2 ? static_cast<std::size_t>(lim.rlim_cur) - reserve
                                                    : static_cast<std::size_t>(lim.rlim_cur) / 2;
        if (fit < impl_->max_connections) {
            impl_->max_connections = std::max<std::size_t>(fit, 1);
            impl_->log.warn(
                "max_connections " + std::to_string(sc.max_connections) +
                " does not fit the open-file limit " + std::to_string(lim.rlim_cur) + " with a reserve of " +
                std::to_string(reserve) + "; using " + std::to_string(impl_->max_connections) +
                " (raise LimitNOFILE= / ulimit -n)"
            );
        }
    }
    if (impl_->spare_fd < 0)
        impl_->spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
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
