// File: shared_budget.hpp
// The per-source call budget of a cluster, counted in the database (SharedCalls over PostgreSQL): the
// replicas together stay within one budget, whichever of them holds which feed's lease.
#pragma once

#include "cluster/pg.hpp"
#include "sources/rate_budget.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <mutex>
#include <string>

namespace icsbridge::cluster {

/**
 * @brief One row per source in icsbridge_budget: the start times (database clock, ms) of its calls in the
 * last period. A call is counted by one UPDATE that checks for room and appends under the row's lock, so
 * two replicas can never both take the last slot. Thread-safe. try_take() blocks; given the database's
 * own executor (`db`), take() and record() run their statements there and never block their caller.
 */
class PgBudget final : public SharedCalls, public std::enable_shared_from_this<PgBudget> {
  public:
    explicit PgBudget(std::string database_url)
        : db_(std::move(database_url)) {}
    PgBudget(std::shared_ptr<PgServer> server, boost::asio::any_io_executor db)
        : db_(std::move(server))
        , db_ex_(std::move(db)) {}

    /** @brief nullopt when the database does not answer: the caller counts locally (and we wait a while
     * before asking again, so a database that is away costs no connect per call). */
    std::optional<Taken> try_take(std::string const& source, Budget const& spec) override;
    boost::asio::awaitable<std::optional<Taken>> take(std::string source, Budget spec) override;
    bool record(std::string const& source, Budget const& spec, int n) override;

  private:
    bool away();
    void went_away();
    bool record_now(std::string const& source, int n);

    std::mutex mtx_;
    PgConnection db_;
    std::chrono::steady_clock::time_point retry_after_{};
    boost::asio::any_io_executor db_ex_; ///< where statements run for take()/record(); none: the caller's
};

} // namespace icsbridge::cluster
