// File: connection_store.hpp
// Where the self-serve connections live: a directory of JSON files (one replica), or the cluster
// database (cluster/connection_rows.hpp). The web routes write them; the pushing replica reads them.
#pragma once

#include "connect/connection.hpp"
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace icsbridge::connect {

/**
 * @brief The connections, wherever they are kept. Thread-safe. An id that is not valid_connection_id()
 * (it may come from a URL) is never looked up: get() finds nothing, remove() and put_status() return false,
 * put() refuses it.
 */
class ConnectionStore {
  public:
    virtual ~ConnectionStore() = default;

    /** @brief All of them, in no order; a corrupt record is left out (one warning in the log). */
    virtual Result<std::vector<Connection>> list() = 0;
    /** @brief The connection; nullopt when there is none; errc::io_error when its record is corrupt. */
    virtual Result<std::optional<Connection>> get(std::string const& id) = 0;
    /** @brief Inserts or replaces the whole record (status fields included). */
    virtual Result<void> put(Connection const& c) = 0;
    /**
     * @brief Writes only the status fields (last_success, last_failure, last_error, items, stopped) of `c`
     * into the record with its id: the pushing replica's write, which must not undo a concurrent
     * disconnect, so with no record it is a no-op returning false. Does not change generation().
     */
    virtual Result<bool> put_status(Connection const& c) = 0;
    /** @brief Deletes the connection; false when it was not there. */
    virtual Result<bool> remove(std::string const& id) = 0;
    /**
     * @brief Single-use sign-in states: true the first time `nonce` is claimed, false ever after (until
     * `expires` passed, then it may be forgotten). A claim whose `expires` already passed is refused
     * (false), so a forgotten state can never be claimed twice. Only a hash of the nonce is kept.
     */
    virtual Result<bool> claim(std::string const& nonce, std::chrono::sys_seconds expires) = 0;
    /**
     * @brief A number that changes whenever the set of connections or any connection changes (put,
     * remove; not put_status): a replica re-lists only when it moved.
     */
    virtual Result<std::uint64_t> generation() = 0;
};

/**
 * @brief `{storage_dir}/connections/ID.json`, mode 0600 in a 0700 directory, each replaced atomically
 * (write_file_atomically); claims in memory, forgotten once expired. A corrupt file is left out of list()
 * with one warning per file, and get() returns its error. The generation is counted in memory: keep one
 * store per directory in a process, shared by whatever reads and writes connections.
 */
std::unique_ptr<ConnectionStore> disk_connections(std::string storage_dir, Logger log);

} // namespace icsbridge::connect
