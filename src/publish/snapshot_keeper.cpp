// File: snapshot_keeper.cpp
// SnapshotKeeper: one thread that writes snapshots to the backend (disk files, or the database row and its
// disk cache), newest per feed, so neither a refresh nor a request ever waits for a disk or a database.
#include <icsbridge/publish.hpp>

namespace icsbridge {

SnapshotKeeper::SnapshotKeeper(std::shared_ptr<SnapshotBackend> backend, Logger log)
    : backend_(std::move(backend))
    , log_(std::move(log))
    , worker_([this] { run(); }) {}

SnapshotKeeper::~SnapshotKeeper() {
    {
        std::lock_guard lock(mtx_);
        stopping_ = true;
    }
    wake_.notify_all();
    worker_.join();
}

void SnapshotKeeper::keep(
    std::string const& feed, std::shared_ptr<Snapshot const> snap, sys_seconds fetched_at
) {
    {
        std::lock_guard lock(mtx_);
        // A newer snapshot of the same feed replaces one not yet written: writing both would only put the
        // older one on disk (or in the database) for a moment, or, written out of order, for good.
        queue_.insert_or_assign(feed, Pending{std::move(snap), fetched_at});
    }
    wake_.notify_one();
}

void SnapshotKeeper::flush() {
    std::unique_lock lock(mtx_);
    idle_.wait(lock, [this] { return queue_.empty() && !writing_; });
}

std::size_t SnapshotKeeper::pending() const {
    std::lock_guard lock(mtx_);
    return queue_.size() + (writing_ ? 1 : 0);
}

void SnapshotKeeper::run() {
    std::unique_lock lock(mtx_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        // Stopping still writes what is queued: a snapshot published before SIGTERM is there after restart.
        if (queue_.empty() && stopping_)
            return;
        auto node = queue_.extract(queue_.begin());
        writing_ = true;
        lock.unlock();
        auto const& feed = node.key();
        auto const& job = node.mapped();
        if (auto saved = backend_->save(feed, *job.snap, job.fetched_at); !saved)
            log_.warn("feed " + feed + ": cannot save snapshot: " + saved.error().message);
        lock.lock();
        writing_ = false;
        if (queue_.empty())
            idle_.notify_all();
    }
}

} // namespace icsbridge
