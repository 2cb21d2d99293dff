// File: postgres_server.hpp
// A real PostgreSQL 15 for the cluster tests: initdb + postgres in a temp dir, run as the unprivileged
// `postgres` user when the tests run as root, on a Unix socket in that dir, stopped by its pid.
#pragma once

#include <sys/types.h>

#include <string>

namespace icsbridge::test {

class PostgresServer {
  public:
    /** @brief Starts a new cluster and waits until it accepts connections; throws if it cannot. */
    PostgresServer();
    /** @brief Fast shutdown by pid, then the directory is removed. */
    ~PostgresServer();
    PostgresServer(PostgresServer const&) = delete;
    PostgresServer& operator=(PostgresServer const&) = delete;

    /** @brief A libpq URI of database `db` (trust auth, no password). */
    std::string url(std::string const& db = "postgres") const;

    /** @brief Creates an empty database and returns its URI: each test gets a schema of its own. */
    std::string fresh_database(std::string const& name);

    pid_t pid() const { return pid_; }

  private:
    std::string dir_;
    pid_t pid_ = -1;
};

/**
 * @brief The one server of this test process, started on first use and stopped at exit: initdb costs
 * seconds, so the cases of a suite share it and isolate themselves with fresh_database().
 */
PostgresServer& shared_postgres();

} // namespace icsbridge::test
