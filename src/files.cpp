// File: files.cpp
// Atomic replace (temp + fsync + rename + directory fsync) and whole-file reads.
#include <icsbridge/files.hpp>

#include <fcntl.h>
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

Result<void> write_file_atomically(std::string const& path, std::string_view data, unsigned mode) {
    namespace fs = std::filesystem;
    fs::path target(path);
    fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    // The temp file sits beside the target so rename() stays within one file system (and so is atomic).
    std::random_device rd;
    std::string tmp = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(rd()))).string();
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd < 0)
        return fail(errc::io_error, "cannot write " + path + ": " + errno_text(errno));
    bool ok = write_all(fd, data);
    int saved = errno;
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
