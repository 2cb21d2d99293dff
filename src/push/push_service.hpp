// File: push_service.hpp
// The push targets of `serve`: one loop per target on a thread of its own, woken by every publication of a
// feed it mirrors and at least once per refresh period (to repair drift), reconciling the calendar with
// the feeds' served snapshots. A slow or dead target holds only its own loop: never serving, refreshing,
// or another target.
#pragma once

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
#include <optional>
#include <string>
#include <thread>

namespace icsbridge::push {

class TargetLoop;

class PushService {
  public:
    /**
     * @brief Whose turn it is to push `target` in a cluster (a lease, as for refreshes): zero when ours;
     * otherwise how long to wait before asking again. Empty: always ours (one box).
     */
    using Turn = std::function<boost::asio::awaitable<std::chrono::milliseconds>(std::string const& target)>;
    /** @brief Where a target's state is kept (its file under storage.dir by default; the database in a
     * cluster). */
    using Keeping = std::function<StateKeeping(std::string const& target)>;

    /** @brief `store` (the served table) must outlive the service; its snapshots are what is pushed. */
    PushService(
        FeedStore const& store,
        PushStatus& status,
        Keeping keeping,
        Logger log,
        Turn turn = {},
        Authorizers authorizers = {}
    );
    /** @brief stop(), then waits for the thread (a write in flight is given a few seconds). */
    ~PushService();
    PushService(PushService const&) = delete;
    PushService& operator=(PushService const&) = delete;

    /** @brief The targets and feeds in force: at start and after each reload. Thread-safe. */
    void configure(std::shared_ptr<Config const> cfg);
    /** @brief `feed` has a new calendar: the targets that mirror it reconcile soon. Thread-safe. */
    void published(std::string const& feed);
    /** @brief Ends every loop after the write each is making. Thread-safe. */
    void stop();

  private:
    void apply(std::shared_ptr<Config const> const& cfg);

    FeedStore const& store_;
    PushStatus& status_;
    Keeping keeping_;
    Logger log_;
    Turn turn_;
    Authorizers authorizers_;
    boost::asio::io_context ioc_{1};
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> keep_;
    std::map<std::string, std::shared_ptr<TargetLoop>> loops_; ///< the push thread's alone
    bool stopping_ = false;                                    ///< the push thread's alone
    int running_ = 0;                                          ///< loops not yet ended (push thread)
    std::thread thread_;                                       ///< last: starts once the rest exists
};

} // namespace icsbridge::push
