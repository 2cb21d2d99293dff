// File: output_file.hpp
// Where `export --output PATH` writes: what is at PATH decides how (atomic replace, write-through, refuse).
#pragma once

#include <icsbridge/error.hpp>

#include <string>
#include <string_view>

namespace icsbridge::cli {

/**
 * @brief Writes an exported calendar to `path`.
 * - nothing there: a new file, atomically; mode 0600 when `secret` (a token feed's calendar), else
 *   0666 less the umask;
 * - a regular file: replaced atomically, keeping its mode exactly and its owner where allowed;
 * - a character device or FIFO (`/dev/stdout`, `/dev/null`, a pipe): written through, never replaced;
 * - a symbolic link, directory, block device or socket: refused with errc::io_error saying why.
 */
Result<void> write_output(std::string const& path, std::string_view data, bool secret);

} // namespace icsbridge::cli
