// File: service.hpp
// Service: the running `serve`, one object that owns every part by name and builds them in one place, so
// a reader sees what runs and who calls whom.
#pragma once

#include "app/backends.hpp"
#include "app/dav_push_wiring.hpp"
#include "app/generation.hpp"
#include "app/webpush_wiring.hpp"
#include "cluster/cluster_node.hpp"
#include "push/push_service.hpp"
#include "push/state_saver.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/dav.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/publish.hpp>
#include <icsbridge/revoked_tokens.hpp>
#include <icsbridge/server.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace icsbridge::connect {
class Connections;
} // namespace icsbridge::connect

namespace icsbridge {

/**
 * @brief Who calls whom, in one picture:
 *
 *     refreshers (current_) ──fetch──▶ pipeline ──▶ upstreams
 *          │ publish                         cluster node_ ──adopt (a sibling's row)──┐
 *          ▼                                                                           ▼
 *     publisher_ ──put──▶ store_ (served table) ◀──lookup── server_ (HTTP threads)
 *          │ keep ──▶ keeper_ (own thread) ──▶ disk, or the database in cluster mode
 *          └ subscribers: views_.drop, merged feeds (publish in turn), the log, push_ (wakes the
 *            targets mirroring the feed; they read store_ and write into people's calendars), dav_
 *            (the CalDAV collections' history, read by server_; the keeper keeps it with each snapshot)
 *
 * Threads: the control context runs the refreshers, the signals and every publication; the cluster
 * context (cluster mode) the node's statements (leases, peers' rows, LISTEN, shared budgets); the accept
 * context the listener; one context per HTTP worker the HTTP connections; the keeper its writes; the push
 * service its targets; the self-serve connections ([connect]) theirs; each host name lookup a short-lived
 * thread of its own (net/lookup.cpp). In cluster mode the push state, the OAuth tokens and the
 * connection records each have their own database connection, used from the thread that owns them
 * (app/backends.cpp). No thread that refreshes or serves waits for the database.
 */
class Service {
  public:
    /** @brief Builds every part from `cfg` (what only a restart changes is read from it, once). */
    Service(Config const& cfg, Logger const& log);
    ~Service();
    Service(Service const&) = delete;
    Service& operator=(Service const&) = delete;

    /** @brief Listens, refreshes and serves until SIGINT/SIGTERM. @return the exit status */
    int run();

  private:
    void restore();
    /** The CalDAV tree and its WebDAV-Push registrations in the server. */
    void wire_dav();
    /** [connect]: the subscribers' connections, and their routes in the server. */
    void wire_connections();
    void subscribe();
    push::LeaseWait push_lease_wait();
    /** The push service with its state persistence, lease waits and the OAuth targets' authorizers. */
    std::unique_ptr<push::PushService> make_push();
    std::shared_ptr<Generation> next_generation(std::shared_ptr<Config const> cfg, RefreshOptions opts);
    void start_generation(std::shared_ptr<Generation> gen);
    void reload();
    void hook(std::string const& source, std::string const& event_id);
    void stop();
    void await_hangup();
    void run_threads();

    Logger const& log_;
    // The threads' contexts first: every part below may hold their executors, and goes before them.
    boost::asio::io_context control_{1}; ///< refreshers, signals, publications
    boost::asio::io_context accept_{1};  ///< the accept loop
    boost::asio::io_context cluster_{1}; ///< cluster mode: the node's database thread
    std::vector<std::unique_ptr<boost::asio::io_context>> workers_; ///< one per HTTP thread
    std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> keep_running_;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> keep_cluster_;

    std::shared_ptr<Config const> cfg_; ///< the config at start: listen, threads, storage.dir, gzip
    LiveConfig live_;                   ///< the config in force (a reload replaces it)
    cli::Backends backends_;            ///< files, or the database's rows: chosen once, at start
    Metrics metrics_;                   ///< /metrics' counters, shared by the server and the clients
    ServedFeeds store_;                 ///< the served table
    ViewCache views_;                   ///< the views built from it; dropped per feed on publication
    /// Cluster mode: leases, peers' rows, shared budgets. Built before the keeper, whose backend it gives;
    /// it holds a reference to publisher_, which it uses only once running.
    std::unique_ptr<cluster::ClusterNode> node_;
    /// The CalDAV collections' change history (a subscriber of publisher_, read by the HTTP threads); null
    /// when [dav] enabled = false. Before the keeper, which keeps it beside each snapshot (its thread asks it
    /// until the keeper is gone).
    std::shared_ptr<dav::History> dav_ =
        cfg_->dav.enabled ? std::make_shared<dav::History>(cfg_->dav.history) : nullptr;
    std::shared_ptr<SnapshotKeeper> keeper_; ///< keeps each publication (disk, or the database)
    Publisher publisher_;                    ///< the one owner of publishing
    std::vector<Publisher::Subscription> subscriptions_;

    RefreshOptions refresh_opts_;
    std::shared_ptr<SharedCalls> shared_calls_; ///< cluster mode: budgets counted in the database
    std::shared_ptr<Generation> current_;       ///< the refreshing half of the config in force
    std::unique_ptr<Server> server_;
    /// The subscribers' connections as the push service last saw them; never in /healthz or /metrics.
    PushStatus connection_status_;
    /// Writes the push states off the push thread (one replica only; null in cluster mode). Before push_ and
    /// connections_: it writes what they saved last after they are gone.
    std::unique_ptr<push::StateSaver> saver_;
    /// The push targets, on a thread of their own; told of every changed publication.
    std::unique_ptr<push::PushService> push_;
    /// [connect]: the subscribers' own calendars (after push_, which they are pushed by)
    std::unique_ptr<connect::Connections> connections_;
    std::shared_ptr<RevokedTokens> revoked_; ///< tokens a reload took away (410 for a week)
    /// WebDAV-Push: the VAPID key and the registrations (null registry: push off); read by the HTTP threads
    cli::DavPush dav_push_;
    /// WebDAV-Push delivery, on a thread of its own; told of every changed publication (null: push off)
    std::shared_ptr<webpush::Sender> sender_;
    boost::asio::cancellation_signal push_upkeep_stop_; ///< ends keep_registrations (on its executor)
    boost::asio::signal_set stops_{control_, SIGINT, SIGTERM};
    boost::asio::signal_set hangups_{control_, SIGHUP};
    bool stopping_ = false;
    int remaining_ = 2; ///< top-level coroutines (server, refreshers) still running
};

} // namespace icsbridge
