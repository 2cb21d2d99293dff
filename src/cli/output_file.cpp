// File: output_file.cpp
// write_output(): `export --output PATH` must never turn a device, a FIFO or a symlink into a plain file,
// nor widen who may read an existing file.
#include "cli/output_file.hpp"

#include <icsbridge/files.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace icsbridge::cli {

namespace {

Result<void> io_fail(std::string const& path, std::string const& why) {
    return fail(errc::io_error, "cannot write " + path + ": " + why);
}

/** @brief Writes into what is already at `path` (a device or FIFO): open it, never create or truncate. */
Result<void> write_through(std::string const& path, std::string_view data) {
    // O_NOCTTY: writing to a terminal device must not make it our controlling terminal.
    int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return io_fail(path, std::strerror(errno));
    bool ok = write_all(fd, data);
    int saved = errno;
    if (::close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok)
        return io_fail(path, std::strerror(saved));
    return {};
}

} // namespace

Result<void> write_output(std::string const& path, std::string_view data, bool secret) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno != ENOENT)
            return io_fail(path, std::strerror(errno));
        return write_file_atomically(path, data, secret ? 0600u : 0666u);
    }
    if (S_ISREG(st.st_mode))
        return write_file_atomically(path, data, st);
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return write_through(path, data);
    // Replacing a symlink would cut it; following it would write wherever it points, perhaps a file the
    // user did not mean. Ask for the real path instead.
    if (S_ISLNK(st.st_mode))
        return io_fail(path, "it is a symbolic link; give the file it points to as --output");
    if (S_ISDIR(st.st_mode))
        return io_fail(path, "it is a directory; give a file name as --output");
    return io_fail(path, "it is not a regular file, character device or FIFO; refusing to replace it");
}

} // namespace icsbridge::cli
