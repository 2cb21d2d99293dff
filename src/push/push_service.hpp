// File: push_service.hpp
// The push targets of `serve`: one loop per target on a thread of its own, woken by every publication of a
// feed it mirrors and at least once per refresh period (to repair drift), reconciling the calendar with
// the feeds' served snapshots. A slow or dead target holds only its own loop: never serving, refreshing,
// or another target.
#pragma once

#include "push/calendar_claims.hpp"
#include "push/loop_inputs.hpp"
#include "push/reconcile.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/push_status.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace icsbridge::push {

class TargetLoop;
class FairBudget;

/**
 * @brief A subscriber's connection (issue 27), pushed like a target: a Google or Microsoft calendar named
 * after its feed, authorized by the subscriber's own sign-in, paced by the connections' shared budget.
 */
struct ConnectionTarget {
    TargetConfig target; ///< name "connection-ID": the push state's and the lease's name
    Mirrored feed;
    /// The subscriber's tokens, made for the push thread's executor when the loop starts
    std::function<Authorizer(boost::asio::any_io_executor)> authorizer;
    /** @brief Whether a running loop can go on as it is (the authorizer is the connection's own). */
    bool same_as(ConnectionTarget const& o) const { return target == o.target && feed == o.feed; }
};

class PushService {
  public:
    /** @brief `store` (the served table) must outlive the service; its snapshots are what is pushed. */
    PushService(
        ServedFeeds const& store,
        PushStatus& status,
        PersistenceFor<KeptState> keeping,
        Logger log,
        LeaseWait lease_wait = {},
        Authorizers authorizers = {},
        PushStatus* connection_status = nullptr
    );
    /** @brief stop(), then waits for the thread (a write in flight is given a few seconds). */
    ~PushService();
    PushService(PushService const&) = delete;
    PushService& operator=(PushService const&) = delete;

    /** @brief The targets and feeds in force: at start and after each reload. Thread-safe. */
    void configure(std::shared_ptr<Config const> cfg);
    /**
     * @brief The subscribers' connections in force, sharing `rate` in turn (calls 0: no limit): new ones
     * start (their first reconcile creates the calendar), gone ones stop. Thread-safe.
     */
    void set_connections(std::vector<ConnectionTarget> connections, Budget rate);
    /** @brief Stops one connection's loop now (a disconnect), before its record goes. Thread-safe. */
    void drop_connection(std::string const& name);
    /** @brief `feed` has a new calendar: the targets that mirror it reconcile soon. Thread-safe. */
    void published(std::string const& feed);
    /** @brief Ends every loop after the write each is making. Thread-safe. */
    void stop();

  private:
    void apply(std::shared_ptr<Config const> const& cfg);
    void apply_connections(std::vector<ConnectionTarget> const& connections, Budget rate);
    void start(std::string const& name, std::shared_ptr<TargetLoop> loop);
    /** @brief Every second that connections made requests, hands the heap's free pages back to the system. */
    boost::asio::awaitable<void> give_back_memory();

    ServedFeeds const& store_;
    PushStatus& status_;
    PersistenceFor<KeptState> keeping_;
    Logger log_;
    LeaseWait lease_wait_;
    Authorizers authorizers_;
    boost::asio::io_context ioc_{1};
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> keep_;
    PushStatus* connection_status_;
    std::map<std::string, std::shared_ptr<TargetLoop>> loops_;            ///< the push thread's alone
    std::map<std::string, std::shared_ptr<TargetLoop>> connection_loops_; ///< the push thread's alone
    std::shared_ptr<Config const> cfg_;                                   ///< the push thread's alone
    std::mutex pending_mtx_;
    /// The newest connections set_connections() gave that the push thread has not taken (pending_mtx_)
    std::optional<std::pair<std::vector<ConnectionTarget>, Budget>> pending_connections_;
    std::shared_ptr<FairBudget> shared_; ///< the connections' budget (its waiters hold it too)
    /// One TLS context per ca_file for every loop's client: a thousand connections load the trust store once
    std::shared_ptr<TlsContexts> tls_ = std::make_shared<TlsContexts>();
    /// One bound on the name lookups of every loop's client: targets whose DNS hangs cannot pile up threads
    std::shared_ptr<NameLookups> lookups_ = std::make_shared<NameLookups>();
    /// The configured targets' calendars, as their servers resolve them: two on one are refused
    std::shared_ptr<CalendarClaims> claims_ = std::make_shared<CalendarClaims>();
    /// The feeds' items shaped once per publication, view and kind of calendar for every loop
    std::shared_ptr<SharedItems> shared_items_ = std::make_shared<SharedItems>();
    bool stopping_ = false; ///< the push thread's alone
    int running_ = 0;       ///< loops not yet ended (push thread)
    std::thread thread_;    ///< last: starts once the rest exists
};

} // namespace icsbridge::push
