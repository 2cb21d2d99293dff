// File: connection_pool.cpp
// The FIFO request limit, the keep-alive pool, and resolve → connect → TLS handshake with deadlines.
#include "net/connection_pool.hpp"

#include "net/deadline.hpp"
#include "net/http_util.hpp"
#include "net/lookup.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace icsbridge::net_detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

// Servers commonly drop idle keep-alive connections after 5-60 s; older ones are not worth a try.
constexpr auto max_idle_age = std::chrono::seconds(30);

/** Resolves within resolve_timeout (lookup.hpp: no other lookup waits behind this one). */
net::awaitable<Result<tcp::resolver::results_type>> resolve_within_deadline(
    ClientOptions const& opts, std::shared_ptr<NameLookups> lookups, Target const& t, AttemptState& st
) {
    st.phase = Phase::resolving;
    auto looking = lookup(t.host, t.port, opts.resolve_timeout, std::move(lookups));
    auto found = co_await std::move(looking);
    co_await throw_if_cancelled();
    if (found.timed_out)
        co_return timed_out(opts.service_name, opts.resolve_timeout, Phase::resolving, t);
    if (!found.error.empty())
        co_return client_error(
            opts.service_name,
            errc::upstream_resolve,
            "cannot resolve host " + t.host + " (" + found.error + ") for " + t.method + " " + t.display
        );
    co_return std::move(found.endpoints);
}

/** Connects to the first endpoint that answers within connect_timeout, without Nagle's delay after. */
net::awaitable<Result<void>> connect_within_deadline(
    ClientOptions const& opts,
    Connection& c,
    tcp::resolver::results_type const& endpoints,
    Target const& t,
    AttemptState& st
) {
    st.phase = Phase::connecting;
    c.lowest().expires_after(opts.connect_timeout);
    auto [ec, ep] = co_await c.lowest().async_connect(endpoints, use_tuple);
    if (ec == beast::error::timeout)
        co_return timed_out(opts.service_name, opts.connect_timeout, Phase::connecting, t);
    if (ec)
        co_return client_error(
            opts.service_name,
            errc::upstream_connect,
            "cannot connect to " + t.host + ":" + t.port + " (" + ec.message() + ") for " + t.method + " " +
                t.display
        );
    beast::error_code ignored;
    c.lowest().socket().set_option(tcp::no_delay(true), ignored);
    co_return Result<void>{};
}

/** The TLS client handshake within handshake_timeout. */
net::awaitable<Result<void>>
handshake_within_deadline(ClientOptions const& opts, Connection& c, Target const& t, AttemptState& st) {
    st.phase = Phase::handshaking;
    c.lowest().expires_after(opts.handshake_timeout);
    auto [ec] = co_await c.tls->async_handshake(ssl::stream_base::client, use_tuple);
    if (ec == beast::error::timeout)
        co_return timed_out(opts.service_name, opts.handshake_timeout, Phase::handshaking, t);
    if (ec)
        co_return client_error(
            opts.service_name,
            errc::upstream_tls,
            describe_handshake_failure(*c.tls, t.host, ec) + " (" + t.method + " " + t.display + ")"
        );
    co_return Result<void>{};
}

/** Ends a TLS connection politely without making the caller wait for it. */
net::awaitable<void> shutdown_tls(std::shared_ptr<Connection> c, milliseconds limit, Logger log) {
    c->lowest().expires_after(limit);
    auto [ec] = co_await c->tls->async_shutdown(use_tuple);
    // Most servers close TCP without sending close_notify back (stream_truncated); the response
    // was complete by then, so nothing was lost and nothing is worth reporting.
    if (ec && ec != ssl::error::stream_truncated && ec != net::error::eof)
        log.debug("TLS shutdown: " + ec.message());
    c->close();
}

} // namespace

// ---- Connection --------------------------------------------------------------------------------

void Connection::close() {
    beast::error_code ec;
    lowest().socket().close(ec);
}

bool Connection::looks_alive() {
    if (!lowest().socket().is_open() || buffer.size() != 0)
        return false;
    char c = 0;
    auto n = ::recv(lowest().socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

// ---- Semaphore ---------------------------------------------------------------------------------

Semaphore::Semaphore(int n)
    : free_(std::max(1, n)) {}

net::awaitable<void> Semaphore::acquire() {
    if (free_ > 0 && waiters_.empty()) {
        --free_;
        co_return;
    }
    Waiter w(co_await net::this_coro::executor, *this);
    waiters_.push_back(&w);
    co_await w.timer.async_wait(use_tuple);
    if (!w.granted)
        throw boost::system::system_error(net::error::operation_aborted);
    w.taken = true;
}

void Semaphore::release() {
    if (waiters_.empty()) {
        ++free_;
        return;
    }
    Waiter* w = waiters_.front();
    waiters_.pop_front();
    w->granted = true;
    w->timer.cancel();
}

Semaphore::Waiter::Waiter(net::any_io_executor ex, Semaphore& s)
    : timer(ex, steady_clock::time_point::max())
    , owner(s) {}

Semaphore::Waiter::~Waiter() {
    // A waiter torn down while queued (its coroutine was destroyed) must leave the queue; one
    // that was granted a slot but never woke must pass the slot on.
    auto& q = owner.waiters_;
    if (auto it = std::find(q.begin(), q.end(), this); it != q.end())
        q.erase(it);
    else if (granted && !taken)
        owner.release();
}

// ---- ConnectionPool ----------------------------------------------------------------------------

ConnectionPool::ConnectionPool(ClientOptions const& opts, Logger const& log)
    : opts_(opts)
    , log_(log) {}

ConnectionPool::~ConnectionPool() {
    for (auto& c : idle_)
        c->close();
}

std::shared_ptr<Connection> ConnectionPool::take_idle(std::string const& key) {
    auto now = steady_clock::now();
    for (auto it = idle_.end(); it != idle_.begin();) {
        --it;
        if ((*it)->key != key)
            continue;
        auto c = std::move(*it);
        idle_.erase(it);
        if (now - c->idle_since < max_idle_age && c->looks_alive()) {
            c->reused = true;
            return c;
        }
        c->close();
    }
    return nullptr;
}

void ConnectionPool::put_idle(std::shared_ptr<Connection> c) {
    c->idle_since = steady_clock::now();
    // Never hold more idle connections than requests may run at once.
    while (static_cast<int>(idle_.size()) >= std::max(1, opts_.max_concurrency)) {
        idle_.front()->close();
        idle_.erase(idle_.begin());
    }
    idle_.push_back(std::move(c));
}

void ConnectionPool::finish(std::shared_ptr<Connection> c, bool keep_alive, net::any_io_executor ex) {
    if (keep_alive)
        put_idle(std::move(c));
    else if (c->tls)
        net::co_spawn(ex, shutdown_tls(std::move(c), opts_.io_timeout, log_), net::detached);
    else
        c->close();
}

Result<std::shared_ptr<Connection>>
ConnectionPool::make_connection(Target const& t, net::any_io_executor ex) {
    auto c = std::make_shared<Connection>();
    c->key = t.key;
    if (!t.tls) {
        c->plain = std::make_unique<beast::tcp_stream>(ex);
        return c;
    }
    if (!tls_ctx_)
        tls_ctx_.emplace(
            opts_.tls_contexts ? opts_.tls_contexts->get(opts_.service_name, opts_.ca_file)
                               : make_client_context(opts_.service_name, opts_.ca_file)
        );
    if (!*tls_ctx_)
        return tls_ctx_->error();
    ssl::context& ctx = *tls_ctx_->value();
    c->tls = std::make_unique<tls_stream>(beast::tcp_stream(ex), ctx);
    if (!prepare_client_stream(*c->tls, t.host, t.host_is_name))
        return client_error(
            opts_.service_name,
            errc::upstream_tls,
            "cannot set the TLS server name " + t.host
        );
    return c;
}

net::awaitable<Result<std::shared_ptr<Connection>>>
ConnectionPool::open(Target const& t, AttemptState& st, AddressCheck const& check) {
    auto endpoints =
        co_await resolve_within_deadline(opts_, opts_.lookups ? opts_.lookups : own_lookups_, t, st);
    if (!endpoints)
        co_return endpoints.error();
    // Every address, not just the first: the connect's fallback must not reach one that would not pass.
    if (check)
        for (auto const& entry : *endpoints)
            if (auto ok = check(entry.endpoint().address()); !ok)
                co_return ok.error();
    co_return co_await open_at(t, *endpoints, st);
}

net::awaitable<Result<std::shared_ptr<Connection>>>
ConnectionPool::open_at(Target const& t, tcp::resolver::results_type const& endpoints, AttemptState& st) {
    auto ex = co_await net::this_coro::executor;
    auto made = make_connection(t, ex);
    if (!made)
        co_return made.error();
    auto c = *made;
    st.conn = c;
    auto connected = co_await connect_within_deadline(opts_, *c, endpoints, t, st);
    if (!connected)
        co_return connected.error();
    if (c->tls) {
        auto shaken = co_await handshake_within_deadline(opts_, *c, t, st);
        if (!shaken)
            co_return shaken.error();
    }
    c->lowest().expires_never();
    co_return c;
}

} // namespace icsbridge::net_detail
