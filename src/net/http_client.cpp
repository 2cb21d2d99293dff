// File: http_client.cpp
// The coroutine HTTP(S) client: each request runs on the client's strand as attempts (a pooled or new
// connection, one exchange, a whole-attempt deadline), with the retry policy deciding the waits between.
#include "net/connection_pool.hpp"
#include "net/deadline.hpp"
#include "net/exchange.hpp"
#include "net/http_util.hpp"
#include "net/retry.hpp"
#include "net/target.hpp"
#include "util/ascii.hpp"
#include "util/run_on.hpp"
#include <icsbridge/duration.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <functional>
#include <random>

namespace icsbridge {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using namespace net_detail;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

/** The one line logged when the policy gives up on a retryable outcome for want of time. */
std::string retry_after_too_late(HttpResponse const& r, Target const& t, std::chrono::seconds retry_after) {
    return t.method + " " + t.display + " answered " + std::to_string(r.status) + " with Retry-After " +
           format_duration(retry_after) + ", beyond the retry budget; not retrying";
}

} // namespace

struct HttpClient::Impl : std::enable_shared_from_this<HttpClient::Impl> {
    net::strand<net::any_io_executor> strand;
    ClientOptions opts;
    Logger log;
    std::string user_agent;
    Semaphore slots;
    ConnectionPool pool;
    std::minstd_rand rng{std::random_device{}()};

    Impl(net::any_io_executor ex, ClientOptions o, Logger l)
        : strand(net::make_strand(ex))
        , opts(std::move(o))
        , log(std::move(l))
        , user_agent(
              opts.user_agent.empty() ? std::string("icsbridge/") + ICSBRIDGE_VERSION : opts.user_agent
          )
        , slots(opts.max_concurrency)
        , pool(opts, log) {}

    std::string const& svc() const { return opts.service_name; }

    Error error(errc code, std::string what) const { return client_error(svc(), code, std::move(what)); }

    /**
     * One attempt: a pooled connection if one is alive (falling back once to a fresh connection when
     * the server had closed it without a word), else a new one. `keep_gzip`: a 2xx gzip body stays as
     * received (HttpRequest::keep_gzip).
     */
    net::awaitable<Result<HttpResponse>>
    attempt(Target const& t, Request const& req, bool keep_gzip, std::shared_ptr<AttemptState> st) {
        for (;;) {
            std::shared_ptr<Connection> conn;
            if (auto pooled = pool.take_idle(t.key))
                conn = std::move(pooled);
            else {
                auto opened = co_await pool.open(t, *st);
                if (!opened)
                    co_return opened.error();
                conn = *opened;
            }
            st->conn = conn;
            st->got_response_bytes = false;
            Exchange ex = co_await exchange(*conn, req, opts, *st);
            if (ex.ec) {
                conn->close();
                if (conn->reused && !st->got_response_bytes && is_connection_lost(ex.ec) &&
                    st->phase != Phase::reading_body) {
                    log.debug(
                        svc() + ": pooled connection to " + t.host + " was closed by the server; reconnecting"
                    );
                    continue;
                }
                co_return exchange_error(opts, t, st->phase, ex.ec);
            }

            HttpResponse res;
            res.status = ex.status;
            if (keep_gzip && ex.status >= 200 && ex.status < 300 && is_gzip(ex.content_encoding)) {
                // The raw body is within max_body already; decode_body() checks the decoded size.
                res.content_encoding = "gzip";
                res.body = std::move(ex.body);
            } else {
                st->phase = Phase::decoding;
                auto body = net_detail::decode_body(opts, t, ex);
                if (!body) {
                    conn->close();
                    co_return body.error();
                }
                res.body = std::move(*body);
            }
            res.headers = std::move(ex.headers);

            // Reuse only a connection that finished cleanly and that both sides want to keep.
            st->conn.reset();
            pool.finish(std::move(conn), ex.keep_alive, strand);
            co_return res;
        }
    }

    /** The request line, headers and body every attempt of one request sends; the body is moved, not copied.
     */
    Request make_request(Target const& t, HttpRequest& req, http::verb verb) const {
        Request hreq{verb, t.target, 11};
        hreq.set(http::field::host, t.host_header);
        hreq.set(http::field::user_agent, user_agent);
        hreq.set(http::field::accept_encoding, "gzip");
        hreq.keep_alive(true);
        for (auto const& [name, value] : req.headers)
            hreq.set(name, value);
        if (verb != http::verb::get) {
            hreq.body() = std::move(req.body);
            hreq.prepare_payload();
        }
        return hreq;
    }

    // A slot is held per attempt, not across the waits between them: a Retry-After of minutes must not keep
    // this source's other requests (other feeds, other pages) waiting too.
    struct Slot {
        Semaphore& s;
        bool held = false;
        void release() {
            if (held)
                s.release();
            held = false;
        }
        ~Slot() { release(); }
    };

    /** What every attempt of one request sends, and to where; `req`'s body moves into it. */
    Result<std::pair<Target, Request>> prepare(HttpRequest& req) const {
        auto target = parse_target(svc(), req.url);
        if (!target)
            return target.error();
        auto const verb = http::string_to_verb(req.method);
        if (verb == http::verb::unknown)
            return error(errc::usage, "unknown HTTP method " + req.method);
        Target t = *target;
        t.method = req.method;
        Request hreq = make_request(t, req, verb);
        return std::pair{std::move(t), std::move(hreq)};
    }

    /** One attempt under the whole-attempt deadline, counted and logged. */
    net::awaitable<Result<HttpResponse>>
    timed_attempt(Target const& t, Request const& hreq, bool keep_gzip, int attempt_no) {
        auto st = std::make_shared<AttemptState>();
        auto attempt_started = steady_clock::now();
        // Named, not a temporary inside the co_await: g++ 12 destroys such a closure twice.
        std::function<void()> on_timeout = [st] { st->abort(); };
        auto r = co_await race_deadline(attempt(t, hreq, keep_gzip, st), opts.request_timeout, on_timeout);
        co_await throw_if_cancelled();
        if (!r) {
            st->abort();
            r = Result<HttpResponse>(timed_out(svc(), opts.request_timeout, st->phase, t));
        }
        auto took = steady_clock::now() - attempt_started;
        if (opts.on_attempt)
            opts.on_attempt(*r ? (*r)->status : 0, took);
        log_attempt(t, *r, attempt_no, took);
        co_return std::move(*r);
    }

    /** Whether (and after how long) to try again, by the retry policy; says why when it gives up on time. */
    RetryVerdict retry_verdict(
        Target const& t, Result<HttpResponse> const& result, int attempt_no, steady_clock::time_point started
    ) {
        std::optional<std::chrono::seconds> retry_after;
        if (result) {
            if (auto ra = result->header("Retry-After"); !ra.empty())
                retry_after = parse_retry_after(ra, std::chrono::system_clock::now());
        }
        auto end = result ? AttemptEnd::response(result->status)
                          : AttemptEnd::transport_failure(result.error().code);
        auto elapsed = std::chrono::duration_cast<milliseconds>(steady_clock::now() - started);
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        auto verdict = next_retry(opts.retry, attempt_no, end, retry_after, elapsed, unit(rng));
        if (!verdict.retry() && verdict.reason == GiveUp::retry_after_beyond_budget)
            log.warn(svc() + ": " + retry_after_too_late(*result, t, *retry_after));
        return verdict;
    }

    void
    log_retry(Target const& t, Result<HttpResponse> const& result, int attempt_no, milliseconds wait) const {
        std::string why = result ? "answered " + std::to_string(result->status) : result.error().message;
        log.warn(
            svc() + ": " + t.method + " " + t.display + " " + (result ? why : "failed: " + why) +
            "; retrying in " + format_duration(wait) + " (attempt " + std::to_string(attempt_no + 1) +
            " of " + std::to_string(opts.retry.max_attempts) + ")"
        );
    }

    /** The outcome of the last attempt, with how many there were. */
    static Result<HttpResponse> counted(Result<HttpResponse> result, int attempts) {
        if (result)
            result->attempts = attempts;
        else if (attempts > 1) {
            Error e = result.error();
            e.message += "; gave up after " + std::to_string(attempts) + " attempts";
            result = std::move(e);
        }
        return result;
    }

    net::awaitable<Result<HttpResponse>> do_get(HttpRequest req) {
        co_await net::this_coro::reset_cancellation_state(net::enable_total_cancellation());
        try {
            bool const keep_gzip = req.keep_gzip;
            auto prepared = prepare(req);
            if (!prepared)
                co_return prepared.error();
            Target const& t = prepared->first;
            Request const& hreq = prepared->second;
            Slot slot{slots};
            auto started = steady_clock::now();
            Result<HttpResponse> result = Error{};
            int attempt_no = 0;
            for (;;) {
                ++attempt_no;
                co_await slots.acquire();
                slot.held = true;
                result = co_await timed_attempt(t, hreq, keep_gzip, attempt_no);
                auto verdict = retry_verdict(t, result, attempt_no, started);
                if (!verdict.retry())
                    break;
                log_retry(t, result, attempt_no, *verdict.wait);
                slot.release();
                net::steady_timer pause(co_await net::this_coro::executor, *verdict.wait);
                co_await pause.async_wait(net::use_awaitable);
            }
            co_return counted(std::move(result), attempt_no);
        } catch (boost::system::system_error const& e) {
            if (e.code() == net::error::operation_aborted)
                co_return error(errc::shutdown, "request cancelled: the service is stopping");
            throw;
        }
    }

    void
    log_attempt(Target const& t, Result<HttpResponse> const& r, int attempt_no, steady_clock::duration took) {
        auto ms = std::chrono::duration_cast<milliseconds>(took).count();
        if (r)
            log.debug(
                svc() + ": " + t.method + " " + t.display + " -> " + std::to_string(r->status) + " in " +
                std::to_string(ms) + " ms (attempt " + std::to_string(attempt_no) + ")"
            );
        else
            log.debug(
                svc() + ": " + t.method + " " + t.display + " failed in " + std::to_string(ms) +
                " ms (attempt " + std::to_string(attempt_no) + "): " + r.error().message
            );
    }
};

HttpClient::HttpClient(boost::asio::any_io_executor ex, ClientOptions opts, Logger log)
    : impl_(std::make_shared<Impl>(std::move(ex), std::move(opts), std::move(log))) {}

HttpClient::~HttpClient() = default;

ClientOptions const& HttpClient::options() const {
    return impl_->opts;
}

void HttpClient::share_tls(std::shared_ptr<TlsContexts> contexts) {
    impl_->opts.tls_contexts = std::move(contexts);
}

void HttpClient::share_lookups(std::shared_ptr<NameLookups> lookups) {
    impl_->opts.lookups = std::move(lookups);
}

boost::asio::awaitable<Result<HttpResponse>> HttpClient::get(HttpRequest req) {
    req.method = "GET";
    co_return co_await request(std::move(req));
}

boost::asio::awaitable<Result<HttpResponse>> HttpClient::request(HttpRequest req) {
    // All client state lives on one strand; the caller may run on any executor of the same context.
    // The local copy keeps Impl alive for the whole call, even if the client is destroyed meanwhile.
    auto impl = impl_;
    co_return co_await run_on(impl->strand, impl->do_get(std::move(req)));
}

Result<std::string> HttpClient::decode_body(HttpResponse const& resp, std::string const& url) const {
    auto const& opts = impl_->opts;
    auto target = parse_target(opts.service_name, url);
    if (!target)
        return target.error();
    return net_detail::decode_body(opts, *target, resp.content_encoding, resp.body);
}

std::string HttpResponse::header(std::string_view name) const {
    for (auto const& [k, v] : headers)
        if (ascii_iequals(k, name))
            return v;
    return {};
}

} // namespace icsbridge
