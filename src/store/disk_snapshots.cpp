// File: disk_snapshots.cpp
// The snapshot backend of a single box: one file per feed under storage.dir.
#include <icsbridge/store.hpp>

#include <filesystem>

namespace icsbridge {

DiskSnapshots::DiskSnapshots(std::string dir, std::shared_ptr<SnapshotFiles const> files)
    : dir_(std::move(dir))
    , files_(files ? std::move(files) : std::make_shared<SnapshotFiles const>(dir_)) {}

Result<void> DiskSnapshots::save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) {
    return save_snapshot(dir_, feed, snap, fetched_at);
}

Result<std::shared_ptr<Snapshot const>> DiskSnapshots::load(std::string const& feed, bool gzip) {
    // A missing file is normal on first start: no snapshot, not an error.
    std::error_code ec;
    if (!std::filesystem::exists(dir_ + "/" + feed + ".snapshot", ec))
        return std::shared_ptr<Snapshot const>();
    return load_snapshot(dir_, feed, gzip, files_.get());
}

} // namespace icsbridge
