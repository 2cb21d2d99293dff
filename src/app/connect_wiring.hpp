// File: connect_wiring.hpp
// The self-serve connections of `serve` ([connect]), wired here because it joins the connect, push and
// cluster rooms: the key from its file, the records in the store make_backends chose.
#pragma once

#include "connect/connections.hpp"

#include <memory>

namespace icsbridge::cli {

/** @brief "readable", or what is wrong with [connect]'s key file and how to make one (its content never
 * shown): "missing; make one with: …", "not a regular file; …", "not readable by this user", "not a key: …",
 * "readable by others: chmod 600 FILE". */
std::string key_file_state(std::string const& path);

/**
 * @brief errc::config_invalid "FILE:LINE:COL: [connect] key_file PATH: STATE" (the table's place) when the
 * key file of `cfg` cannot be used: without it every sign-in would end in a 503. Readable by others is a
 * warning of `check`, not this. Nothing without [connect].
 */
Result<void> check_connect_key(Config const& cfg);

/**
 * @brief The connections of `cfg` (which has [connect]; check_connect_key() passed at start). A key file
 * that cannot be read now stops no one: the error is logged, stored sign-ins show "reconnect needed" and
 * new sign-ins are refused until a restart with a readable key.
 */
std::unique_ptr<connect::Connections> make_connections(
    std::shared_ptr<Config const> cfg,
    push::PushService& push,
    PushStatus& status,
    PersistenceFor<push::KeptState> keeping,
    std::unique_ptr<connect::ConnectionStore> store,
    Logger const& log
);

} // namespace icsbridge::cli
