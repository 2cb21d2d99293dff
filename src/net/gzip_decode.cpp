// File: gzip_decode.cpp
// zlib inflate with gzip framing (16 + MAX_WBITS) and an output cap.
#include "net/gzip_decode.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <limits>

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

// The size the data will have, from the gzip trailer (ISIZE: the last member's length mod 2^32), within
// max_out; a plausible guess when the trailer is missing or absurd. Output storage of that size up front
// means no buffer growing (and copying, and faulting in new pages) while inflating.
std::size_t size_hint(std::string_view in, std::size_t cap) {
    std::size_t guess = in.size() * 4;
    if (in.size() >= 18) {
        auto const* t = reinterpret_cast<unsigned char const*>(in.data() + in.size() - 4);
        std::size_t const isize = t[0] | (t[1] << 8U) | (t[2] << 16U) | (std::size_t{t[3]} << 24U);
        if (isize >= in.size() / 2)
            guess = isize;
    }
    return std::min(std::max<std::size_t>(guess, 4096), cap);
}

} // namespace

GunzipResult gunzip(std::string_view in, std::size_t max_out) {
    GunzipResult res;
    InflateStream s;
    if (!s.live)
        return {GunzipStatus::corrupt, {}, "zlib could not be initialised"};
    s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    s.z.avail_in = static_cast<uInt>(in.size());
    // One byte past the limit is room enough to tell "exactly max_out" from "more" (saturated: no limit).
    std::size_t const cap = max_out < std::numeric_limits<std::size_t>::max() ? max_out + 1 : max_out;
    auto& out = res.data;
    out.resize(size_hint(in, cap));
    std::size_t used = 0;
    for (;;) {
        if (used == out.size()) {
            if (out.size() >= cap)
                return {GunzipStatus::too_large, {}, {}};
            out.resize(std::min(std::max<std::size_t>(out.size() * 2, 4096), cap));
        }
        s.z.next_out = reinterpret_cast<Bytef*>(out.data() + used);
        s.z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - used, 1U << 30U));
        auto const room = s.z.avail_out;
        int rc = inflate(&s.z, Z_NO_FLUSH);
        std::size_t const produced = room - s.z.avail_out;
        used += produced;
        if (used > max_out)
            return {GunzipStatus::too_large, {}, {}};
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members are legal (RFC 1952 2.2): continue with the next one.
            if (s.z.avail_in == 0) {
                out.resize(used);
                return res;
            }
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
