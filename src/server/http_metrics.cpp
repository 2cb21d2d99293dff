// File: http_metrics.cpp
// The request and webhook counters /metrics shows: lock-free, counted on the hot path.
#include <icsbridge/server.hpp>

namespace icsbridge {

std::size_t HttpMetrics::status_index(unsigned status) noexcept {
    for (std::size_t i = 0; i + 1 < counted_statuses.size(); ++i)
        if (counted_statuses[i] == status)
            return i;
    return counted_statuses.size() - 1;
}

void HttpMetrics::count(Route r, unsigned status) noexcept {
    counts_[static_cast<std::size_t>(r)][status_index(status)].fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t HttpMetrics::get(Route r, unsigned status) const noexcept {
    return counts_[static_cast<std::size_t>(r)][status_index(status)].load(std::memory_order_relaxed);
}

void HttpMetrics::count_hook(HookOutcome o) noexcept {
    hooks_[static_cast<std::size_t>(o)].fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t HttpMetrics::hooks(HookOutcome o) const noexcept {
    return hooks_[static_cast<std::size_t>(o)].load(std::memory_order_relaxed);
}

} // namespace icsbridge
