// File: gzip.hpp
// zlib deflate with the gzip wrapper, run once per snapshot.
#pragma once

#include <string>
#include <string_view>

namespace icsbridge {

/** @brief gzip-compresses `data` (best compression: it is done once per snapshot, served many times). */
std::string gzip_compress(std::string_view data);

/** @brief Inflates a gzip stream; empty on error (used by tests and the bench). */
std::string gzip_decompress(std::string_view data);

} // namespace icsbridge
