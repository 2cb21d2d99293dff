// File: gzip_decode.cpp
// zlib inflate with gzip framing (16 + MAX_WBITS) and an output cap.
#include "net/gzip_decode.hpp"

#include <zlib.h>

#include <array>
#include <memory>

namespace icsbridge::net_detail {

namespace {

struct InflateStream {
    z_stream z{};
    bool live = false;
    InflateStream() { live = inflateInit2(&z, 16 + MAX_WBITS) == Z_OK; }
    ~InflateStream() {
        if (live)
            inflateEnd(&z);
    }
    InflateStream(InflateStream const&) = delete;
    InflateStream& operator=(InflateStream const&) = delete;
};

} // namespace

GunzipResult gunzip(std::string_view in, std::size_t max_out) {
    GunzipResult res;
    InflateStream s;
    if (!s.live)
        return {GunzipStatus::corrupt, {}, "zlib could not be initialised"};
    s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    s.z.avail_in = static_cast<uInt>(in.size());
    std::array<char, 16384> chunk{};
    for (;;) {
        s.z.next_out = reinterpret_cast<Bytef*>(chunk.data());
        s.z.avail_out = static_cast<uInt>(chunk.size());
        int rc = inflate(&s.z, Z_NO_FLUSH);
        std::size_t produced = chunk.size() - s.z.avail_out;
        if (res.data.size() + produced > max_out)
            return {GunzipStatus::too_large, {}, {}};
        res.data.append(chunk.data(), produced);
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members are legal (RFC 1952 2.2): continue with the next one.
            if (s.z.avail_in == 0)
                return res;
            if (inflateReset(&s.z) != Z_OK)
                return {GunzipStatus::corrupt, {}, "zlib reset failed"};
            continue;
        }
        if (rc == Z_BUF_ERROR && s.z.avail_in == 0 && produced == 0)
            return {GunzipStatus::corrupt, {}, "truncated gzip data"};
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return {GunzipStatus::corrupt, {}, s.z.msg ? s.z.msg : "invalid gzip data"};
    }
}

} // namespace icsbridge::net_detail
