// File: connection_pool.hpp
// The connections of one HttpClient: the FIFO limit on requests in flight (per source), the keep-alive
// pool, and opening new connections (resolve, connect, TLS handshake) with a deadline on each step.
#pragma once

#include "net/http_util.hpp"
#include "net/target.hpp"
#include "net/tls.hpp"
#include "util/use_tuple.hpp"
#include <icsbridge/net.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace icsbridge::net_detail {

/** @brief One kept-alive upstream connection: plain or TLS, plus the read buffer that must outlive reads. */
struct Connection {
    std::string key;
    std::unique_ptr<boost::beast::tcp_stream> plain;
    std::unique_ptr<tls_stream> tls;
    boost::beast::flat_buffer buffer;
    std::chrono::steady_clock::time_point idle_since{};
    bool reused = false;

    boost::beast::tcp_stream& lowest() { return tls ? tls->next_layer() : *plain; }

    void close();

    /**
     * @brief False when the server has closed the idle connection: that leaves a readable EOF (or an
     * alert, or a stray 408) on the socket, which a non-blocking peek sees without consuming anything.
     */
    bool looks_alive();
};

/** @brief A FIFO counting semaphore for coroutines on one strand: the per-source request limit. */
class Semaphore {
  public:
    explicit Semaphore(int n);

    /** @brief Waits for a free slot, first come first served; throws operation_aborted if cancelled. */
    boost::asio::awaitable<void> acquire();

    /** @brief Frees a slot, handing it straight to the oldest waiter so newcomers cannot overtake it. */
    void release();

  private:
    struct Waiter {
        boost::asio::steady_timer timer;
        Semaphore& owner;
        bool granted = false;
        bool taken = false;
        Waiter(boost::asio::any_io_executor ex, Semaphore& s);
        ~Waiter();
        Waiter(Waiter const&) = delete;
        Waiter& operator=(Waiter const&) = delete;
    };

    int free_;
    std::deque<Waiter*> waiters_;
};

/** @brief Shared between one attempt and its whole-attempt deadline, so the deadline can break it. */
struct AttemptState {
    Phase phase = Phase::resolving;
    std::shared_ptr<Connection> conn;
    bool got_response_bytes = false;

    /** @brief Breaks whatever the attempt is waiting for: the connection's socket (a lookup ends on the
     * attempt's cancellation). */
    void abort() {
        if (conn)
            conn->close();
    }
};

/**
 * @brief Idle keep-alive connections by scheme://host:port, and the opening of new ones.
 *
 * Only touched on the client's strand. Holds no more idle connections than requests may run at once.
 */
/** @brief Whether a resolved address may be connected to; an error refuses the whole target. */
using AddressCheck = std::function<Result<void>(boost::asio::ip::address const&)>;

class ConnectionPool {
  public:
    ConnectionPool(ClientOptions const& opts, Logger const& log);
    ~ConnectionPool();
    ConnectionPool(ConnectionPool const&) = delete;
    ConnectionPool& operator=(ConnectionPool const&) = delete;

    /** @brief An idle connection to `key` that still looks usable, or null. */
    std::shared_ptr<Connection> take_idle(std::string const& key);

    /**
     * @brief Resolves, connects and (for https) handshakes a new connection, recording the phase and
     * the resolver/connection in `st` so the whole-attempt deadline can break them. With `check`, every
     * resolved address must pass it before any is connected to, and only those are: no second lookup, so
     * what was checked is what is connected to (WebDAV-Push refuses push resources on private addresses).
     * @return upstream_resolve, upstream_connect, upstream_tls or upstream_timeout on failure.
     */
    boost::asio::awaitable<Result<std::shared_ptr<Connection>>>
    open(Target const& t, AttemptState& st, AddressCheck const& check = {});

    /**
     * @brief Takes back a connection whose exchange finished cleanly: kept for reuse if both sides want
     * that, else closed (a TLS one politely, in the background on `ex`, without making the caller wait).
     */
    void finish(std::shared_ptr<Connection> c, bool keep_alive, boost::asio::any_io_executor ex);

  private:
    /** The connection made to `endpoints` (resolved, and checked, by open()). */
    boost::asio::awaitable<Result<std::shared_ptr<Connection>>>
    open_at(Target const& t, boost::asio::ip::tcp::resolver::results_type const& endpoints, AttemptState& st);
    void put_idle(std::shared_ptr<Connection> c);

    /** @brief A new unconnected stream for `t`: plain, or TLS with SNI and certificate checks set up. */
    Result<std::shared_ptr<Connection>> make_connection(Target const& t, boost::asio::any_io_executor ex);

    ClientOptions const& opts_;
    Logger const& log_;
    /** Made at the first https connection: loading the system trust store is about a third of a one-shot
     * export's CPU, and an http:// source never needs it. */
    std::optional<Result<std::shared_ptr<boost::asio::ssl::context>>> tls_ctx_;
    std::vector<std::shared_ptr<Connection>> idle_;
    /// This client's bound on name lookups, when no shared one is given (ClientOptions::lookups).
    std::shared_ptr<NameLookups> own_lookups_ = std::make_shared<NameLookups>();
};

} // namespace icsbridge::net_detail
