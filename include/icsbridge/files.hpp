// File: files.hpp
// Atomic file replacement: the only way icsbridge writes a feed or a snapshot to disk.
#pragma once

#include <icsbridge/error.hpp>

#include <sys/stat.h>

#include <string>
#include <string_view>

namespace icsbridge {

/**
 * @brief Writes `data` to a temp file beside `path`, fsyncs it, renames it over `path` and fsyncs the
 * directory. On any failure the old file is untouched and the temp file removed. errc::io_error.
 * `mode` is the new file's permission bits (before the umask).
 */
Result<void> write_file_atomically(std::string const& path, std::string_view data, unsigned mode = 0644);

/**
 * @brief The same, for replacing the regular file `like` describes (lstat() of `path`): the new file gets
 * its permission bits exactly (whatever the umask) and its owner and group where the process may set them.
 */
Result<void> write_file_atomically(std::string const& path, std::string_view data, struct stat const& like);

/** @brief Writes all of `data` to `fd`, retrying short writes and EINTR; false (errno set) on failure. */
bool write_all(int fd, std::string_view data);

/** @brief Reads a whole file; errc::io_error with the path and the reason. */
Result<std::string> read_file(std::string const& path);

} // namespace icsbridge
