// File: lease.hpp
// Who refreshes a fetch group in a cluster: a lease per group, claimed and renewed in the database with an
// expiry (Leases), and the decisions taken on what a claim answered: plain functions, no database.
#pragma once

#include "cluster/pg.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace icsbridge::cluster {

/** @brief What a claim found: the holder after it, and how long the holder's claim still runs. */
struct LeaseClaim {
    bool held = false;      ///< this node holds it (just claimed or renewed)
    std::string holder;     ///< empty when the row could not be read (a claim raced with ours)
    std::int64_t epoch = 0; ///< grows each time the lease changes hands: the fencing token of writes
    /// Left of the holder's claim, measured by the database clock (so replicas' clocks need not agree).
    std::chrono::milliseconds remaining{0};
};

/** @brief Whose turn a refresh is: ours, another replica's, or ours alone because the database is away. */
enum class RefreshTurn { mine, theirs, alone };

/**
 * @brief The turn for a claim's answer. A held lease with less than `margin` left is not a turn: the
 * refresh could outlive it and race the next holder. No answer at all (database unreachable): refresh
 * alone, since a calendar kept fresh twice beats one left to go stale.
 */
RefreshTurn refresh_turn(Result<LeaseClaim> const& claim, std::chrono::milliseconds margin);

/** @brief How long to wait before renewing a lease claimed for `lease`: a third of it, twice in reserve. */
std::chrono::milliseconds renew_after(std::chrono::seconds lease);

/**
 * @brief How long a replica that did not get the lease waits before it asks again: until the holder's
 * claim would end (so a dead holder is replaced at once), but never longer than `lease`, and at least a
 * moment, so a holder that keeps renewing costs one cheap statement per wait.
 */
std::chrono::milliseconds recheck_after(LeaseClaim const& claim, std::chrono::seconds lease);

/**
 * @brief The lease rows of one node. Blocking: the control thread's.
 *
 * A lease is held by this process, not by the node name: the holder written is the name and a random
 * number. Two replicas given the same `node` (one config file copied to every box) then still
 * take turns instead of both refreshing, and one of them stopping does not release the other's leases.
 */
class Leases {
  public:
    Leases(PgConnection& db, std::string const& node, std::chrono::seconds lease);

    /**
     * @brief Claims `name` for the lease if it is free, expired or already ours (renewing it), in one
     * statement; otherwise reports the holder. errc::io_error when the database does not answer.
     */
    Result<LeaseClaim> claim(std::string const& name);

    /** @brief Gives `name` up at once (on shutdown), so the next replica need not wait for the expiry. */
    Result<void> release(std::string const& name);

    /** @brief What this process writes as a lease's holder: "NODE/" and a random number. */
    std::string const& holder() const { return holder_; }
    std::chrono::seconds lease() const { return lease_; }

  private:
    PgConnection& db_;
    std::string holder_;
    std::chrono::seconds lease_;
};

} // namespace icsbridge::cluster
