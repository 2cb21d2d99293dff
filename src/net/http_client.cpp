// File: http_client.cpp
// The coroutine HTTP(S) client: a FIFO concurrency limit, a keep-alive pool, one attempt per
// connection exchange with deadlines on every step, and the retry loop around it.
#include "net/deadline.hpp"
#include "net/gzip_decode.hpp"
#include "net/http_util.hpp"
#include "net/tls.hpp"
#include <icsbridge/duration.hpp>
#include <icsbridge/http_client.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/url/parse.hpp>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <optional>
#include <random>

namespace icsbridge {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

constexpr auto tuple_awaitable = net::as_tuple(net::use_awaitable);

// Servers commonly drop idle keep-alive connections after 5-60 s; older ones are not worth a try.
constexpr auto max_idle_age = std::chrono::seconds(30);
// Upstream APIs send small header blocks; Beast's 8 KiB default is tight for cookie-heavy CDNs.
constexpr std::uint32_t header_limit = 64 * 1024;

/** Where one request goes, parsed once. */
struct Target {
    bool tls = false;
    bool host_is_name = true;
    std::string host; // for resolving, SNI and verification (no brackets)
    std::string port;
    std::string host_header;
    std::string target;  // origin-form: path and query
    std::string display; // scheme://host[:port]/path?query, secrets redacted, no userinfo
    std::string key;     // pool key
};

Result<Target> parse_target(std::string const& service, std::string_view url) {
    auto u = boost::urls::parse_uri(url);
    if (!u)
        return fail(
            errc::config_invalid,
            service + ": invalid URL " + redact_url(url) + " (" + u.error().message() + ")"
        );
    Target t;
    auto scheme = u->scheme_id();
    if (scheme != boost::urls::scheme::http && scheme != boost::urls::scheme::https)
        return fail(
            errc::config_invalid,
            service + ": unsupported URL scheme in " + redact_url(url) + " (use http or https)"
        );
    t.tls = scheme == boost::urls::scheme::https;
    if (u->host_type() == boost::urls::host_type::ipv6)
        t.host = u->encoded_host_address().decode();
    else
        t.host = u->host_address();
    if (t.host.empty())
        return fail(errc::config_invalid, service + ": URL without a host: " + redact_url(url));
    t.host_is_name = u->host_type() == boost::urls::host_type::name;
    t.port = u->has_port() ? std::string(u->port()) : (t.tls ? "443" : "80");
    // Boost.URL 1.81's encoded_host_and_port() drops the port, so put it back by hand.
    std::string host_in_url = std::string(u->encoded_host());
    if (u->has_port())
        host_in_url += ":" + std::string(u->port());
    t.host_header = host_in_url;
    t.target = u->encoded_target();
    if (t.target.empty() || t.target.front() != '/')
        t.target.insert(0, "/");
    t.display = redact_url(std::string(u->scheme()) + "://" + host_in_url + t.target);
    t.key = std::string(u->scheme()) + "://" + t.host + ":" + t.port;
    return t;
}

/** One kept-alive upstream connection: plain or TLS, plus the read buffer that must outlive reads. */
struct Connection {
    std::string key;
    std::unique_ptr<beast::tcp_stream> plain;
    std::unique_ptr<net_detail::tls_stream> tls;
    beast::flat_buffer buffer;
    steady_clock::time_point idle_since{};
    bool reused = false;

    beast::tcp_stream& lowest() { return tls ? tls->next_layer() : *plain; }

    void close() {
        beast::error_code ec;
        lowest().socket().close(ec);
    }

    // A server that closed an idle keep-alive connection leaves a readable EOF (or an alert, or a
    // stray 408) on the socket; a non-blocking peek sees it without consuming anything.
    bool looks_alive() {
        if (!lowest().socket().is_open() || buffer.size() != 0)
            return false;
        char c = 0;
        auto n = ::recv(lowest().socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
};

/** A FIFO counting semaphore for coroutines on one strand. */
class Semaphore {
  public:
    explicit Semaphore(int n)
        : free_(std::max(1, n)) {}

    net::awaitable<void> acquire() {
        if (free_ > 0 && waiters_.empty()) {
            --free_;
            co_return;
        }
        Waiter w(co_await net::this_coro::executor, *this);
        waiters_.push_back(&w);
        co_await w.timer.async_wait(tuple_awaitable);
        if (!w.granted)
            throw boost::system::system_error(net::error::operation_aborted);
        w.taken = true;
    }

    void release() {
        if (waiters_.empty()) {
            ++free_;
            return;
        }
        // Hand the slot straight to the oldest waiter so newcomers cannot overtake it.
        Waiter* w = waiters_.front();
        waiters_.pop_front();
        w->granted = true;
        w->timer.cancel();
    }

  private:
    struct Waiter {
        net::steady_timer timer;
        Semaphore& owner;
        bool granted = false;
        bool taken = false;
        Waiter(net::any_io_executor ex, Semaphore& s)
            : timer(ex, steady_clock::time_point::max())
            , owner(s) {}
        ~Waiter() {
            // A waiter torn down while queued (its coroutine was destroyed) must leave the queue; one
            // that was granted a slot but never woke must pass the slot on.
            auto& q = owner.waiters_;
            if (auto it = std::find(q.begin(), q.end(), this); it != q.end())
                q.erase(it);
            else if (granted && !taken)
                owner.release();
        }
        Waiter(Waiter const&) = delete;
        Waiter& operator=(Waiter const&) = delete;
    };

    int free_;
    std::deque<Waiter*> waiters_;
};

/** What went wrong in one exchange, before it becomes a user-facing Error. */
enum class Phase { resolving, connecting, handshaking, sending, waiting, reading_body, decoding };

std::string phase_words(Phase p, Target const& t) {
    switch (p) {
    case Phase::resolving:
        return "resolving " + t.host + " for GET " + t.display;
    case Phase::connecting:
        return "connecting to " + t.host + ":" + t.port + " for GET " + t.display;
    case Phase::handshaking:
        return "in the TLS handshake with " + t.host + " for GET " + t.display;
    case Phase::sending:
        return "sending GET " + t.display;
    case Phase::waiting:
        return "waiting for a response to GET " + t.display;
    case Phase::reading_body:
    case Phase::decoding:
        return "reading the response body of GET " + t.display;
    }
    return "GET " + t.display;
}

bool is_connection_lost(beast::error_code ec) {
    return ec == http::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset ||
           ec == net::error::connection_aborted || ec == net::error::broken_pipe ||
           ec == ssl::error::stream_truncated;
}

/** Shared between one attempt and its whole-attempt deadline, so the deadline can break it. */
struct AttemptState {
    Phase phase = Phase::resolving;
    std::optional<tcp::resolver> resolver;
    std::shared_ptr<Connection> conn;
    bool got_response_bytes = false;

    void abort() {
        if (resolver)
            resolver->cancel();
        if (conn)
            conn->close();
    }
};

struct Exchange {
    beast::error_code ec;
    unsigned status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool keep_alive = false;
    std::string content_encoding;
};

template <class Stream>
net::awaitable<Exchange> exchange(
    Stream& stream,
    Connection& c,
    http::request<http::empty_body> const& req,
    ClientOptions const& opts,
    AttemptState& st
) {
    Exchange out;
    st.phase = Phase::sending;
    c.lowest().expires_after(opts.io_timeout);
    auto [wec, wn] = co_await http::async_write(stream, req, tuple_awaitable);
    if (wec) {
        out.ec = wec;
        co_return out;
    }

    http::response_parser<http::string_body> parser;
    parser.header_limit(header_limit);
    // The raw (maybe gzipped) body is capped too; the decoded size is capped again when inflating.
    parser.body_limit(opts.max_body);

    st.phase = Phase::waiting;
    c.lowest().expires_after(opts.io_timeout);
    auto [hec, hn] = co_await http::async_read_header(stream, c.buffer, parser, tuple_awaitable);
    st.got_response_bytes = parser.got_some();
    if (hec) {
        out.ec = hec;
        co_return out;
    }

    st.phase = Phase::reading_body;
    c.lowest().expires_after(opts.io_timeout);
    auto [bec, bn] = co_await http::async_read(stream, c.buffer, parser, tuple_awaitable);
    if (bec == ssl::error::stream_truncated && parser.need_eof() && !parser.is_done()) {
        // A body delimited by EOF over TLS without close_notify: common among servers, and the
        // body has no length to check it against anyway.
        beast::error_code eof_ec;
        parser.put_eof(eof_ec);
        bec = eof_ec;
    }
    if (bec) {
        out.ec = bec;
        co_return out;
    }
    c.lowest().expires_never();

    auto res = parser.release();
    out.status = res.result_int();
    out.keep_alive = res.keep_alive() && !parser.need_eof();
    for (auto const& f : res)
        out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    out.content_encoding = std::string(res[http::field::content_encoding]);
    out.body = std::move(res.body());
    co_return out;
}

} // namespace

struct HttpClient::Impl : std::enable_shared_from_this<HttpClient::Impl> {
    net::strand<net::any_io_executor> strand;
    ClientOptions opts;
    Logger log;
    std::string user_agent;
    /** Made at the first https connection: loading the system trust store is about a third of a one-shot
     * export's CPU, and an http:// source never needs it. Only touched on the strand. */
    std::optional<Result<std::shared_ptr<ssl::context>>> tls_ctx;
    Semaphore slots;
    std::vector<std::shared_ptr<Connection>> idle;
    std::minstd_rand rng{std::random_device{}()};

    Impl(net::any_io_executor ex, ClientOptions o, Logger l)
        : strand(net::make_strand(ex))
        , opts(std::move(o))
        , log(std::move(l))
        , user_agent(
              opts.user_agent.empty() ? std::string("icsbridge/") + ICSBRIDGE_VERSION : opts.user_agent
          )
        , slots(opts.max_concurrency) {}

    ~Impl() {
        for (auto& c : idle)
            c->close();
    }

    std::string const& svc() const { return opts.service_name; }

    Error error(errc code, std::string what) const { return Error{code, svc() + ": " + std::move(what)}; }

    /** An idle connection to `key` that still looks usable, or null. */
    std::shared_ptr<Connection> take_idle(std::string const& key) {
        auto now = steady_clock::now();
        for (auto it = idle.end(); it != idle.begin();) {
            --it;
            if ((*it)->key != key)
                continue;
            auto c = std::move(*it);
            idle.erase(it);
            if (now - c->idle_since < max_idle_age && c->looks_alive()) {
                c->reused = true;
                return c;
            }
            c->close();
        }
        return nullptr;
    }

    void put_idle(std::shared_ptr<Connection> c) {
        c->idle_since = steady_clock::now();
        // Never hold more idle connections than requests may run at once.
        while (static_cast<int>(idle.size()) >= std::max(1, opts.max_concurrency)) {
            idle.front()->close();
            idle.erase(idle.begin());
        }
        idle.push_back(std::move(c));
    }

    static net::awaitable<std::pair<beast::error_code, tcp::resolver::results_type>>
    resolve(tcp::resolver& r, Target const& t) {
        auto [ec, results] = co_await r.async_resolve(t.host, t.port, tuple_awaitable);
        co_return std::pair{ec, std::move(results)};
    }

    /** Resolve, connect and (for https) handshake a new connection. */
    net::awaitable<Result<std::shared_ptr<Connection>>> open(Target const& t, AttemptState& st) {
        auto ex = co_await net::this_coro::executor;
        st.phase = Phase::resolving;
        st.resolver.emplace(ex);
        std::function<void()> cancel_resolve = [&st] { st.resolver->cancel(); };
        auto resolved = co_await net_detail::race_deadline(
            resolve(*st.resolver, t),
            opts.resolve_timeout,
            cancel_resolve
        );
        co_await throw_if_cancelled();
        if (!resolved)
            co_return error(
                errc::upstream_timeout,
                "timed out after " + format_duration(opts.resolve_timeout) + " " +
                    phase_words(Phase::resolving, t)
            );
        if (resolved->first)
            co_return error(
                errc::upstream_resolve,
                "cannot resolve host " + t.host + " (" + resolved->first.message() + ") for GET " + t.display
            );

        auto c = std::make_shared<Connection>();
        c->key = t.key;
        if (t.tls) {
            if (!tls_ctx)
                tls_ctx.emplace(net_detail::make_client_context(opts.service_name, opts.ca_file));
            if (!*tls_ctx)
                co_return tls_ctx->error();
            ssl::context& ctx = *tls_ctx->value();
            c->tls = std::make_unique<net_detail::tls_stream>(beast::tcp_stream(ex), ctx);
            if (!net_detail::prepare_client_stream(*c->tls, t.host, t.host_is_name))
                co_return error(errc::upstream_tls, "cannot set the TLS server name " + t.host);
        } else {
            c->plain = std::make_unique<beast::tcp_stream>(ex);
        }
        st.conn = c;

        st.phase = Phase::connecting;
        c->lowest().expires_after(opts.connect_timeout);
        auto [cec, ep] = co_await c->lowest().async_connect(resolved->second, tuple_awaitable);
        if (cec == beast::error::timeout)
            co_return error(
                errc::upstream_timeout,
                "timed out after " + format_duration(opts.connect_timeout) + " " +
                    phase_words(Phase::connecting, t)
            );
        if (cec)
            co_return error(
                errc::upstream_connect,
                "cannot connect to " + t.host + ":" + t.port + " (" + cec.message() + ") for GET " + t.display
            );
        beast::error_code ignored;
        c->lowest().socket().set_option(tcp::no_delay(true), ignored);

        if (c->tls) {
            st.phase = Phase::handshaking;
            c->lowest().expires_after(opts.handshake_timeout);
            auto [hec] = co_await c->tls->async_handshake(ssl::stream_base::client, tuple_awaitable);
            if (hec == beast::error::timeout)
                co_return error(
                    errc::upstream_timeout,
                    "timed out after " + format_duration(opts.handshake_timeout) + " " +
                        phase_words(Phase::handshaking, t)
                );
            if (hec)
                co_return error(
                    errc::upstream_tls,
                    net_detail::describe_handshake_failure(*c->tls, t.host, hec) + " (GET " + t.display + ")"
                );
        }
        c->lowest().expires_never();
        co_return c;
    }

    /** Ends a TLS connection politely without making the caller wait for it. */
    static net::awaitable<void> shutdown_tls(std::shared_ptr<Connection> c, milliseconds limit, Logger log) {
        c->lowest().expires_after(limit);
        auto [ec] = co_await c->tls->async_shutdown(tuple_awaitable);
        // Most servers close TCP without sending close_notify back (stream_truncated); the response
        // was complete by then, so nothing was lost and nothing is worth reporting.
        if (ec && ec != ssl::error::stream_truncated && ec != net::error::eof)
            log.debug("TLS shutdown: " + ec.message());
        c->close();
    }

    static net::awaitable<void> throw_if_cancelled() {
        auto cs = co_await net::this_coro::cancellation_state;
        if (cs.cancelled() != net::cancellation_type::none)
            throw boost::system::system_error(net::error::operation_aborted);
    }

    /** Maps a failed exchange to the error a user reads. */
    Error exchange_error(Target const& t, Phase phase, beast::error_code ec) const {
        if (ec == http::error::body_limit)
            return error(
                errc::upstream_too_large,
                "response to GET " + t.display + " is larger than the limit of " +
                    net_detail::format_size(opts.max_body) + " (max_body)"
            );
        if (ec == beast::error::timeout)
            return error(
                errc::upstream_timeout,
                "timed out after " + format_duration(opts.io_timeout) + " " + phase_words(phase, t)
            );
        if (is_connection_lost(ec) || ec.category() == net::error::get_system_category())
            return error(
                errc::upstream_io,
                "connection lost " + phase_words(phase, t) + " (" + ec.message() + ")"
            );
        return error(
            errc::upstream_io,
            "malformed HTTP response to GET " + t.display + " (" + ec.message() + ")"
        );
    }

    /**
     * One attempt: a pooled connection if one is alive (falling back once to a fresh connection when
     * the server had closed it without a word), else a new one.
     */
    net::awaitable<Result<HttpResponse>>
    attempt(Target const& t, http::request<http::empty_body> const& req, std::shared_ptr<AttemptState> st) {
        for (;;) {
            std::shared_ptr<Connection> conn;
            if (auto pooled = take_idle(t.key))
                conn = std::move(pooled);
            else {
                auto opened = co_await open(t, *st);
                if (!opened)
                    co_return opened.error();
                conn = *opened;
            }
            st->conn = conn;
            st->got_response_bytes = false;
            // Not `cond ? co_await a : co_await b`: g++ 12 miscompiles co_await inside ?: (double free).
            Exchange ex;
            if (conn->tls)
                ex = co_await exchange(*conn->tls, *conn, req, opts, *st);
            else
                ex = co_await exchange(*conn->plain, *conn, req, opts, *st);
            if (ex.ec) {
                conn->close();
                if (conn->reused && !st->got_response_bytes && is_connection_lost(ex.ec) &&
                    st->phase != Phase::reading_body) {
                    log.debug(
                        svc() + ": pooled connection to " + t.host + " was closed by the server; reconnecting"
                    );
                    continue;
                }
                co_return exchange_error(t, st->phase, ex.ec);
            }

            HttpResponse res;
            res.status = ex.status;
            res.headers = std::move(ex.headers);
            if (ex.content_encoding.empty() || boost::beast::iequals(ex.content_encoding, "identity"))
                res.body = std::move(ex.body);
            else if (beast::iequals(ex.content_encoding, "gzip") || beast::iequals(ex.content_encoding, "x-gzip")) {
                st->phase = Phase::decoding;
                auto g = net_detail::gunzip(ex.body, opts.max_body);
                if (g.status == net_detail::GunzipStatus::too_large) {
                    conn->close();
                    co_return error(
                        errc::upstream_too_large,
                        "response to GET " + t.display + " is larger than the limit of " +
                            net_detail::format_size(opts.max_body) + " (max_body) once decompressed"
                    );
                }
                if (g.status == net_detail::GunzipStatus::corrupt) {
                    conn->close();
                    co_return error(
                        errc::upstream_io,
                        "corrupt gzip body in the response to GET " + t.display + " (" + g.detail + ")"
                    );
                }
                res.body = std::move(g.data);
            } else {
                conn->close();
                co_return error(
                    errc::upstream_io,
                    "unsupported Content-Encoding \"" + ex.content_encoding + "\" in the response to GET " +
                        t.display
                );
            }

            // Reuse only a connection that finished cleanly and that both sides want to keep.
            st->conn.reset();
            if (ex.keep_alive)
                put_idle(std::move(conn));
            else if (conn->tls)
                net::co_spawn(strand, shutdown_tls(std::move(conn), opts.io_timeout, log), net::detached);
            else
                conn->close();
            co_return res;
        }
    }

    net::awaitable<Result<HttpResponse>> do_get(HttpRequest req) {
        co_await net::this_coro::reset_cancellation_state(net::enable_total_cancellation());
        try {
            auto target = parse_target(svc(), req.url);
            if (!target)
                co_return target.error();
            Target const& t = *target;

            http::request<http::empty_body> hreq{http::verb::get, t.target, 11};
            hreq.set(http::field::host, t.host_header);
            hreq.set(http::field::user_agent, user_agent);
            hreq.set(http::field::accept_encoding, "gzip");
            hreq.keep_alive(true);
            for (auto const& [name, value] : req.headers)
                hreq.set(name, value);

            // A slot is held per attempt, not across the waits between them: a Retry-After of minutes
            // must not keep this source's other requests (other feeds, other pages) waiting too.
            struct Slot {
                Semaphore& s;
                bool held = false;
                void release() {
                    if (held)
                        s.release();
                    held = false;
                }
                ~Slot() { release(); }
            } slot{slots};

            auto started = steady_clock::now();
            Result<HttpResponse> result = Error{};
            int attempt_no = 0;
            for (;;) {
                ++attempt_no;
                co_await slots.acquire();
                slot.held = true;
                auto st = std::make_shared<AttemptState>();
                auto attempt_started = steady_clock::now();
                // Named, not a temporary inside the co_await: g++ 12 destroys such a closure twice.
                std::function<void()> on_timeout = [st] { st->abort(); };
                auto r = co_await net_detail::race_deadline(
                    attempt(t, hreq, st),
                    opts.request_timeout,
                    on_timeout
                );
                co_await throw_if_cancelled();
                if (!r) {
                    st->abort();
                    r = Result<HttpResponse>(error(
                        errc::upstream_timeout,
                        "timed out after " + format_duration(opts.request_timeout) + " " +
                            phase_words(st->phase, t)
                    ));
                }
                result = std::move(*r);
                auto took = steady_clock::now() - attempt_started;
                if (opts.on_attempt)
                    opts.on_attempt(result ? result->status : 0, took);
                auto ms = std::chrono::duration_cast<milliseconds>(took).count();
                if (result)
                    log.debug(
                        svc() + ": GET " + t.display + " -> " + std::to_string(result->status) + " in " +
                        std::to_string(ms) + " ms (attempt " + std::to_string(attempt_no) + ")"
                    );
                else
                    log.debug(
                        svc() + ": GET " + t.display + " failed in " + std::to_string(ms) + " ms (attempt " +
                        std::to_string(attempt_no) + "): " + result.error().message
                    );

                bool retryable = result ? net_detail::is_retryable_status(result->status)
                                        : net_detail::is_retryable_error(result.error().code);
                if (!retryable || attempt_no >= opts.retry.max_attempts)
                    break;

                auto elapsed = std::chrono::duration_cast<milliseconds>(steady_clock::now() - started);
                auto remaining = opts.retry.max_total - elapsed;
                milliseconds wait{};
                std::optional<std::chrono::seconds> retry_after;
                if (result) {
                    if (auto ra = result->header("Retry-After"); !ra.empty())
                        retry_after = parse_retry_after(ra, std::chrono::system_clock::now());
                }
                if (retry_after) {
                    // Coming back earlier than asked only earns another 429: give up instead.
                    if (*retry_after >= remaining) {
                        log.warn(
                            svc() + ": GET " + t.display + " answered " + std::to_string(result->status) +
                            " with Retry-After " + format_duration(*retry_after) +
                            ", beyond the retry budget; not retrying"
                        );
                        break;
                    }
                    wait = *retry_after;
                } else {
                    std::uniform_real_distribution<double> unit(0.0, 1.0);
                    wait = net_detail::backoff_delay(opts.retry, attempt_no, unit(rng));
                }
                if (wait >= remaining)
                    break;

                std::string why =
                    result ? "answered " + std::to_string(result->status) : result.error().message;
                log.warn(
                    svc() + ": GET " + t.display + " " + (result ? why : "failed: " + why) +
                    "; retrying in " + format_duration(wait) + " (attempt " + std::to_string(attempt_no + 1) +
                    " of " + std::to_string(opts.retry.max_attempts) + ")"
                );
                slot.release();
                net::steady_timer pause(co_await net::this_coro::executor, wait);
                co_await pause.async_wait(net::use_awaitable);
            }

            if (result)
                result->attempts = attempt_no;
            else if (attempt_no > 1) {
                Error e = result.error();
                e.message += "; gave up after " + std::to_string(attempt_no) + " attempts";
                result = std::move(e);
            }
            co_return result;
        } catch (boost::system::system_error const& e) {
            if (e.code() == net::error::operation_aborted)
                co_return error(errc::shutdown, "request cancelled: the service is stopping");
            throw;
        }
    }
};

HttpClient::HttpClient(boost::asio::any_io_executor ex, ClientOptions opts, Logger log)
    : impl_(std::make_shared<Impl>(std::move(ex), std::move(opts), std::move(log))) {}

HttpClient::~HttpClient() = default;

ClientOptions const& HttpClient::options() const {
    return impl_->opts;
}

boost::asio::awaitable<Result<HttpResponse>> HttpClient::get(HttpRequest req) {
    // All client state lives on one strand; the caller may run on any executor of the same context.
    // The local copy keeps Impl alive for the whole call, even if the client is destroyed meanwhile.
    auto impl = impl_;
    auto result = co_await net::co_spawn(impl->strand, impl->do_get(std::move(req)), net::use_awaitable);
    co_return result;
}

std::string HttpResponse::header(std::string_view name) const {
    for (auto const& [k, v] : headers)
        if (beast::iequals(k, name))
            return v;
    return {};
}

} // namespace icsbridge
