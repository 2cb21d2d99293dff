// File: pg_snapshots.hpp
// The snapshot backend of cluster mode: one row per feed in PostgreSQL, written under a fence and
// announced with NOTIFY, checked on load like a disk snapshot.
#pragma once

#include "cluster/pg.hpp"
#include "dav/history_files.hpp"
#include <icsbridge/log.hpp>
#include <icsbridge/store.hpp>

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace icsbridge::cluster {

/** @brief The channel every save notifies, with the feed name as payload. */
inline constexpr char const* snapshot_channel = "icsbridge_snapshot";
/** @brief The channel a replica that received a webhook notifies, with the source name as payload. */
inline constexpr char const* hook_channel = "icsbridge_hook";

/**
 * @brief Snapshots in the icsbridge_snapshots table (schema.hpp).
 *
 * The fence: a save carries the lease epoch its writer holds for the feed (leases grow it each time they
 * change hands) and its fetch time; it replaces the row only when its epoch is newer, or the same with a
 * fetch no older. So a replica that was paused past its lease, while another took the feed over and
 * published, can never put its older calendar back.
 *
 * Thread-safe (one connection behind a mutex), blocking: for the control thread and start-up only.
 */
class PgSnapshots final : public SnapshotBackend {
  public:
    /** @brief The lease epoch this node holds for a feed's refresh; 0 when it holds none. */
    using EpochOf = std::function<std::int64_t(std::string const& feed)>;

    PgSnapshots(
        std::string database_url, std::string node, EpochOf epoch_of = {}, Logger log = null_logger()
    );
    PgSnapshots(
        std::shared_ptr<PgServer> server, std::string node, EpochOf epoch_of = {}, Logger log = null_logger()
    );

    /**
     * @brief Connects, and brings the schema up to date on each new connection (the database may have
     * come back empty); errc::io_error when the database is away.
     */
    Result<void> prepare();

    /**
     * @brief Told the feed whose save the fence refused: the caller has published older bytes than the
     * database's, and should serve the row instead. Called on the saving thread, outside the lock.
     */
    void on_refused(std::function<void(std::string const& feed)> fn) { on_refused_ = std::move(fn); }

    /**
     * @brief What goes into each row with its snapshot, in the same statement: the feed's CalDAV history up
     * to it (dav::History::kept_form), so a sync token from one replica works on any other. Set before the
     * first save; none: rows carry no history.
     */
    void keep_history(dav::HistoryOf of) { history_of_ = std::move(of); }

    /** @brief Where a loaded row's large body and gzip form are kept (ServedFeeds::files(): storage.dir's
     * O_TMPFILEs, sent with sendfile() cheaper than a memfd); null, as before any call: memfds. Set before
     * the first load. */
    void keep_bodies_in(std::shared_ptr<SnapshotFiles const> files) { files_ = std::move(files); }

    /**
     * @brief store() with the epoch of epoch_of; a write the fence refuses is errc::io_error. A lease
     * holder (epoch above 0) whose write is refused because the row fails its check replaces that row
     * (logged), as long as no one rewrote it meanwhile.
     */
    Result<void> save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) override;
    /** @brief save() with the history already at hand (the cache beside the row gets the same). */
    Result<void> save_with_history(
        std::string const& feed, Snapshot const& snap, sys_seconds fetched_at, std::string const& history
    );

    /**
     * @brief The feed's row: nullptr when there is none; errc::snapshot_corrupt when it does not check out
     * (not an iCalendar stream, its body's hash is not its ETag, or a field out of range: a disk snapshot's
     * checks), never served; errc::io_error when the database is away.
     */
    Result<std::shared_ptr<Snapshot const>> load(std::string const& feed, bool gzip) override;
    /** @brief load(), and the CalDAV history kept with the row into `history` (when not null) */
    Result<std::shared_ptr<Snapshot const>>
    load_with_history(std::string const& feed, bool gzip, std::string* history);

    std::string where() const override;

    /**
     * @brief Empties the CalDAV history kept in the feed's row (a feed removed from the config): a replica
     * that takes the row up again, the feed added back, starts a new epoch and refuses the old tokens.
     * errc::io_error when the database is away.
     */
    Result<void> forget_history(std::string const& feed);

    /**
     * @brief Empties the CalDAV history of every row whose feed is not in `kept` (at start: a feed removed
     * while every replica was stopped leaves no old epoch behind to take up when it is added back).
     */
    Result<void> forget_history_all_but(std::vector<std::string> const& kept);

    /**
     * @brief Writes the row unless the fence refuses it, and notifies snapshot_channel when written.
     * @return true when written, false when the database holds a newer snapshot (kept)
     */
    Result<bool>
    store(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at, std::int64_t epoch);

    /**
     * @brief After a degraded period: writes a snapshot this replica fetched alone when it is newer (by
     * fetch time) than the row and differs from it, keeping the row's lease epoch; notifies when written.
     * @return true when written, false when the row is as new or the same calendar
     */
    Result<bool> catch_up(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at);

  private:
    Result<void> prepare_locked();
    /** @brief The fenced upsert (or, `catching_up`, the catch-up one); true when it wrote the row. */
    Result<bool> write(
        bool catching_up,
        std::string const& feed,
        Snapshot const& snap,
        sys_seconds fetched_at,
        std::int64_t epoch,
        std::string const& history
    );
    std::string history_of(std::string const& feed, Snapshot const& snap) const;

    /** @brief A save's first nine parameters ($1 feed ... $9 the NOTIFY channel). */
    std::vector<PgParam> row_params(
        std::string const& feed, Snapshot const& snap, sys_seconds fetched_at, std::int64_t epoch
    ) const;
    /** @brief The lease holder's write over a row that fails its check; true when it replaced it. */
    Result<bool> replace_unusable(
        std::string const& feed,
        Snapshot const& snap,
        sys_seconds fetched_at,
        std::int64_t epoch,
        std::string const& history
    );
    /** @brief The first row of a load_sql result as a snapshot, or errc::snapshot_corrupt and why. */
    Result<std::shared_ptr<Snapshot const>>
    checked(PGresult const* res, std::string const& feed, bool gzip) const;

    mutable std::mutex mtx_;
    PgConnection db_;
    std::string node_;
    EpochOf epoch_of_;
    Logger log_;
    std::function<void(std::string const&)> on_refused_;
    dav::HistoryOf history_of_;
    std::shared_ptr<SnapshotFiles const> files_;
    /** @brief The connection (PgConnection::connects()) the schema was last checked on; 0: none yet. */
    std::uint64_t migrated_on_ = 0;
};

} // namespace icsbridge::cluster
