// File: connection_rows.hpp
// Cluster mode: the self-serve connections (connect/connection_store.hpp) in the database, so any replica
// shows and changes them and the one that pushes them finds them; sign-in states are single-use across
// replicas. Its own connection, behind a mutex; it migrates the schema on each new connection.
#pragma once

#include "connect/connection_store.hpp"
#include <icsbridge/log.hpp>

#include <memory>
#include <string>

namespace icsbridge::cluster {

/**
 * @brief The connections as rows of icsbridge_connections (id, body = to_json(), saved_by, updated_at),
 * a generation counted in icsbridge_connections_generation by the statement that writes or deletes a row,
 * and claims in icsbridge_connect_claims (the nonce's SHA-256, its expiry in Unix seconds).
 * @param database_url never shown (mask_database_url); @param node this replica's name, kept as saved_by
 */
std::unique_ptr<connect::ConnectionStore>
pg_connections(std::string database_url, std::string node, Logger log);

} // namespace icsbridge::cluster
