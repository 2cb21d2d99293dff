// File: shared_budget.hpp
// The per-source call budget of a cluster, counted in the database (SharedCalls over PostgreSQL): the
// replicas together stay within one budget, whichever of them holds which feed's lease.
#pragma once

#include "cluster/pg.hpp"
#include "sources/rate_budget.hpp"

#include <chrono>
#include <mutex>
#include <string>

namespace icsbridge::cluster {

/**
 * @brief One row per source in icsbridge_budget: the start times (database clock, ms) of its calls in the
 * last period. A call is counted by one UPDATE that checks for room and appends under the row's lock, so
 * two replicas can never both take the last slot. Blocking: the refreshers' (control) thread only.
 */
class PgBudget final : public SharedCalls {
  public:
    explicit PgBudget(std::string database_url)
        : db_(std::move(database_url)) {}
    explicit PgBudget(std::shared_ptr<PgServer> server)
        : db_(std::move(server)) {}

    /** @brief nullopt when the database does not answer: the caller counts locally (and we wait a while
     * before asking again, so a database that is away costs no connect per call). */
    std::optional<Taken> try_take(std::string const& source, Budget const& spec) override;
    bool record(std::string const& source, Budget const& spec, int n) override;

  private:
    bool away();
    void went_away();

    std::mutex mtx_;
    PgConnection db_;
    std::chrono::steady_clock::time_point retry_after_{};
};

} // namespace icsbridge::cluster
