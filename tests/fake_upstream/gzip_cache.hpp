// File: gzip_cache.hpp
// The fake upstream's gzip of large answers, kept: a benchmark asks for the same multi-megabyte page again
// and again, and compressing it each time would make the fake, not the client, what it measures.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <string>

namespace icsbridge::test::fake {

/** @brief gzip (level 1, what web servers use on the fly) of bodies, the large ones remembered. Thread-safe.
 */
class GzipCache {
  public:
    /** @brief `body` gzipped; from the cache when this very body was compressed before. */
    std::string compress(std::string const& body);

  private:
    struct Entry {
        std::size_t hash;
        std::string body, gz;
    };
    static constexpr std::size_t min_size = 64 * 1024;          // smaller bodies compress in no time
    static constexpr std::size_t max_total = 128 * 1024 * 1024; // bodies and their gzip, oldest out first
    std::mutex mtx_;
    std::deque<Entry> entries_;
    std::size_t total_ = 0;
};

} // namespace icsbridge::test::fake
