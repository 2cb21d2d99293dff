// File: schema.hpp
// The cluster database's tables, created and migrated by icsbridge itself on start.
#pragma once

#include "cluster/pg.hpp"

namespace icsbridge::cluster {

/** @brief The schema version this build writes and reads. */
inline constexpr int schema_version = 6;

/**
 * @brief Brings the database to schema_version: creates the tables on first start, applies the missing
 * migrations in order, each start holding one transaction-scoped advisory lock, so replicas that start
 * together migrate once and the others wait and find it done.
 * @return the version now in force; errc::io_error when the database cannot be reached, or its schema is
 * newer than this build knows (an older replica must not write into a newer layout).
 */
Result<int> migrate(PgConnection& db);

} // namespace icsbridge::cluster
