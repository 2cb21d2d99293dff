// File: cluster_snapshots.cpp
// ClusterSnapshots: the row where it can, the disk where it must.
#include "cluster/cluster_snapshots.hpp"

namespace icsbridge::cluster {

// Not app/row_then_file.hpp's shape, for two reasons: a snapshot's row is what the other replicas adopt
// (cluster_rows.cpp), so a row not written is this save's failure, for the keeper to log, where a target's
// keeping only warns; and load() rewrites the file from a sound row, so the disk is a cache as new as what
// is served and a restart without the database serves it at once.
Result<void> ClusterSnapshots::save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) {
    if (auto local = disk_.save(feed, snap, fetched_at); !local)
        return local;
    auto history = history_of_ ? history_of_(feed, snap) : std::string();
    if (!history.empty())
        if (auto local = dav::save_history_file(disk_.dir(), feed, history); !local)
            return local;
    return rows_->save_with_history(feed, snap, fetched_at, history);
}

Result<std::shared_ptr<Snapshot const>> ClusterSnapshots::load(std::string const& feed, bool gzip) {
    std::string history;
    auto row = rows_->load_with_history(feed, gzip, &history);
    if (row && *row) {
        // Keep the cache as new as what we serve, so a restart without the database starts from it; the
        // history with it, which is also where this replica's History reads a peer's (dav::HistoryFiles).
        (void)disk_.save(feed, **row, (*row)->fetched_at);
        // A row without one (its feed was removed, then added back) leaves none here either: an older copy
        // would take up the old epoch, whose tokens must be refused.
        if (!history.empty())
            (void)dav::save_history_file(disk_.dir(), feed, history);
        else
            dav::HistoryFiles(disk_.dir()).forget(feed);
        return row;
    }
    // A corrupt row is news for whoever runs the cluster; the store would only hear of it with no cache.
    if (!row && row.error().code == errc::snapshot_corrupt)
        warn_refused(feed, row.error());
    // No row, a corrupt one (never served) or no database: what this replica kept itself.
    return disk_.load(feed, gzip);
}

bool ClusterSnapshots::history_differs(std::string const& feed, std::string const& history) const {
    if (!history_of_)
        return false; // CalDAV is off: no history is kept on either side
    if (dav::HistoryFiles(disk_.dir()).kept(feed) == history)
        return false;
    if (!history.empty())
        return true;
    if (history_gone_)
        history_gone_(feed);
    return false;
}

void ClusterSnapshots::warn_refused(std::string const& feed, Error const& why) const {
    log_.warn("feed " + feed + ": " + why.message + "; serving this replica's own copy");
}

} // namespace icsbridge::cluster
