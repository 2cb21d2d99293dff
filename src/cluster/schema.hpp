// File: schema.hpp
// The cluster database's tables, created and migrated by icsbridge itself on start.
#pragma once

#include "cluster/pg.hpp"

namespace icsbridge::cluster {

/** @brief The schema version this build writes and reads. */
inline constexpr int schema_version = 9;

/**
 * @brief Brings the database to schema_version: creates the tables on first start, applies the missing
 * migrations in order, each start holding one transaction-scoped advisory lock, so replicas that start
 * together migrate once and the others wait and find it done.
 * @return the version now in force; errc::io_error when the database cannot be reached, or its schema is
 * newer than this build knows (an older replica must not write into a newer layout).
 */
Result<int> migrate(PgConnection& db);

/**
 * @brief `db` connected, and migrated once per connection: `migrated_on` remembers the connection
 * (PgConnection::connects()) the schema was last checked on. Every new connection checks again, not only
 * the first: the database that comes back may be an empty one (restored, a failover to a fresh server).
 */
Result<void> connect_and_migrate(PgConnection& db, std::uint64_t& migrated_on);

} // namespace icsbridge::cluster
