// File: gzip.hpp
// zlib deflate with the gzip wrapper, run once per snapshot (decoding: net/gzip_decode.hpp).
#pragma once

#include <string>
#include <string_view>

namespace icsbridge {

/**
 * @brief gzip-compresses `data`. The default is the best compression: a snapshot is compressed once and
 * served many times. Something compressed per response wants a fast level (web servers use 1).
 */
std::string gzip_compress(std::string_view data, int level = 9);

} // namespace icsbridge
