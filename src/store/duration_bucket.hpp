// File: duration_bucket.hpp
// The histogram bucket of a duration, shared by the feed and upstream histograms.
#pragma once

#include <icsbridge/store.hpp>

#include <cstddef>

namespace icsbridge::store_detail {

/** @brief The first bucket whose upper bound holds `seconds`, else the last (+Inf). */
inline std::size_t duration_bucket(double seconds) {
    std::size_t i = 0;
    while (i < duration_buckets.size() && seconds > duration_buckets[i])
        ++i;
    return i;
}

} // namespace icsbridge::store_detail
