// File: cluster_snapshots.cpp
// ClusterSnapshots: the row where it can, the disk where it must.
#include "cluster/cluster_snapshots.hpp"

namespace icsbridge::cluster {

Result<void> ClusterSnapshots::save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) {
    if (auto local = disk_.save(feed, snap, fetched_at); !local)
        return local;
    return rows_->save(feed, snap, fetched_at);
}

Result<std::shared_ptr<Snapshot const>> ClusterSnapshots::load(std::string const& feed, bool gzip) {
    auto row = rows_->load(feed, gzip);
    if (row && *row) {
        // Keep the cache as new as what we serve, so a restart without the database starts from it.
        (void)disk_.save(feed, **row, (*row)->fetched_at);
        return row;
    }
    // A corrupt row is news for whoever runs the cluster; the store would only hear of it with no cache.
    if (!row && row.error().code == errc::snapshot_corrupt)
        warn_refused(feed, row.error());
    // No row, a corrupt one (never served) or no database: what this replica kept itself.
    return disk_.load(feed, gzip);
}

void ClusterSnapshots::warn_refused(std::string const& feed, Error const& why) const {
    log_.warn("feed " + feed + ": " + why.message + "; serving this replica's own copy");
}

} // namespace icsbridge::cluster
