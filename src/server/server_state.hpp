// File: server_state.hpp
// What the listener and its sessions share: executors, the acceptor, the config in force, counters and
// the table of open sessions. Private to src/server/.
#pragma once

#include "server/client_limit.hpp"
#include "server/session_io.hpp"
#include <icsbridge/server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <unistd.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace icsbridge::server_detail {

struct ServerState {
    ServerState(
        boost::asio::any_io_executor e,
        std::shared_ptr<LiveConfig const> c,
        ServedFeeds const& s,
        ViewCache& v,
        Metrics& m,
        Logger l,
        std::vector<boost::asio::any_io_executor> w,
        HookSink h
    )
        : ex(e)
        , workers(std::move(w))
        , strand(boost::asio::make_strand(e))
        , live(std::move(c))
        , cfg(live->get())
        , store(s)
        , views(v)
        , metrics(m)
        , log(std::move(l))
        , on_hook(std::move(h))
        , acceptor(strand)
        , max_connections(cfg->server.max_connections)
        , clients(cfg->server.max_connections_per_client, cfg->server.trusted_proxies) {}

    ~ServerState() {
        if (spare_fd >= 0)
            ::close(spare_fd);
    }

    boost::asio::any_io_executor ex;
    std::vector<boost::asio::any_io_executor> workers;        ///< single-threaded; empty: strands on ex
    std::size_t next_worker = 0;                              ///< touched by the accept loop only
    boost::asio::strand<boost::asio::any_io_executor> strand; ///< the acceptor's
    std::shared_ptr<LiveConfig const> live; ///< each request is answered from the config in force
    /// The config at start: what only a restart changes (listen address, limits, timeouts)
    std::shared_ptr<Config const> cfg;
    ServedFeeds const& store;
    ViewCache& views; ///< the views built from the store's snapshots (the service drops them on publish)
    Metrics& metrics; ///< requests and webhooks counted here; owned by whoever wires the service
    Logger log;
    HookSink on_hook;
    boost::asio::ip::tcp::acceptor acceptor;
    std::uint16_t port = 0;
    /// cfg.server.max_connections, lowered by listen() to fit the open-file limit with a reserve
    std::size_t max_connections = 0;
    ClientLimit clients; ///< connections per client address ([server] max_connections_per_client)
    std::shared_ptr<RevokedTokens const> revoked; ///< set before run(); null: no token answers 410
    std::shared_ptr<AsyncRoutes> async_routes;    ///< set before run(); null: no connect routes
    std::shared_ptr<dav::History> dav;            ///< set before run(); null: no CalDAV tree
    std::shared_ptr<dav::PushRegistry> push;      ///< set before run(); null: no WebDAV-Push
    std::atomic<bool> stopping{false};
    /// Held open so that, out of descriptors, closing it lets one waiting client be answered 503
    int spare_fd = -1;
    std::atomic<std::size_t> active{0};
    /// Waited on by the accept loop after stop(); the last session to end cancels it (on `strand`), so
    /// shutting down waits for an event instead of polling the count.
    boost::asio::steady_timer drained{strand};
    std::mutex mtx;
    std::uint64_t next_id = 0;
    std::unordered_map<std::uint64_t, std::weak_ptr<SessionState>> sessions;

    /** @brief Runs `fn(state)` on every open session's strand. */
    template <class Fn>
    void for_each_session(Fn fn) {
        std::lock_guard lock(mtx);
        for (auto& [id, weak] : sessions)
            if (auto st = weak.lock())
                boost::asio::post(st->socket.get_executor(), [st, fn] { fn(*st); });
    }
};

/** @brief Serves one connection until it closes: read a request, route it, write the answer, repeat. */
boost::asio::awaitable<void>
run_session(std::shared_ptr<ServerState> state, std::shared_ptr<SessionState> st);

} // namespace icsbridge::server_detail
