// File: push_state_rows.hpp
// Cluster mode: each push target's state (push/state.hpp's JSON) in the database, so the replica that
// takes over a target's lease goes on from what its predecessor wrote: no upload again, no duplicate.
// Its own connection, used by the push thread alone: no statement of the node's waits behind it.
#pragma once

#include "cluster/pg.hpp"
#include <icsbridge/error.hpp>

#include <mutex>
#include <optional>
#include <string>

namespace icsbridge::cluster {

class PushStateRows {
  public:
    /** @param url the database (never shown: mask_database_url); @param node this replica's name */
    PushStateRows(std::string url, std::string node);

    /** @brief The target's state as last saved by any replica; nullopt when there is none yet. */
    Result<std::optional<std::string>> load(std::string const& target);
    /** @brief Replaces the target's row. */
    Result<void> save(std::string const& target, std::string const& state_json);

  private:
    std::mutex mtx_; ///< a reload's loops and the old ones may overlap for a moment
    PgConnection db_;
    std::string node_;
};

} // namespace icsbridge::cluster
