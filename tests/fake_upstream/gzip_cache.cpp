// File: gzip_cache.cpp
// GzipCache: compress once per distinct large body (compared whole, not by hash alone).
#include "fake_upstream/gzip_cache.hpp"

#include "store/gzip.hpp"

#include <functional>

namespace icsbridge::test::fake {

std::string GzipCache::compress(std::string const& body) {
    if (body.size() < min_size)
        return gzip_compress(body, 1);
    auto const hash = std::hash<std::string>{}(body);
    {
        std::lock_guard lock(mtx_);
        for (auto const& e : entries_)
            if (e.hash == hash && e.body == body)
                return e.gz;
    }
    auto gz = gzip_compress(body, 1);
    std::lock_guard lock(mtx_);
    total_ += body.size() + gz.size();
    entries_.push_back(Entry{hash, body, gz});
    while (total_ > max_total && entries_.size() > 1) {
        total_ -= entries_.front().body.size() + entries_.front().gz.size();
        entries_.pop_front();
    }
    return gz;
}

} // namespace icsbridge::test::fake
