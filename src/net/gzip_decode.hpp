// File: gzip_decode.hpp
// Bounded gunzip of upstream response bodies (zlib), so a small compressed body cannot expand without limit.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace icsbridge::net_detail {

enum class GunzipStatus { ok, too_large, corrupt };

struct GunzipResult {
    GunzipStatus status = GunzipStatus::ok;
    std::string data;   ///< the decoded bytes when ok
    std::string detail; ///< zlib's reason when corrupt
};

/** @brief Decodes a gzip stream (one or more members); stops with too_large past `max_out` bytes. */
GunzipResult gunzip(std::string_view in, std::size_t max_out);

} // namespace icsbridge::net_detail
