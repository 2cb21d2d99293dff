// File: gzip.hpp
// zlib deflate with the gzip wrapper, run once per snapshot (decoding: net/gzip_decode.hpp).
#pragma once

#include <string>
#include <string_view>

namespace icsbridge {

/** @brief gzip-compresses `data` (best compression: it is done once per snapshot, served many times). */
std::string gzip_compress(std::string_view data);

} // namespace icsbridge
