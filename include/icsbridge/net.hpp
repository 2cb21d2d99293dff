// File: net.hpp
// The one coroutine HTTP(S) client every source uses: keep-alive per host, TLS with verification,
// deadlines on every step, retries with backoff, bounded concurrency, gzip.
#pragma once

#include <icsbridge/duration.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace boost::asio::ssl {
class context;
} // namespace boost::asio::ssl

namespace icsbridge {

/**
 * @brief TLS client contexts shared by many clients, one per ca_file: each context loads the system trust
 * store (about a megabyte), which a thousand subscribers' connections, two clients each, must not do two
 * thousand times. A failure is not kept (the next client tries again). Thread-safe.
 */
class TlsContexts {
  public:
    /** @brief The context for `ca_file` (empty: the system store alone); errors name `service`. */
    Result<std::shared_ptr<boost::asio::ssl::context>>
    get(std::string const& service, std::string const& ca_file);
    /** @brief How many contexts were made (tests). */
    std::size_t made() const;

  private:
    mutable std::mutex mtx_;
    std::map<std::string, std::shared_ptr<boost::asio::ssl::context>> by_file_;
};

/**
 * @brief A bound on the name lookups running at once, each on a thread of its own (net/lookup.cpp: a DNS
 * server that never answers must hold up no other request, nor pile up threads without end). Held by the
 * clients that share it and by each lookup's thread, so it lives as long as the last of them. Thread-safe.
 */
class NameLookups {
  public:
    explicit NameLookups(int most = 64)
        : most_(most) {}
    /** @brief Counts one more lookup in; false (nothing counted) when `most` are running. */
    bool try_start() {
        if (running_.fetch_add(1) < most_)
            return true;
        --running_;
        return false;
    }
    void finished() { --running_; }
    int running() const { return running_.load(); }
    int most() const { return most_; }

  private:
    std::atomic<int> running_{0};
    int const most_;
};

/** @brief Retry schedule for network errors, 429 and 5xx; other 4xx are never retried. */
struct RetryPolicy {
    /// including the first
    int max_attempts = 4;
    /// doubled each retry, with full jitter (a uniform wait between 0 and the doubled value)
    std::chrono::milliseconds initial_backoff{500};
    /// cap of one computed wait; a server's Retry-After is honoured instead, up to max_total
    std::chrono::milliseconds max_backoff{8000};
    /// no wait that would end after this much time since the first attempt; a Retry-After beyond it
    /// returns the 429/503 response at once
    std::chrono::milliseconds max_total{std::chrono::seconds(60)};
};

struct ClientOptions {
    std::string service_name = "upstream"; ///< used in messages: "events API", "job board API"
    std::string user_agent;                ///< empty: "icsbridge/VERSION"
    std::chrono::milliseconds resolve_timeout{std::chrono::seconds(10)};
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
    std::chrono::milliseconds handshake_timeout{std::chrono::seconds(10)};
    std::chrono::milliseconds io_timeout{std::chrono::seconds(20)};      ///< each write / read
    std::chrono::milliseconds request_timeout{std::chrono::seconds(20)}; ///< one whole attempt
    std::size_t max_body =
        std::size_t{32} * 1024 * 1024; ///< decoded body limit; larger answers fail with upstream_too_large
    std::string max_body_key = "max_body"; ///< the config key that raises max_body, named in that error
    int max_concurrency = 4;               ///< requests in flight at once (and pooled connections) per client
    std::string ca_file;                   ///< extra PEM trust anchors; the system store is always used too
    std::shared_ptr<TlsContexts> tls_contexts; ///< shared TLS contexts; null: the client makes its own
    std::shared_ptr<NameLookups> lookups;      ///< a bound shared with other clients; null: the client's own
    RetryPolicy retry;
    /// Called after every attempt (retries included) with the status, or 0 when no response came (network
    /// error, timeout), and how long the attempt took: for the upstream request histogram in /metrics.
    std::function<void(unsigned status, std::chrono::duration<double> took)> on_attempt;
};

/**
 * @brief One request: GET unless `method` says otherwise (the CalDAV push also sends PROPFIND, REPORT,
 * MKCALENDAR, PUT and DELETE, with a body).
 *
 * Not an aggregate on purpose: g++ 12 destroys a braced aggregate temporary twice when it is an
 * argument of a co_await expression (`co_await client.get({url, {}})`); a constructor avoids that.
 */
struct HttpRequest {
    HttpRequest() = default;
    HttpRequest(std::string u, std::vector<std::pair<std::string, std::string>> h = {})
        : url(std::move(u))
        , headers(std::move(h)) {}

    std::string url; ///< absolute http(s) URL including the query (may carry an api_key: never logged as is)
    std::vector<std::pair<std::string, std::string>> headers; ///< extra headers (Authorization, ...)
    std::string method = "GET";                               ///< any method Beast knows by name
    std::string body; ///< sent with Content-Length when the method is not GET
    /// Keep a 2xx gzip body as received (HttpResponse::content_encoding says so) for HttpClient::decode_body
    /// on another thread: inflate is most of a large page's CPU, and the thread awaiting the answer also
    /// answers webhooks. Other statuses are decoded as usual.
    bool keep_gzip = false;
};

struct HttpResponse {
    unsigned status = 0;
    std::string body; ///< decoded (gunzipped) body, unless content_encoding says otherwise
    /// empty: `body` is decoded; "gzip": kept as received (HttpRequest::keep_gzip), see
    /// HttpClient::decode_body
    std::string content_encoding;
    std::vector<std::pair<std::string, std::string>> headers;
    int attempts = 1; ///< how many tries it took

    /** @brief Case-insensitive header lookup; empty if absent. */
    std::string header(std::string_view name) const;
};

/**
 * @brief A coroutine HTTP/1.1 client for one upstream service.
 *
 * `get` returns the final response for any status once retries are done (429/5xx are retried
 * first); only transport failures are errors: upstream_resolve, upstream_connect, upstream_tls,
 * upstream_timeout, upstream_io, upstream_too_large, shutdown. Messages name the service and the
 * redacted path, never a secret. Safe to call from many coroutines at once on one executor/strand.
 */
class HttpClient {
  public:
    HttpClient(boost::asio::any_io_executor ex, ClientOptions opts, Logger log = null_logger());
    ~HttpClient();
    HttpClient(HttpClient const&) = delete;
    HttpClient& operator=(HttpClient const&) = delete;

    boost::asio::awaitable<Result<HttpResponse>> get(HttpRequest req);
    /** @brief Any method, as `req.method` says; the same retries, deadlines and errors as get(). */
    boost::asio::awaitable<Result<HttpResponse>> request(HttpRequest req);

    /**
     * @brief The body of `resp` decoded: a body kept as received (HttpRequest::keep_gzip) is gunzipped
     * within max_body, with get()'s errors (upstream_too_large, upstream_io for a corrupt body) naming the
     * redacted `url` it was the answer to. Reads only the options: safe on any thread while the client lives.
     */
    Result<std::string> decode_body(HttpResponse const& resp, std::string const& url) const;

    ClientOptions const& options() const;
    /** @brief Takes its TLS context from `contexts` (shared with other clients); call before any request. */
    void share_tls(std::shared_ptr<TlsContexts> contexts);
    /** @brief Counts its name lookups in `lookups` (shared with other clients); call before any request. */
    void share_lookups(std::shared_ptr<NameLookups> lookups);

  private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

/** @brief A source's call budget as /metrics and /healthz show it at one moment (see BudgetState). */
struct BudgetGauge {
    std::string source;
    std::size_t limit = 0;
    long long period_seconds = 0;
    std::size_t used = 0;
    std::size_t left = 0;
    long long waiting_seconds = 0; ///< > 0: a refresh waits this long for room in the budget
};

/**
 * @brief What a source's call budget holds (sources' RateBudget keeps one and pushes a copy into
 * UpstreamMetrics on every change). Calls and waits are time points, not counts, so that what is read
 * later is still right: calls leave the window and waits end without anyone pushing.
 */
struct BudgetState {
    using clock = std::chrono::steady_clock;

    std::size_t limit = 0; ///< calls that may start in any window of `period`
    std::chrono::seconds period{0};
    std::deque<clock::time_point> calls; ///< start of each call counted (retries included), oldest first
    /// Cluster mode: the calls all replicas had made as of `shared_seen`; they count while that window lasts.
    std::size_t shared_used = 0;
    std::optional<clock::time_point> shared_seen;
    std::optional<clock::time_point> waiting_until; ///< when the wait for room ends, if a call waits

    /** @brief Calls in the window at `now`: those not `period` old yet, or the cluster's count if larger. */
    std::size_t used(clock::time_point now) const;
    /** @brief What /metrics and /healthz show of it at `now`. */
    BudgetGauge gauge(std::string source, clock::time_point now) const;
};

/**
 * @brief Upstream HTTP requests (every attempt, retries included) by source and status class, as a
 * histogram of their durations; and each source's call budget as its owner last pushed it. Thread-safe.
 */
class UpstreamMetrics {
  public:
    /** @brief The budget of `source` is now `state` (its owner calls this on every change). */
    void set_budget(std::string const& source, BudgetState state);
    /** @brief Forgets the budget of every source not in `sources` (a reload dropped theirs). */
    void keep_budgets(std::vector<std::string> const& sources);
    /** @brief Each source's budget as it stands at `now`, by source. */
    std::vector<BudgetGauge> budgets(BudgetState::clock::time_point now) const;
    std::vector<BudgetGauge> budgets() const { return budgets(BudgetState::clock::now()); }

    /** @brief One attempt; status 0 means no response arrived (network error or timeout). */
    void record(std::string_view source, unsigned status, std::chrono::duration<double> took);

    struct Series {
        std::string source;
        std::string code; ///< "2xx" … "5xx", or "error" when no response arrived
        std::array<std::uint64_t, duration_buckets.size() + 1> counts{}; ///< non-cumulative, last = +Inf
        double sum = 0;
    };
    /** @brief A copy of every series, sorted by source and code. */
    std::vector<Series> series() const;

    /** @brief Upstream work a webhook caused: `kind` "event" (one event read) or "refresh" (a full one). */
    void record_hook_work(std::string_view source, std::string_view kind);
    /** @brief (source, kind) -> how many, sorted. */
    std::map<std::pair<std::string, std::string>, std::uint64_t> hook_work() const;

  private:
    struct Histogram {
        std::array<std::uint64_t, duration_buckets.size() + 1> counts{};
        double sum = 0;
    };
    mutable std::mutex mtx_;
    std::map<std::pair<std::string, std::string>, Histogram> series_;        ///< by (source, code)
    std::map<std::pair<std::string, std::string>, std::uint64_t> hook_work_; ///< guarded by mtx_
    mutable std::mutex budget_mtx_;
    std::map<std::string, BudgetState, std::less<>> budgets_; ///< by source; guarded by budget_mtx_
};

/** @brief Parses a Retry-After value (delta seconds or HTTP-date) relative to `now`; nullopt if malformed. */
std::optional<std::chrono::seconds>
parse_retry_after(std::string_view value, std::chrono::system_clock::time_point now);

} // namespace icsbridge
