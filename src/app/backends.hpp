// File: backends.hpp
// Where a config keeps what outlives one process, chosen once: the files under storage.dir on one box; in
// cluster mode the database's rows first (one connection per kind, shared by every target), the files as
// the copy for when the database is away. `serve`, `icsbridge push` and `icsbridge connect` take every
// persistence from here.
// (The feed snapshots follow the same choice through the cluster node, which owns their rows.)
#pragma once

#include "app/token_persistence.hpp"
#include "connect/connection_store.hpp"
#include "push/push_service.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>

#include <functional>
#include <memory>

namespace icsbridge::cli {

struct Backends {
    PersistenceFor<push::KeptState> push_state; ///< each push target's and connection's state
    PersistenceFor<std::optional<oauth::StoredToken>, oauth::StoredToken>
        tokens;           ///< each OAuth target's stored sign-in
    SignInStore sign_ins; ///< where `connect` stores a new sign-in (strictly)
    /// The self-serve connections' records ([connect]), made when asked: on disk, or the database's rows.
    std::function<std::unique_ptr<connect::ConnectionStore>()> connections;
};

/** @brief The persistence of `cfg`: files, or with [cluster] the database's rows and the files. */
Backends make_backends(Config const& cfg, Logger const& log);

} // namespace icsbridge::cli
