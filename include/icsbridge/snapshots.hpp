// File: snapshots.hpp
// Where each feed's last good snapshot is kept between runs: the seam between the store (which serves
// snapshots) and their keeping. Today's implementation is files under storage.dir; cluster mode puts a
// second one on PostgreSQL.
#pragma once

#include <icsbridge/error.hpp>
#include <icsbridge/store.hpp>

#include <memory>
#include <string>

namespace icsbridge {

class SnapshotBackend {
  public:
    virtual ~SnapshotBackend() = default;

    /**
     * @brief Keeps `snap` as the feed's last good snapshot, whole or not at all (a crash never leaves
     * half of one). `fetched_at`: the latest fetch that gave these bytes (a restart reports it as the
     * feed's last success).
     */
    virtual Result<void> save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) = 0;

    /**
     * @brief The feed's kept snapshot: nullptr when there is none, errc::snapshot_corrupt when it does not
     * check out (never served), errc::io_error when it cannot be read. `gzip`: also build the gzip body.
     */
    virtual Result<std::shared_ptr<Snapshot const>> load(std::string const& feed, bool gzip) = 0;

    /** @brief Where snapshots are kept, for log lines ("storage.dir /var/lib/icsbridge"). */
    virtual std::string where() const = 0;
};

/** @brief DIR/NAME.snapshot files (save_snapshot / load_snapshot). */
class DiskSnapshots final : public SnapshotBackend {
  public:
    explicit DiskSnapshots(std::string dir)
        : dir_(std::move(dir)) {}
    Result<void> save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) override;
    Result<std::shared_ptr<Snapshot const>> load(std::string const& feed, bool gzip) override;
    std::string where() const override { return "storage.dir " + dir_; }
    std::string const& dir() const { return dir_; }

  private:
    std::string dir_;
};

} // namespace icsbridge
