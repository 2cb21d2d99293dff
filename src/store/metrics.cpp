// File: metrics.cpp
// The request and upstream counters /metrics shows: lock-free for requests, one mutex for upstream timings.
#include "store/duration_bucket.hpp"
#include <icsbridge/store.hpp>

namespace icsbridge {

using store_detail::duration_bucket;

void UpstreamMetrics::set_budget_source(std::function<std::vector<BudgetGauge>()> source) {
    std::lock_guard lock(budget_mtx_);
    budget_source_ = std::move(source);
}

std::vector<BudgetGauge> UpstreamMetrics::budgets() const {
    // Called under the lock: once set_budget_source() returns, the source it replaced is in use nowhere,
    // so the pipeline it reads can go (a reload replaces both).
    std::lock_guard lock(budget_mtx_);
    return budget_source_ ? budget_source_() : std::vector<BudgetGauge>{};
}

void UpstreamMetrics::record(std::string_view source, unsigned status, std::chrono::duration<double> took) {
    std::string code = status >= 100 && status < 600 ? std::to_string(status / 100) + "xx" : "error";
    double s = took.count();
    std::lock_guard lock(mtx_);
    auto& h = series_[{std::string(source), std::move(code)}];
    ++h.counts[duration_bucket(s)];
    h.sum += s;
}

std::vector<UpstreamMetrics::Series> UpstreamMetrics::series() const {
    std::lock_guard lock(mtx_);
    std::vector<Series> out;
    for (auto const& [key, h] : series_)
        out.push_back(Series{key.first, key.second, h.counts, h.sum});
    return out;
}

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
