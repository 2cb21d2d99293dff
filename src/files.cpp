// File: files.cpp
// Atomic replace (temp + fsync + rename + directory fsync), of one file or a batch, and whole-file reads.
#include <icsbridge/files.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <span>

namespace icsbridge {

namespace {

std::string errno_text(int e) {
    return std::strerror(e);
}

} // namespace

bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

namespace {

namespace fs = std::filesystem;

/** @brief One file to replace; `adjust(fd, like)` runs on its temp file before the data is written (to set an
 * exact mode or owner) and returns errno, or 0. */
struct Replacement {
    std::string const& path;
    std::string_view data;
    unsigned mode;
    int (*adjust)(int fd, struct stat const* like) = nullptr;
    struct stat const* like = nullptr;
};

/** @brief A temp file written beside its target, not yet durable nor in place. */
struct Temp {
    std::string name;
    int fd = -1;
};

fs::path dir_of(std::string const& path) {
    fs::path target(path);
    return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

/** @brief Opens a temp file beside `r.path` (so rename() stays within one file system, and so is atomic) and
 * writes `r.data` into it; on failure nothing is left behind. */
Result<Temp> write_temp(Replacement const& r) {
    fs::path const target(r.path);
    std::random_device rd;
    Temp t;
    t.name = (dir_of(r.path) / ("." + target.filename().string() + ".tmp-" + std::to_string(rd()))).string();
    t.fd = ::open(t.name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(r.mode));
    if (t.fd < 0)
        return fail(errc::io_error, "cannot write " + r.path + ": " + errno_text(errno));
    int saved = r.adjust ? r.adjust(t.fd, r.like) : 0;
    if (saved == 0 && !write_all(t.fd, r.data))
        saved = errno;
    if (saved != 0) {
        ::close(t.fd);
        ::unlink(t.name.c_str());
        return fail(errc::io_error, "cannot write " + r.path + ": " + errno_text(saved));
    }
    return t;
}

/**
 * @brief Replaces each of `batch` atomically, with one wait for the disk for them all where one file alone
 * needs two: every temp file is written first, then all are synced (their writeback started together, so
 * the fsyncs after the first mostly find their data already on the disk and their journal committed),
 * then each is renamed over its target, then each directory is synced once. A file is renamed only after
 * its data is durable: a crash leaves each target old or new, never empty. One result per file, in order.
 */
std::vector<Result<void>> replace_atomically(std::span<Replacement const> batch) {
    std::vector<Result<void>> results(batch.size());
    std::vector<Temp> temps(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        auto t = write_temp(batch[i]);
        if (t)
            temps[i] = std::move(*t);
        else
            results[i] = t.error();
    }
    for (auto const& t : temps)
        if (t.fd >= 0)
            ::sync_file_range(t.fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    for (std::size_t i = 0; i < batch.size(); ++i) {
        auto& t = temps[i];
        if (t.fd < 0)
            continue;
        // fsync before rename: otherwise a crash can leave a renamed but empty file.
        int const saved = ::fsync(t.fd) == 0 ? 0 : errno;
        ::close(t.fd);
        t.fd = -1;
        if (saved != 0) {
            ::unlink(t.name.c_str());
            t.name.clear();
            results[i] = fail(errc::io_error, "cannot write " + batch[i].path + ": " + errno_text(saved));
        }
    }
    std::set<fs::path> dirs;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        auto const& t = temps[i];
        if (!results[i] || t.name.empty())
            continue;
        if (::rename(t.name.c_str(), batch[i].path.c_str()) != 0) {
            int const saved = errno;
            ::unlink(t.name.c_str());
            results[i] = fail(errc::io_error, "cannot replace " + batch[i].path + ": " + errno_text(saved));
            continue;
        }
        dirs.insert(dir_of(batch[i].path));
    }
    // Persist the renames themselves.
    for (auto const& dir : dirs) {
        int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            ::fsync(dfd);
            ::close(dfd);
        }
    }
    return results;
}

/** @brief Gives the temp file `like`'s permission bits exactly (the umask applied at open()) and, where we
 * may, its owner and group: replacing a file must not widen who can read it. */
int copy_mode_and_owner(int fd, struct stat const* like) {
    // chown first: it may clear set-id bits, which fchmod then restores.
    if (::fchown(fd, like->st_uid, like->st_gid) != 0 && errno != EPERM)
        return errno;
    if (::fchmod(fd, like->st_mode & 07777) != 0)
        return errno;
    return 0;
}

} // namespace

Result<void> write_file_atomically(std::string const& path, std::string_view data, unsigned mode) {
    Replacement const one{path, data, mode};
    return replace_atomically({&one, 1}).front();
}

Result<void> write_file_atomically(std::string const& path, std::string_view data, struct stat const& like) {
    // Created owner-only; the old file's mode is set before a byte of data is in it.
    Replacement const one{path, data, 0600, &copy_mode_and_owner, &like};
    return replace_atomically({&one, 1}).front();
}

std::vector<Result<void>> write_files_atomically(std::vector<FileWrite> const& files) {
    std::vector<Replacement> batch;
    batch.reserve(files.size());
    for (auto const& f : files)
        batch.push_back(Replacement{f.path, f.data, f.mode});
    return replace_atomically(batch);
}

Result<std::string> read_file(std::string const& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(errc::io_error, "cannot read " + path + ": " + errno_text(errno));
    std::string out;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int saved = errno;
            ::close(fd);
            return fail(errc::io_error, "cannot read " + path + ": " + errno_text(saved));
        }
        if (n == 0)
            break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

} // namespace icsbridge
