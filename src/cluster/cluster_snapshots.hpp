// File: cluster_snapshots.hpp
// The snapshot backend of a replica: the database row is the cluster's truth, the disk file a local cache
// so a replica serves at once on start, and keeps its feeds when the database is away.
#pragma once

#include "cluster/pg_snapshots.hpp"
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/store.hpp>

#include <functional>
#include <memory>

namespace icsbridge::cluster {

class ClusterSnapshots final : public SnapshotBackend {
  public:
    /** @param files where loaded bodies are kept, the row's and the cache's (ServedFeeds::files()); null:
     * the cache's directory is opened here, and rows go into memfds */
    ClusterSnapshots(
        std::shared_ptr<PgSnapshots> rows,
        std::string dir,
        Logger log,
        std::shared_ptr<SnapshotFiles const> files = nullptr
    )
        : rows_(std::move(rows))
        , disk_(std::move(dir), files)
        , log_(std::move(log)) {
        rows_->keep_bodies_in(std::move(files));
    }

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

    /**
     * @brief The CalDAV history kept with each snapshot, in the row and beside the cached file; `gone`
     * forgets a feed's history in this process (converge: a row emptied of it).
     */
    void keep_history(dav::HistoryOf of, std::function<void(std::string const&)> gone) {
        history_of_ = of;
        history_gone_ = std::move(gone);
        rows_->keep_history(std::move(of));
    }

    /**
     * @brief A row of the snapshot this replica serves, with `history`: when our copy of the history is
     * another, the row's is the truth. True when the row is to be adopted for it (it holds one); an empty
     * one (the feed removed and added back while this replica was stopped) is forgotten here, so the next
     * collection starts a new epoch rather than going on with the old.
     */
    bool history_differs(std::string const& feed, std::string const& history) const;

    /** @brief A removed feed's CalDAV history, in the row (the cache's goes with dav::History::forget). */
    Result<void> forget_history(std::string const& feed) { return rows_->forget_history(feed); }
    Result<void> forget_history_all_but(std::vector<std::string> const& kept) {
        return rows_->forget_history_all_but(kept);
    }

    /** @brief Logs a row refused for `why` (errc::snapshot_corrupt), as load() does, for other readers of
     * the row (the convergence after an outage). */
    void warn_refused(std::string const& feed, Error const& why) const;

  private:
    std::shared_ptr<PgSnapshots> rows_;
    DiskSnapshots disk_;
    Logger log_;
    dav::HistoryOf history_of_;
    std::function<void(std::string const&)> history_gone_;
};

} // namespace icsbridge::cluster
