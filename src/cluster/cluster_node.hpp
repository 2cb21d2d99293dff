// File: cluster_node.hpp
// One replica's part in the cluster, on a database thread of its own: it takes a group's lease before
// refreshing it (RefreshOptions::lease_wait), keeps the leases it holds renewed, and hears the other
// replicas' publishes (LISTEN) to adopt their rows at once (through the Publisher), and the webhooks that
// reached them. No statement ever runs on the thread that refreshes and publishes, so a database that does
// not answer holds neither.
#pragma once

#include "cluster/cluster_snapshots.hpp"
#include "cluster/lease.hpp"
#include "cluster/shared_budget.hpp"
#include "cluster/subscriber_fetches.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/publish.hpp>
#include <icsbridge/refresh.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace icsbridge::cluster {

class ClusterNode {
  public:
    /**
     * @param dir storage.dir: the disk cache of snapshots
     * @param db the executor of the database thread: run(), every statement and every member but those
     * said to be thread-safe run there
     * @param control where publications happen (the refreshers' thread): rows are adopted there
     */
    ClusterNode(
        ClusterConfig const& cfg,
        std::string dir,
        ServedFeeds& store,
        Publisher& publisher,
        Logger log,
        boost::asio::any_io_executor db,
        boost::asio::any_io_executor control
    );

    /** @brief The backend serve uses: rows in the database, files under `dir` as the local cache. */
    std::shared_ptr<SnapshotBackend> snapshots() const { return snapshots_; }

    /** @brief The CalDAV history kept with each snapshot and how to forget one in this
     * process (ClusterSnapshots::keep_history); before serving. */
    void keep_history(dav::HistoryOf of, std::function<void(std::string const&)> gone) {
        snapshots_->keep_history(std::move(of), std::move(gone));
    }

    /** @brief The sources' call budgets as every replica counts them (Pipeline::share_budgets). */
    std::shared_ptr<SharedCalls> shared_calls() const { return budget_; }

    /**
     * @brief RefreshOptions::lease_wait, from any thread: zero when this replica holds `g`'s lease (or is on
     * its own). The claim waits on the database thread; the caller's thread goes on meanwhile.
     */
    boost::asio::awaitable<std::chrono::milliseconds> lease_wait(FeedGroup const& g);

    /**
     * @brief Until stop(): hears NOTIFYs as they arrive (the LISTEN socket is watched) and loads the
     * notified feeds' rows into the store, renews the held leases, and reconnects after the database comes
     * back.
     */
    boost::asio::awaitable<void> run();

    /** @brief Thread-safe: ends run() and gives up the held leases, so another replica refreshes at once. */
    void stop();

    /** @brief False while the database is away: this replica then serves and refreshes on its own. */
    bool connected() const { return !degraded_.load(); }

    /** @brief Told the source of every webhook any replica announced (this one's included), on the
     * database thread. */
    void on_hook(std::function<void(std::string const& source, std::string const& event_id)> fn) {
        on_hook_ = std::move(fn);
    }

    /**
     * @brief Thread-safe: a webhook of `source` arrived here; tells every replica (NOTIFY), so that
     * whichever holds the lease refreshes. When the database is away, `alone` is called instead (on the
     * database thread): then this replica refreshes on its own.
     */
    void announce_hook(std::string source, std::string const& event_id, std::function<void()> alone);

    /**
     * @brief Thread-safe: a feed removed from the config; its CalDAV history leaves its row (on the database
     * thread), so the feed added back starts a new epoch on every replica. Logged when the database is away.
     */
    void forget_history(std::string feed);

    /**
     * @brief Thread-safe, at start: the CalDAV history leaves the rows of every feed not in `kept` (the
     * config's feeds), as a reload's removal does, for a feed removed while no replica ran. A replica of an
     * older config that still serves such a feed writes its history back with its next snapshot; one that
     * takes the row up meanwhile starts a new epoch, and its clients sync from scratch: never a wrong list.
     */
    void forget_history_all_but(std::vector<std::string> kept);

  private:
    /** @brief The claim itself (database thread): `lease` is the group's key, `feeds` its feeds' names. */
    std::chrono::milliseconds claim_turn(std::string const& lease, std::vector<std::string> const& feeds);
    /** @brief Loads a feed's row (database thread) and hands it to the publisher (control thread). */
    bool adopt(std::string const& feed);
    void release_all();
    std::int64_t epoch_of(std::string const& feed) const;
    void set_degraded(bool degraded, std::string const& why);
    void listen_or_reconnect();
    void load_notified();
    void load_rows(std::set<std::string> const& feeds);
    /** @brief The database did not answer: on our own, and no new attempt for a while. */
    void away(std::string const& why);
    /** @brief Drops the LISTEN connection; the run loop listens anew and converges. */
    void stop_listening();
    /** @brief stop_listening(), degraded; `why` empty: the server or the network closed it. */
    void listen_lost(std::string const& why);
    void rejoin_if_degraded();
    void check_listening();
    void renew_held();
    /** @brief False when the database went away meanwhile. */
    bool converge();
    void show_leases();
    /** @brief Whether the fence refused our last save of `feed` (its row is to be loaded back). */
    bool refused(std::string const& feed) const;

    std::string node_;
    std::chrono::seconds lease_;
    ServedFeeds& store_;
    Publisher& publisher_;
    Logger log_;
    /// Shared by every connection below: one that waits out its deadline for nothing resets the others.
    std::shared_ptr<PgServer> server_;
    std::shared_ptr<PgSnapshots> rows_;
    std::shared_ptr<ClusterSnapshots> snapshots_;
    std::shared_ptr<PgBudget> budget_;
    PgConnection lease_db_;
    Leases leases_;
    SubscriberFetches fetches_;
    PgConnection listen_db_;
    boost::asio::any_io_executor db_ex_;
    boost::asio::any_io_executor control_ex_;
    bool listening_ = false;
    std::atomic<bool> stopped_{false};
    std::atomic<bool> degraded_{false};
    std::chrono::steady_clock::time_point retry_after_{};
    std::chrono::steady_clock::time_point renew_due_{};
    std::chrono::steady_clock::time_point fetches_due_{};
    /// Guards the three below: the snapshot keeper's thread reads the epochs and reports refusals.
    mutable std::mutex mtx_;
    std::map<std::string, std::int64_t> held_;         ///< lease name -> the epoch we hold it under
    std::map<std::string, std::string> lease_of_feed_; ///< feed -> its group's lease name
    /// Feeds whose save the fence refused (we woke from a pause with an old calendar): the row goes back in.
    std::set<std::string> refused_;
    std::function<void(std::string const&, std::string const&)> on_hook_;
};

} // namespace icsbridge::cluster
