// File: push_persistence.hpp
// Where the push targets' state lives for a config, for `serve` and `icsbridge push` alike: the state file
// under storage.dir, and in cluster mode the database row first (whoever pushed last), the file as the
// copy for when the database is away. And the lease push:NAME that `icsbridge push` holds in a cluster,
// so that it never pushes a target beside the replica that does.
#pragma once

#include "cluster/lease.hpp"
#include "cluster/push_state_rows.hpp"
#include "push/push_service.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace icsbridge::cli {

/**
 * @brief Each target's state persistence: the file under `dir`; with `rows` (cluster mode, make_backends) the
 * row first (the file when there is none or the database is away, logged), saved to both (a row that
 * cannot be written is a warning). The one database connection of `rows` serves every target.
 */
PersistenceFor<push::KeptState>
push_persistence(std::string const& dir, std::shared_ptr<cluster::PushStateRows> rows, Logger const& log);

/** @brief The lease push:NAME serve's replicas take before they push NAME (service.cpp, push_turn). */
std::string push_lease_name(std::string const& target);

/**
 * @brief The leases `icsbridge push` holds in cluster mode: taken before a target is pushed, renewed every
 * third of [cluster] lease while keep() runs, given up by release_all() (the next replica need not wait for
 * the expiry). Blocking statements on one connection: the command's only thread.
 */
class PushLeases {
  public:
    explicit PushLeases(ClusterConfig const& cluster);

    /**
     * @brief Claims `target`'s lease; errc::io_error when another process holds it ("the running service
     * pushes it ...") or the database cannot be asked: either way one line for the user.
     */
    Result<void> take(std::string const& target);
    /** @brief Whether `target`'s lease was lost since take() (a renewal found another holder, or failed). */
    bool lost(std::string const& target) const;
    /** @brief Renews the held leases until stop(). */
    boost::asio::awaitable<void> keep();
    void stop();
    /** @brief Gives up every held lease. */
    void release_all();

  private:
    void renew();

    cluster::PgConnection db_;
    std::uint64_t migrated_on_ = 0;
    cluster::Leases leases_;
    std::map<std::string, bool> held_;           ///< target -> still held
    boost::asio::steady_timer* timer_ = nullptr; ///< keep()'s timer while keep() runs
    bool stopped_ = false;
};

} // namespace icsbridge::cli
