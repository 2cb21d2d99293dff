// File: state_saver.hpp
// StateSaver: serve's push states written on a thread of their own, so that the push thread, which pushes a
// thousand connections, never waits on a state file's JSON and disk syncs (issue 39, the fair budget).
#pragma once

#include "push/state.hpp"
#include <icsbridge/files.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/persistence.hpp>

#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace icsbridge::push {

/**
 * @brief The file a target's state is saved to and its bytes, where a save is just that file's atomic write
 * (the state files under storage.dir; not cluster mode's row). errc::io_error when its directory cannot be
 * made.
 */
using StateFiles = std::function<Result<FileWrite>(std::string const& target, TargetState const& s)>;

/** @brief The state files under `storage_dir`, as state_write() makes them (what reconcile.hpp's state_file()
 * saves). */
StateFiles state_files(std::string storage_dir);

/**
 * @brief Saves push states behind the caller's back: a save is queued and returns at
 * once; the saver's thread writes each target's newest queued state with the inner save, or as a file of
 * a batch (each file written atomically: a kill leaves the old state or the new one). A target saved again
 * before its turn is written once, with the newer state. A load sees the queued or in-flight state before the
 * inner one, so nobody reads an older state than was saved. A failed write is logged ("push TARGET: ..."), as
 * reconcile did.
 *
 * Why a kill between a save and its write is safe: the state on disk is then an older one, as after a kill
 * within reconcile's one second between saves, and the next run goes on from it: its sync token lists
 * again what was written since (Google's and CalDAV's names come from the writer and the UID, Graph's ids
 * are found again in the listing), so the work is redone, never duplicated, and no calendar or item is
 * lost. Not for cluster mode, where another replica may take the lease and write the row in between.
 *
 * A slow disk (a thousand connections saving once a second each, ~150 synced files a second on this
 * project's test machine) would keep a copy of every run's state waiting in the queue: the saver says it
 * is busy (Persistence::busy) while 64 states wait, and a run then skips the saves it makes as it goes.
 */

class StateSaver {
  public:
    explicit StateSaver(Logger log);
    /** @brief Writes what is queued, then ends the thread; later saves are written on their caller's thread.
     */
    ~StateSaver();
    StateSaver(StateSaver const&) = delete;
    StateSaver& operator=(StateSaver const&) = delete;

    /**
     * @brief `inner`'s persistence of each target, its saves queued here (the saver may go first). With
     * `files` (the saves of `inner` are those files' atomic writes), a batch's files are written together
     * with one wait for the disk (write_files_atomically), so the queue empties in milliseconds, not in two
     * disk syncs per state; without it, each state is saved by `inner` in turn.
     */
    PersistenceFor<KeptState> keeping(PersistenceFor<KeptState> inner, StateFiles files = {}) const;

    /** @brief Waits until nothing is queued or being written (tests). */
    void flush() const;

  private:
    struct Queue;
    std::shared_ptr<Queue> queue_;
    std::thread thread_;
};

} // namespace icsbridge::push
