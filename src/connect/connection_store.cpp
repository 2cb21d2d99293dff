// File: connection_store.cpp
// The disk ConnectionStore: one JSON file per connection, written by write_file_atomically (a kill at any
// moment leaves the old record or the new one), one mutex around every call, claims in memory.
#include "connect/connection_store.hpp"

#include <icsbridge/files.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

namespace icsbridge::connect {

namespace {

namespace fs = std::filesystem;
using std::chrono::sys_seconds;

sys_seconds now_seconds() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

/** Single-use nonces in memory, by hash, each until its expiry: pruned on every claim (cheap: by expiry). */
class Claims {
  public:
    bool claim(std::string const& nonce, sys_seconds expires) {
        auto const now = now_seconds();
        while (!by_expiry_.empty() && by_expiry_.begin()->first < now) {
            keys_.erase(by_expiry_.begin()->second);
            by_expiry_.erase(by_expiry_.begin());
        }
        if (expires <= now)
            return false;
        auto key = connection_hash(nonce);
        if (!keys_.insert(key).second)
            return false;
        by_expiry_.emplace(expires, std::move(key));
        return true;
    }

  private:
    std::set<std::string> keys_;
    std::multimap<sys_seconds, std::string> by_expiry_;
};

class DiskConnections final : public ConnectionStore {
  public:
    DiskConnections(std::string storage_dir, Logger log)
        : dir_(std::move(storage_dir) + "/connections")
        , log_(std::move(log)) {}

    Result<std::vector<Connection>> list() override;
    Result<std::optional<Connection>> get(std::string const& id) override;
    Result<void> put(Connection const& c) override;
    Result<bool> put_status(Connection const& c) override;
    Result<bool> remove(std::string const& id) override;
    Result<bool> claim(std::string const& nonce, sys_seconds expires) override {
        std::lock_guard lock(mtx_);
        return claims_.claim(nonce, expires);
    }
    Result<std::uint64_t> generation() override {
        std::lock_guard lock(mtx_);
        return generation_;
    }

  private:
    std::string path(std::string const& id) const { return dir_ + "/" + id + ".json"; }
    Result<std::optional<Connection>> load(std::string const& id) const;
    Result<void> write(Connection const& c);
    void sync_dir() const;

    std::string const dir_;
    Logger const log_;
    std::mutex mtx_;
    std::uint64_t generation_ = 1;
    Claims claims_;
    std::set<std::string> warned_; ///< corrupt files already reported: one warning each, not one per list()
};

Result<std::optional<Connection>> DiskConnections::load(std::string const& id) const {
    auto const file = path(id);
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0) {
        if (errno == ENOENT)
            return std::optional<Connection>{};
        return fail(errc::io_error, "cannot read " + file + ": " + std::strerror(errno));
    }
    auto text = read_file(file);
    if (!text)
        return text.error();
    auto c = connection_from_json(*text);
    if (!c)
        return fail(errc::io_error, file + ": " + c.error().message);
    if (c->id != id)
        return fail(errc::io_error, file + ": the connection record is malformed: id is not its file name");
    return std::optional<Connection>{std::move(*c)};
}

Result<void> DiskConnections::write(Connection const& c) {
    std::error_code ec;
    if (!fs::is_directory(dir_, ec)) {
        fs::create_directories(dir_, ec);
        if (ec)
            return fail(errc::io_error, "cannot create " + dir_ + ": " + ec.message());
        // Only its owner may list whose calendars are connected.
        ::chmod(dir_.c_str(), 0700);
    }
    return write_file_atomically(path(c.id), to_json(c), 0600);
}

void DiskConnections::sync_dir() const {
    // Persist an unlink as write_file_atomically persists a rename; a failure only risks a resurrection.
    int const fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)::fsync(fd);
        ::close(fd);
    }
}

Result<std::vector<Connection>> DiskConnections::list() {
    std::lock_guard lock(mtx_);
    std::vector<Connection> out;
    std::error_code ec;
    if (!fs::exists(dir_, ec))
        return out;
    fs::directory_iterator it(dir_, ec);
    if (ec)
        return fail(errc::io_error, "cannot list " + dir_ + ": " + ec.message());
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        auto const name = it->path().filename().string();
        // Skips write_file_atomically's temp files (".ID.json.tmp-N") and anything not ours.
        if (!name.ends_with(".json") || !valid_connection_id(name.substr(0, name.size() - 5)))
            continue;
        auto const id = name.substr(0, name.size() - 5);
        auto c = load(id);
        if (!c) {
            if (warned_.insert(id).second)
                log_.warn("connections: " + c.error().message + "; left out until it is repaired or removed");
            continue;
        }
        warned_.erase(id);
        if (*c)
            out.push_back(std::move(**c));
    }
    if (ec)
        return fail(errc::io_error, "cannot list " + dir_ + ": " + ec.message());
    return out;
}

Result<std::optional<Connection>> DiskConnections::get(std::string const& id) {
    if (!valid_connection_id(id))
        return std::optional<Connection>{};
    std::lock_guard lock(mtx_);
    return load(id);
}

Result<void> DiskConnections::put(Connection const& c) {
    if (!valid_connection_id(c.id))
        return fail(errc::io_error, "cannot keep a connection: its id is not 22 base64url characters");
    std::lock_guard lock(mtx_);
    auto ok = write(c);
    // Even a failed write may have replaced the file (the directory's fsync failed): re-list to be sure.
    ++generation_;
    if (ok)
        warned_.erase(c.id);
    return ok;
}

Result<bool> DiskConnections::put_status(Connection const& c) {
    if (!valid_connection_id(c.id))
        return false;
    std::lock_guard lock(mtx_);
    auto kept = load(c.id);
    if (!kept)
        return kept.error();
    if (!*kept)
        return false;
    copy_status(c, **kept);
    if (auto ok = write(**kept); !ok)
        return ok.error();
    return true;
}

Result<bool> DiskConnections::remove(std::string const& id) {
    if (!valid_connection_id(id))
        return false;
    std::lock_guard lock(mtx_);
    auto const file = path(id);
    if (::unlink(file.c_str()) != 0) {
        if (errno == ENOENT)
            return false;
        return fail(errc::io_error, "cannot remove " + file + ": " + std::strerror(errno));
    }
    sync_dir();
    ++generation_;
    warned_.erase(id);
    return true;
}

} // namespace

std::unique_ptr<ConnectionStore> disk_connections(std::string storage_dir, Logger log) {
    return std::make_unique<DiskConnections>(std::move(storage_dir), std::move(log));
}

} // namespace icsbridge::connect
