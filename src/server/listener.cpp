// File: listener.cpp
// The accept loop: the connection limit, the descriptor reserve, one session per connection on its own
// strand or single-threaded worker, and the graceful stop (stop accepting, close idle connections, wait
// for the rest). Sessions are in session.cpp, the bytes they move in session_io.cpp.
#include "server/server_state.hpp"
#include "util/run_on.hpp"
#include "util/use_tuple.hpp"
#include "views/view_cache.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <optional>

namespace icsbridge {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr auto shutdown_grace = 10s;

using server_detail::ServerState;
using server_detail::SessionState;

constexpr std::string_view over_limit = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n"
                                        "Content-Length: 0\r\nConnection: close\r\n\r\n";
constexpr std::string_view over_client_limit = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\n"
                                               "Content-Length: 0\r\nConnection: close\r\n\r\n";

/** @brief Over a connection limit: a best-effort answer without waiting for the client, then close. */
template <class Socket>
void reject(Socket& sock, std::string_view msg = over_limit) {
    beast::error_code ec;
    sock.non_blocking(true, ec);
    sock.write_some(net::buffer(msg.data(), msg.size()), ec);
    sock.shutdown(tcp::socket::shutdown_both, ec);
    sock.close(ec);
}

/** @brief The executor the next connection's session runs on: a strand of its own, or the next worker. */
net::any_io_executor next_session_executor(ServerState& impl) {
    if (impl.workers.empty())
        return net::make_strand(impl.ex);
    return impl.workers[impl.next_worker++ % impl.workers.size()];
}

/**
 * @brief The descriptors kept free of connections (README "Open files"): 64 for snapshot writes and the
 * accept loop's 503, each source's max_concurrency for upstream requests, and the sealed files (memfd) of
 * large snapshot bodies, at most two per snapshot (identity and gzip): a feed's current snapshot and the one
 * before it (the CalDAV history keeps it, a response may still be sending it), and each cached view.
 */
std::size_t descriptor_reserve(Config const& cfg, std::size_t cached_views) {
    std::size_t reserve = 64;
    for (auto const& [name, src] : cfg.sources)
        reserve += static_cast<std::size_t>(src.max_concurrency);
    return reserve + 2 * (2 * cfg.feeds.size() + cached_views);
}

/**
 * @brief After a failed accept: out of file descriptors, the waiting client would hang until it gives up,
 * so the spare descriptor is freed to take that one connection, answer it 503 and close it, then kept
 * again. Either way, backs off instead of spinning on an acceptor that stays readable.
 */
net::awaitable<void>
recover_from_accept_error(ServerState& impl, beast::error_code ec, net::any_io_executor ex) {
    bool const out_of_fds = ec == net::error::no_descriptors || ec.value() == ENFILE;
    if (out_of_fds && impl.spare_fd >= 0) {
        ::close(impl.spare_fd);
        impl.spare_fd = -1;
        beast::error_code aec;
        tcp::socket doomed(ex);
        impl.acceptor.accept(doomed, aec);
        if (!aec) {
            impl.metrics.http.count(Route::other, 503);
            reject(doomed);
        }
        impl.spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    impl.log.warn(
        "accept failed: " + ec.message() +
        (out_of_fds ? " (open files: raise LimitNOFILE= or lower [server] max_connections)" : "")
    );
    net::steady_timer t(impl.strand, 100ms);
    co_await t.async_wait(use_tuple);
}

/**
 * @brief The connection limits: over max_connections a 503, over the client's own limit a 429, both
 * answered now, before a byte is read (one address holding many half-sent requests would make everyone
 * else wait). The client's address, or none: the socket was answered and closed.
 */
std::optional<net::ip::address> admit(ServerState& impl, tcp::socket& sock) {
    if (impl.active.load() >= impl.max_connections) {
        impl.metrics.http.count(Route::other, 503);
        reject(sock);
        return std::nullopt;
    }
    beast::error_code ignored;
    auto client = sock.remote_endpoint(ignored).address();
    if (!impl.clients.admit(client)) {
        impl.metrics.http.count(Route::other, 429);
        reject(sock, over_client_limit);
        return std::nullopt;
    }
    return client;
}

/** @brief A session's end: out of the table and the client's count; the last one out wakes a stop. */
void session_ended(
    std::shared_ptr<ServerState> const& impl,
    std::uint64_t id,
    net::ip::address const& client,
    std::exception_ptr e
) {
    {
        std::lock_guard lock(impl->mtx);
        impl->sessions.erase(id);
    }
    impl->clients.release(client);
    // The last one out tells a stopping accept loop (on its strand) that it need not wait longer.
    if (--impl->active == 0 && impl->stopping)
        net::post(impl->strand, [impl] { impl->drained.cancel(); });
    if (e) {
        try {
            std::rethrow_exception(e);
        } catch (std::exception const& ex) {
            impl->log.error(std::string("session failed: ") + ex.what());
        }
    }
}

/**
 * @brief Registers the connection and runs its session on the socket's executor (one strand or one
 * single-threaded worker per connection); an exception ends that session only, never the server.
 */
void start_session(
    std::shared_ptr<ServerState> const& impl, tcp::socket sock, net::ip::address const& client
) {
    beast::error_code ignored;
    sock.set_option(tcp::no_delay(true), ignored); // the last segment of a response must not wait
    auto st = std::make_shared<SessionState>(std::move(sock));
    st->peer = client;
    std::uint64_t id = 0;
    {
        std::lock_guard lock(impl->mtx);
        id = impl->next_id++;
        impl->sessions.emplace(id, st);
    }
    ++impl->active;
    auto ex = st->socket.get_executor();
    net::co_spawn(
        ex,
        server_detail::run_session(impl, std::move(st)),
        [impl, id, client](std::exception_ptr e) { session_ended(impl, id, client, std::move(e)); }
    );
}

/**
 * @brief After the loop stops accepting: lets requests in flight finish (idle connections were closed by
 * stop()); the last session to end cancels `drained`. Past the grace period the rest are closed, and their
 * ends awaited the same way.
 */
net::awaitable<void> wait_for_sessions(ServerState& impl) {
    for (int round = 0; round < 2 && impl.active.load() > 0; ++round) {
        if (round == 1) {
            impl.log.warn(
                std::to_string(impl.active.load()) +
                " connection(s) still open after the grace period; closing"
            );
            impl.for_each_session([](SessionState& s) {
                beast::error_code ignored;
                s.socket.close(ignored);
            });
        }
        impl.drained.expires_after(round == 0 ? shutdown_grace : std::chrono::hours(1));
        if (impl.active.load() > 0)
            co_await impl.drained.async_wait(use_tuple);
    }
}

net::awaitable<void> accept_loop(std::shared_ptr<ServerState> impl) {
    while (!impl->stopping) {
        // The new socket belongs to the executor its session will run on.
        auto session_ex = next_session_executor(*impl);
        auto [ec, sock] = co_await impl->acceptor.async_accept(session_ex, use_tuple);
        if (ec) {
            if (impl->stopping || ec == net::error::operation_aborted || !impl->acceptor.is_open())
                break;
            co_await recover_from_accept_error(*impl, ec, session_ex);
            continue;
        }
        if (auto client = admit(*impl, sock))
            start_session(impl, tcp::socket(std::move(sock)), *client);
    }
    co_await wait_for_sessions(*impl);
}

} // namespace

Server::Server(
    net::any_io_executor ex,
    Config const& cfg,
    ServedFeeds const& store,
    ViewCache& views,
    Metrics& metrics,
    Logger log,
    std::vector<net::any_io_executor> workers,
    HookSink on_hook
)
    // The caller keeps `cfg` alive for the server's life: no ownership taken.
    : Server(
          ex,
          std::make_shared<LiveConfig const>(std::shared_ptr<Config const>(&cfg, [](Config const*) {})),
          store,
          views,
          metrics,
          std::move(log),
          std::move(workers),
          std::move(on_hook)
      ) {}

Server::Server(
    net::any_io_executor ex,
    std::shared_ptr<LiveConfig const> live,
    ServedFeeds const& store,
    ViewCache& views,
    Metrics& metrics,
    Logger log,
    std::vector<net::any_io_executor> workers,
    HookSink on_hook
)
    : impl_(std::make_shared<ServerState>(
          ex, std::move(live), store, views, metrics, std::move(log), std::move(workers), std::move(on_hook)
      )) {
    // SIGPIPE is main()'s to ignore (a process-wide setting): a write to a closed socket then fails with
    // EPIPE.
}

Server::~Server() = default;

Result<std::uint16_t> Server::listen() {
    auto const& sc = impl_->cfg->server;
    // Connections must never use up the descriptors that snapshot writes, upstream requests, the snapshots'
    // sealed files and the 503 path need: keep a reserve below the open-file limit (serve raises it to the
    // hard limit first).
    impl_->max_connections = sc.max_connections;
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
        auto const reserve = descriptor_reserve(*impl_->cfg, impl_->views.limits().max_entries);
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

void Server::set_async_routes(std::shared_ptr<AsyncRoutes> routes) {
    impl_->async_routes = std::move(routes);
}

void Server::set_dav(std::shared_ptr<dav::History> history) {
    impl_->dav = std::move(history);
}

void Server::set_push(std::shared_ptr<dav::PushRegistry> registry) {
    impl_->push = std::move(registry);
}

void Server::set_revoked(std::shared_ptr<RevokedTokens const> revoked) {
    impl_->revoked = std::move(revoked);
}

net::awaitable<void> Server::run() {
    // The loop runs on the acceptor's strand, where stop() closes the acceptor.
    co_await run_on(impl_->strand, accept_loop(impl_));
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
