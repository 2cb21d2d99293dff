// File: files.cpp
// Atomic replace (temp + fsync + rename + directory fsync) and whole-file reads.
#include <icsbridge/files.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

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

/**
 * @brief The temp + fsync + rename sequence; `adjust(fd)` runs on the temp file before its data is written
 * (to set an exact mode or owner) and returns errno, or 0.
 */
Result<void> replace_atomically(
    std::string const& path,
    std::string_view data,
    unsigned mode,
    int (*adjust)(int fd, struct stat const* like),
    struct stat const* like
) {
    namespace fs = std::filesystem;
    fs::path target(path);
    fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    // The temp file sits beside the target so rename() stays within one file system (and so is atomic).
    std::random_device rd;
    std::string tmp = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(rd()))).string();
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd < 0)
        return fail(errc::io_error, "cannot write " + path + ": " + errno_text(errno));
    int saved = adjust ? adjust(fd, like) : 0;
    bool ok = saved == 0 && write_all(fd, data);
    if (saved == 0 && !ok)
        saved = errno;
    // fsync before rename: otherwise a crash can leave a renamed but empty file.
    if (ok && ::fsync(fd) != 0) {
        ok = false;
        saved = errno;
    }
    ::close(fd);
    if (!ok) {
        ::unlink(tmp.c_str());
        return fail(errc::io_error, "cannot write " + path + ": " + errno_text(saved));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        saved = errno;
        ::unlink(tmp.c_str());
        return fail(errc::io_error, "cannot replace " + path + ": " + errno_text(saved));
    }
    // Persist the rename itself.
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    return {};
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
    return replace_atomically(path, data, mode, nullptr, nullptr);
}

Result<void> write_file_atomically(std::string const& path, std::string_view data, struct stat const& like) {
    // Created owner-only; the old file's mode is set before a byte of data is in it.
    return replace_atomically(path, data, 0600, &copy_mode_and_owner, &like);
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
