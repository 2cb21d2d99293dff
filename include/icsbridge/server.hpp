// File: server.hpp
// The subscription server: the pure request -> response core (testable without sockets) and the
// Beast/Asio listener around it (one coroutine per connection on its own strand, keep-alive, limits).
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/net.hpp>
#include <icsbridge/push_status.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/address.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge {

class ViewCache; // src/views/view_cache.hpp: the views built from the served snapshots
namespace dav {
class History;      // icsbridge/dav.hpp: the CalDAV collections' change history
class PushRegistry; // dav/push_registry.hpp: WebDAV-Push registrations
} // namespace dav
class RevokedTokens; // icsbridge/revoked_tokens.hpp: tokens a reload took away
class BodyStream;    // icsbridge/body_stream.hpp: a body made as it is sent

namespace server_detail {
struct ServerState;
} // namespace server_detail

/** @brief Route label used for the request counter of /metrics. */
enum class Route { index, feed, healthz, metrics, hooks, connect, dav, other };
inline constexpr std::size_t route_count = 8;
/** @brief Status codes counted individually; anything else is counted as "other". */
inline constexpr std::array<unsigned, 18> counted_statuses = {
    200, 202, 207, 302, 303, 304, 308, 400, 401, 403, 404, 405, 410, 413, 429, 500, 503, 0};

/** @brief What became of an incoming webhook (server/hooks.hpp), as /metrics counts it. */
enum class HookOutcome { accepted, refused, malformed, foreign_url, too_large };
inline constexpr std::size_t hook_outcome_count = 5;

/** @brief Lock-free request counters (hot path). */
class HttpMetrics {
  public:
    void count(Route r, unsigned status) noexcept;
    std::uint64_t get(Route r, unsigned status) const noexcept;
    void count_hook(HookOutcome o) noexcept;
    std::uint64_t hooks(HookOutcome o) const noexcept;

  private:
    static std::size_t status_index(unsigned status) noexcept;
    std::array<std::array<std::atomic<std::uint64_t>, counted_statuses.size()>, route_count> counts_{};
    std::array<std::atomic<std::uint64_t>, hook_outcome_count> hooks_{};
};

/**
 * @brief Everything /metrics counts besides the feeds' own status: the server's requests and webhooks, the
 * upstream client's attempts and call budgets, and the push targets. Owned by whoever wires the service
 * (`serve`), shared with the server and the pipeline's clients.
 */
struct Metrics {
    HttpMetrics http;
    UpstreamMetrics upstream;
    PushStatus push;              ///< the push targets (shown to the admin only)
    ConnectionCounts connections; ///< the subscribers' connections, counted (shown to the admin only)
    WebPushCounts webpush;        ///< WebDAV-Push messages, counted
};

/** @brief The parts of a request the server looks at; views into the caller's request. */
struct ServerRequest {
    std::string_view method; ///< "GET", "HEAD", ...
    std::string_view target; ///< origin-form, e.g. "/feeds/x.ics?token=..."
    std::optional<std::string_view> if_none_match;
    std::optional<std::string_view> if_modified_since;
    std::string_view accept_encoding;
    std::string_view authorization; ///< the Authorization header ("Bearer T" unlocks /healthz, /metrics)
    std::string_view user_agent;    ///< Google's calendar fetcher gets the google view of a large feed
    std::string_view origin;        ///< the Origin header (a form's POST is refused from another site)
    std::string_view accept;        ///< the Accept header
    std::string_view depth;         ///< the Depth header (WebDAV)
    std::string_view body;          ///< read only for POST /hooks/… and the CalDAV tree; empty otherwise
    bool body_too_large = false;    ///< a body over its limit, left unread
    /// Who sent it: the peer, or behind a trusted proxy the client its X-Forwarded-For names. Set for the
    /// async routes only (the sign-in caps count by it).
    boost::asio::ip::address client;
};

/** @brief A response; the body of a feed is a view into the shared, immutable snapshot (never copied). */
struct ServerResponse {
    unsigned status = 200;
    Route route = Route::other;
    std::vector<std::pair<std::string_view, std::string>> headers; ///< besides Content-Length/Connection/Date
    std::string text;                                              ///< body of generated pages
    std::shared_ptr<Snapshot const> snapshot;                      ///< set for a feed body
    bool gzip = false;                                             ///< body is snapshot->gzip_body
    /// Set: the body is made a part at a time as the socket takes it (chunked), never held whole
    std::shared_ptr<BodyStream> stream;
    bool head = false; ///< send the headers only (Content-Length still of the body)
    /// An accepted webhook: the source whose feeds are to be refreshed now, and the hook's action.
    std::string hook_source;
    std::string hook_action;
    std::string hook_event; ///< the event the hook names (hooked_event_id), or empty

    /** @brief The body GET would send. */
    std::string_view body() const {
        if (!snapshot)
            return text;
        return gzip ? std::string_view(snapshot->gzip_body) : std::string_view(snapshot->body);
    }
    /** @brief Value of a header set here, or empty. */
    std::string_view header(std::string_view name) const;
};

/**
 * @brief Routes a request (the README's "HTTP endpoints"): /feeds/NAME.ics, /feeds/NAME.html, /healthz,
 * /metrics, /, POST /hooks/SOURCE/SECRET; 404 for other paths, 405 + Allow for other methods, 400 for an
 * unparsable target. Pure apart from counting subscriber fetches in the store and webhooks in `metrics`.
 * A token in `revoked` (when given) gets 410 Gone instead of the 404 of a wrong one. With `dav` (and
 * `[dav] enabled`), /.well-known/caldav and /dav/ are the read-only CalDAV tree (src/dav/); with `push` (and
 * `[dav] push`) its collections take WebDAV-Push registrations.
 */
ServerResponse handle_request(
    ServerRequest const& req,
    ServedFeeds const& store,
    ViewCache& views,
    Metrics& metrics,
    Config const& cfg,
    sys_seconds now,
    RevokedTokens const* revoked = nullptr,
    dav::History* dav = nullptr,
    dav::PushRegistry* push = nullptr
);

/**
 * @brief Routes answered by a coroutine, outside the pure router: the self-serve connect flow (issue 27)
 * signs people in at a provider and reads and writes their connections. Called on the connection's
 * executor; a handler that needs another thread hops there and back itself.
 */
class AsyncRoutes {
  public:
    virtual ~AsyncRoutes() = default;
    /** @brief Whether `path` (decoded, no query) is one of these routes. */
    virtual bool owns(std::string_view path) const = 0;
    /** @brief The largest request body a POST to `path` may have (0: none is read). */
    virtual std::size_t body_limit(std::string_view path) const = 0;
    virtual boost::asio::awaitable<ServerResponse>
    handle(ServerRequest const& req, std::shared_ptr<Config const> cfg, sys_seconds now) = 0;
};

/** @brief Told the source of each accepted webhook (from a connection's thread: must be thread-safe). */
using HookSink = std::function<void(std::string const& source, std::string const& event_id)>;

/**
 * @brief The HTTP listener. Usage: `listen()` (port 0 picks a free port), co_spawn `run()`, and
 * `stop()` from anywhere to stop accepting, let requests in flight finish and close idle connections.
 */
class Server {
  public:
    /**
     * @brief `ex` runs the accept loop. Connections are spread round-robin over `workers`, each of which
     * must be run by exactly one thread (an io_context per thread: no locks, strands or cross-thread
     * wake-ups per request); with no workers every connection gets a strand on `ex`.
     */
    Server(
        boost::asio::any_io_executor ex,
        Config const& cfg,
        ServedFeeds const& store,
        ViewCache& views,
        Metrics& metrics,
        Logger log,
        std::vector<boost::asio::any_io_executor> workers = {},
        HookSink on_hook = {}
    );
    /** @brief Same, answering each request from the config in force (a reload replaces it). */
    Server(
        boost::asio::any_io_executor ex,
        std::shared_ptr<LiveConfig const> live,
        ServedFeeds const& store,
        ViewCache& views,
        Metrics& metrics,
        Logger log,
        std::vector<boost::asio::any_io_executor> workers = {},
        HookSink on_hook = {}
    );
    ~Server();
    Server(Server const&) = delete;
    Server& operator=(Server const&) = delete;

    /** @brief Binds cfg.server.host:port; returns the bound port. errc::io_error if it cannot. */
    Result<std::uint16_t> listen();
    std::uint16_t port() const;

    /** @brief Accepts until stop(), then waits for open connections to finish (up to a grace period). */
    boost::asio::awaitable<void> run();

    /** @brief Thread-safe; idempotent. */
    void stop();

    /** @brief Connections open right now. */
    std::size_t connections() const;

    /** @brief Tokens that answer 410 Gone (a reload revoked them); set before run(). */
    void set_revoked(std::shared_ptr<RevokedTokens const> revoked);
    /** @brief The routes answered by a coroutine (the connect flow); set before run(). */
    void set_async_routes(std::shared_ptr<AsyncRoutes> routes);
    /** @brief The CalDAV collections' history: with it, /dav/ is served; set before run(). */
    void set_dav(std::shared_ptr<dav::History> history);
    /** @brief The WebDAV-Push registrations: with them (and `[dav] push`), collections take registrations;
     * set before run(). */
    void set_push(std::shared_ptr<dav::PushRegistry> registry);

  private:
    std::shared_ptr<server_detail::ServerState> impl_;
};

} // namespace icsbridge
