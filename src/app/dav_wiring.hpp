// File: dav_wiring.hpp
// The CalDAV change history in `serve`, wired here because it joins the dav, store and cluster rooms: kept by
// the snapshot keeper with each snapshot (beside the file, in the row), told of each publication, and taken
// up again from what was kept at start.
#pragma once

#include "cluster/cluster_node.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/dav.hpp>
#include <icsbridge/publish.hpp>
#include <icsbridge/store.hpp>

#include <memory>
#include <string>
#include <vector>

namespace icsbridge::cli {

/**
 * @brief Where `serve` keeps its snapshots: files under storage.dir on a single box; in a cluster the node's
 * rows, the files as the cache. With `history` (null: [dav] enabled = false) the feed's CalDAV history up to
 * each snapshot goes with it, beside the file and in the row's statement, and `history` reads it back from
 * storage.dir. `store`: the served table, which must outlive the backend.
 */
std::shared_ptr<SnapshotBackend> kept_snapshots(
    Config const& cfg,
    cluster::ClusterNode* node,
    std::shared_ptr<dav::History> const& history,
    ServedFeeds const& store
);

/**
 * @brief The Publisher's subscriber that records each changed publication in `history`; a peer's row and a
 * kept copy take up the history kept with them (also when their bytes are those served already).
 */
Publisher::Subscriber record_publications(std::shared_ptr<dav::History> history);

/**
 * @brief The Publisher's preparer that cuts each changed snapshot for `history` before it is served, off the
 * thread that publishes: record_publications() then only records it.
 */
Publisher::Preparer prepare_publications(std::shared_ptr<dav::History> history);

/** @brief The snapshots restored before `history` subscribed take up the history kept beside them. */
void resume_history(dav::History* history, ServedFeeds const& store);

/**
 * @brief A reload's removed feeds' histories forgotten, kept ones too (beside the file; in a cluster the
 * row's): added back, a feed starts a new epoch. An added feed's own, if any (a keeper's save of it that
 * raced its removal), goes too.
 */
void forget_removed(
    dav::History* history,
    cluster::ClusterNode* node,
    std::vector<std::string> const& removed,
    std::vector<std::string> const& added
);

} // namespace icsbridge::cli
