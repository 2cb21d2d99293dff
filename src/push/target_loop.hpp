// File: target_loop.hpp
// One push target's loop (a configured target, or a subscriber's connection): woken by publications of the
// feeds it mirrors and once per period, it waits for its turn (a cluster lease), reconciles the calendar with
// the served snapshots, and records how that went. Runs on the push thread alone.
#pragma once

#include "push/calendar_api.hpp"
#include "push/calendar_claims.hpp"
#include "push/loop_inputs.hpp"
#include "push/loop_policy.hpp"
#include "push/run_target.hpp"
#include <icsbridge/push_status.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace icsbridge::push {

class TargetLoop : public std::enable_shared_from_this<TargetLoop> {
  public:
    struct Deps {
        ServedFeeds const& store;
        PushStatus& status; ///< the targets' registry, or the connections' (never shown per connection)
        PersistenceFor<KeptState> keeping;
        Logger log;
        LeaseWait lease_wait;
        Gate gate; ///< a budget shared with other loops (the connections'); empty: the target's own only
        std::shared_ptr<TlsContexts> tls;     ///< TLS contexts every loop's client shares; null: its own
        std::shared_ptr<NameLookups> lookups; ///< the bound on name lookups every loop shares; null: its own
        /// The configured targets' calendars (the push thread's): null for the connections, which own theirs
        std::shared_ptr<CalendarClaims> claims = nullptr;
        /// The items shaped once for every loop that mirrors the same feeds (the push thread's)
        std::shared_ptr<SharedItems> shared_items = nullptr;
    };

    TargetLoop(
        boost::asio::any_io_executor ex,
        TargetConfig target,
        std::vector<Mirrored> feeds,
        std::chrono::seconds period,
        Deps deps,
        Authorizer auth
    );

    bool same(TargetConfig const& t, std::vector<Mirrored> const& feeds, std::chrono::seconds period) const {
        return t == target_ && feeds == feeds_ && period == period_;
    }
    bool mirrors(std::string const& feed) const;
    void wake();
    void stop();
    /** @brief Until stop(): what LoopPolicy says (wait for a reason, then for the lease, then reconcile). */
    boost::asio::awaitable<void> run();

  private:
    /** One reconcile, recorded; the error that ended it, if any. */
    boost::asio::awaitable<std::optional<errc>> once();
    void record(Report const& report);
    void note_waiting(std::string const& feed);
    void note_failure(std::string const& why);

    TargetConfig target_;
    std::vector<Mirrored> feeds_;
    std::chrono::seconds period_;
    Deps deps_;
    std::unique_ptr<CalendarApi> api_;
    boost::asio::steady_timer timer_;
    Persistence<KeptState> keeping_;
    LoopPolicy policy_;
    bool warned_todos_ = false;
};

} // namespace icsbridge::push
