// File: cluster_snapshots.hpp
// The snapshot backend of a replica: the database row is the cluster's truth, the disk file a local cache
// so a replica serves at once on start, and keeps its feeds when the database is away.
#pragma once

#include "cluster/pg_snapshots.hpp"
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/store.hpp>

#include <memory>

namespace icsbridge::cluster {

class ClusterSnapshots final : public SnapshotBackend {
  public:
    ClusterSnapshots(std::shared_ptr<PgSnapshots> rows, std::string dir, Logger log)
        : rows_(std::move(rows))
        , disk_(std::move(dir))
        , log_(std::move(log)) {}

    /**
     * @brief The disk cache first (it never fails for the database's sake), then the fenced row; the CalDAV
     * history with each (keep_history).
     */
    Result<void> save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) override;

    /**
     * @brief The row when the database has a sound one (its history written beside the cache); otherwise the
     * disk cache. A corrupt row is logged and never served: the cache stands in for it.
     */
    Result<std::shared_ptr<Snapshot const>> load(std::string const& feed, bool gzip) override;

    std::string where() const override { return rows_->where() + " (cache: " + disk_.where() + ")"; }

    /** @brief The CalDAV history kept with each snapshot, in the row and beside the cached file. */
    void keep_history(dav::HistoryOf of) {
        history_of_ = of;
        rows_->keep_history(std::move(of));
    }

    /** @brief A removed feed's CalDAV history, in the row (the cache's goes with dav::History::forget). */
    Result<void> forget_history(std::string const& feed) { return rows_->forget_history(feed); }

    /** @brief Logs a row refused for `why` (errc::snapshot_corrupt), as load() does, for other readers of
     * the row (the convergence after an outage). */
    void warn_refused(std::string const& feed, Error const& why) const;

  private:
    std::shared_ptr<PgSnapshots> rows_;
    DiskSnapshots disk_;
    Logger log_;
    dav::HistoryOf history_of_;
};

} // namespace icsbridge::cluster
