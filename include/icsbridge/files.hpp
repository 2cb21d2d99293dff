// File: files.hpp
// Atomic file replacement: the only way icsbridge writes a feed or a snapshot to disk.
#pragma once

#include <icsbridge/error.hpp>

#include <sys/stat.h>

#include <string>
#include <string_view>
#include <vector>

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

/** @brief One file of a batch for write_files_atomically(). */
struct FileWrite {
    std::string path;
    std::string data;
    unsigned mode = 0644; ///< the new file's permission bits (before the umask)
};

/**
 * @brief Replaces each file as write_file_atomically() does, with one wait for the disk for them all
 * instead of two per file: every temp file is written, then all are synced, then each is renamed over its
 * path, then each directory is synced once. A file is renamed only once its data is durable, so a crash
 * leaves each old or new. One result per file, in order. Every temp file stays open until the batch is
 * synced: callers bound the batch (push::StateSaver writes 32 at a time).
 */
std::vector<Result<void>> write_files_atomically(std::vector<FileWrite> const& files);

/** @brief Writes all of `data` to `fd`, retrying short writes and EINTR; false (errno set) on failure. */
bool write_all(int fd, std::string_view data);

/** @brief Reads a whole file; errc::io_error with the path and the reason. */
Result<std::string> read_file(std::string const& path);

} // namespace icsbridge
