// File: upstream_metrics.cpp
// The upstream request histogram and call-budget gauges /metrics shows (one mutex each).
#include <icsbridge/net.hpp>

namespace icsbridge {

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

void UpstreamMetrics::record_hook_work(std::string_view source, std::string_view kind) {
    std::lock_guard lock(mtx_);
    ++hook_work_[{std::string(source), std::string(kind)}];
}

std::map<std::pair<std::string, std::string>, std::uint64_t> UpstreamMetrics::hook_work() const {
    std::lock_guard lock(mtx_);
    return hook_work_;
}

std::vector<UpstreamMetrics::Series> UpstreamMetrics::series() const {
    std::lock_guard lock(mtx_);
    std::vector<Series> out;
    for (auto const& [key, h] : series_)
        out.push_back(Series{key.first, key.second, h.counts, h.sum});
    return out;
}

} // namespace icsbridge
