// File: history_files.hpp
// Where the CalDAV change history outlives the process: DIR/NAME.davhistory beside DIR/NAME.snapshot (a
// single box's record; a replica's copy of its row), and in cluster mode the snapshot's row itself, written
// in the same statement as the snapshot (cluster/pg_snapshots.cpp). Written by the snapshot keeper's thread
// with each snapshot it keeps, so the history kept always reaches the snapshot kept beside it.
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/store.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::dav {

/**
 * @brief The history to keep with `snap` of `feed` (History::kept_form, the snapshot's collection recorded
 * first if the publication's subscribers have not yet): empty when there is none.
 */
using HistoryOf = std::function<std::string(std::string const& feed, Snapshot const& snap)>;

/** @brief DIR/NAME.davhistory. */
std::string history_path(std::string const& dir, std::string const& feed);

/** @brief Writes DIR/NAME.davhistory atomically (owner-only, like the snapshot). */
Result<void> save_history_file(std::string const& dir, std::string const& feed, std::string_view kept);

/** @brief What the History reads back: the kept form beside a feed's snapshot, and forgets a feed's. */
class HistoryFiles {
  public:
    explicit HistoryFiles(std::string dir)
        : dir_(std::move(dir)) {}
    /** @brief DIR/NAME.davhistory's content; empty when there is none or it cannot be read. */
    std::string kept(std::string const& feed) const;
    /** @brief Removes DIR/NAME.davhistory (a feed removed or redefined: its tokens must stop working). */
    void forget(std::string const& feed) const;
    /**
     * @brief Removes the histories of feeds not in `feeds` (at start: one removed while serve was stopped,
     * added back later, starts a new epoch, as after a reload).
     */
    void forget_all_but(std::vector<std::string> const& feeds) const;

  private:
    std::string dir_;
};

/**
 * @brief A single box's snapshot backend with the history beside it: each snapshot `inner` keeps is followed
 * by the feed's history up to it (`of`), in DIR/NAME.davhistory. Loads are `inner`'s.
 */
class HistoryBeside final : public SnapshotBackend {
  public:
    HistoryBeside(std::shared_ptr<SnapshotBackend> inner, std::string dir, HistoryOf of)
        : inner_(std::move(inner))
        , dir_(std::move(dir))
        , of_(std::move(of)) {}
    Result<void> save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) override;
    Result<std::shared_ptr<Snapshot const>> load(std::string const& feed, bool gzip) override {
        return inner_->load(feed, gzip);
    }
    std::string where() const override { return inner_->where(); }

  private:
    std::shared_ptr<SnapshotBackend> inner_;
    std::string dir_;
    HistoryOf of_;
};

} // namespace icsbridge::dav
