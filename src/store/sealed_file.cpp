// File: sealed_file.cpp
// SealedFile: snapshot bytes in a read-only mapped file only we hold (an unlinked O_TMPFILE in storage.dir,
// else a sealed memfd), so the server can sendfile() them; SnapshotFiles, which makes them; and
// SnapshotBody, which keeps a large calendar there instead of on the heap.
#include <icsbridge/files.hpp>
#include <icsbridge/store.hpp>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <limits>
#include <ostream>

namespace icsbridge {

namespace {

/// A sealed file never takes one of the last descriptors below the open-file limit: those are for snapshot
/// writes, upstream requests and the accept loop's 503 (server/listener.cpp keeps them free of connections
/// too). The body then stays on the heap, which serves the same bytes with a copy per request.
constexpr rlim_t spare_descriptors = 64;

/** @brief Whether descriptor `fd`, the lowest free one when it was made, leaves the spare ones free. */
bool leaves_spare(int fd) {
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
        return true;
    return static_cast<rlim_t>(fd) + spare_descriptors < lim.rlim_cur;
}

/** @brief Closes the descriptor unless it was handed on. */
struct FdOwner {
    int fd;
    explicit FdOwner(int f) noexcept
        : fd(f) {}
    FdOwner(FdOwner const&) = delete;
    FdOwner& operator=(FdOwner const&) = delete;
    ~FdOwner() {
        if (fd >= 0)
            ::close(fd);
    }
};

/** @brief Unmaps the mapping unless it was handed on. */
struct MapOwner {
    void* map;
    std::size_t size;
    MapOwner(void* m, std::size_t n) noexcept
        : map(m)
        , size(n) {}
    MapOwner(MapOwner const&) = delete;
    MapOwner& operator=(MapOwner const&) = delete;
    ~MapOwner() {
        if (map != nullptr)
            ::munmap(map, size);
    }
};

/** @brief The file's bytes mapped read-only (the pages the socket sends), owning `fd`; null on failure. */
std::shared_ptr<SealedFile const> map_file(FdOwner& fd, std::size_t size, bool shmem) {
    MapOwner map{nullptr, size};
    if (size != 0) {
        map.map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.fd, 0);
        if (map.map == MAP_FAILED) {
            map.map = nullptr;
            return nullptr;
        }
    }
    auto file = std::make_shared<SealedFile const>(fd.fd, map.map, size, shmem);
    fd.fd = -1; // the SealedFile owns them now
    map.map = nullptr;
    return file;
}

} // namespace

std::shared_ptr<SealedFile const> SealedFile::make(std::string_view bytes) {
    // Any failure (no memfd support, EMFILE, no memory) leaves the caller's bytes on the heap, served as
    // small bodies are: never an empty feed.
    FdOwner fd{::memfd_create("icsbridge-snapshot", MFD_CLOEXEC | MFD_ALLOW_SEALING)};
    if (fd.fd < 0 || !leaves_spare(fd.fd) || !write_all(fd.fd, bytes) ||
        ::fcntl(fd.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
        return nullptr;
    // Sealed against writes, so only a read-only shared mapping is allowed.
    return map_file(fd, bytes.size(), true);
}

SnapshotFiles::SnapshotFiles(std::string const& dir)
    : dir_(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {
    struct statfs fs {};
    dir_shmem_ = dir_ >= 0 && ::fstatfs(dir_, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

SnapshotFiles::~SnapshotFiles() {
    if (dir_ >= 0)
        ::close(dir_);
}

std::shared_ptr<SealedFile const> SnapshotFiles::make(std::string_view bytes) const {
    // An unlinked file on the storage disk: its page cache comes in large folios (ext4, xfs) where a memfd's
    // shmem is 4 KiB pages, which sendfile() pays for per page. O_EXCL: it can never be linked into the
    // directory, so no one but this process ever reaches it, and it is gone with its last descriptor. The
    // kernel may write its pages back to the disk's free space; nothing names them.
    if (dir_ >= 0) {
        FdOwner fd{::openat(dir_, ".", O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600)};
        if (fd.fd >= 0 && leaves_spare(fd.fd) && write_all(fd.fd, bytes))
            if (auto file = map_file(fd, bytes.size(), dir_shmem_))
                return file;
    }
    // No O_TMPFILE there (tmpfs without it, overlayfs, an old kernel: EOPNOTSUPP, EISDIR), no room, no
    // descriptor to spare: a memfd, else the caller keeps the heap.
    return SealedFile::make(bytes);
}

std::size_t SealedFile::sendfile_max() const noexcept {
    return shmem_ ? sendfile_max_shmem_bytes : std::numeric_limits<std::size_t>::max();
}

SealedFile::~SealedFile() {
    if (map_ != nullptr)
        ::munmap(const_cast<void*>(map_), size_);
    ::close(fd_);
}

SnapshotBody::SnapshotBody(std::string bytes, SnapshotFiles const* files) {
    if (bytes.size() >= sendfile_min_bytes)
        file_ = files != nullptr ? files->make(bytes) : SealedFile::make(bytes);
    if (!file_)
        heap_ = std::move(bytes); // small, or no file: the heap holds it (and the server gather-writes it)
}

std::ostream& operator<<(std::ostream& out, SnapshotBody const& body) {
    return out << body.view();
}

} // namespace icsbridge
