// File: upstream_metrics.cpp
// The upstream request histogram and the call budgets their owners push, as /metrics shows them (one
// mutex each).
#include <icsbridge/net.hpp>

#include <algorithm>

namespace icsbridge {

std::size_t BudgetState::used(clock::time_point now) const {
    // The calls that left the window are the oldest ones (RateBudget drops them from the front likewise).
    auto first = calls.begin();
    while (first != calls.end() && *first + period <= now)
        ++first;
    auto const ours = static_cast<std::size_t>(calls.end() - first);
    // The cluster's count as of our last call, while that count's window still overlaps this one.
    if (shared_seen && *shared_seen + period > now)
        return std::max(ours, std::min(shared_used, limit));
    return ours;
}

BudgetGauge BudgetState::gauge(std::string source, clock::time_point now) const {
    auto const u = used(now);
    auto wait = std::chrono::seconds(0);
    if (waiting_until && *waiting_until > now)
        wait = std::chrono::ceil<std::chrono::seconds>(*waiting_until - now);
    return BudgetGauge{
        .source = std::move(source),
        .limit = limit,
        .period_seconds = static_cast<long long>(period.count()),
        .used = u,
        .left = u >= limit ? 0 : limit - u,
        .waiting_seconds = static_cast<long long>(wait.count()),
    };
}

void UpstreamMetrics::set_budget(std::string const& source, BudgetState state) {
    std::lock_guard lock(budget_mtx_);
    budgets_.insert_or_assign(source, std::move(state));
}

void UpstreamMetrics::keep_budgets(std::vector<std::string> const& sources) {
    std::lock_guard lock(budget_mtx_);
    std::erase_if(budgets_, [&](auto const& b) {
        return std::find(sources.begin(), sources.end(), b.first) == sources.end();
    });
}

std::vector<BudgetGauge> UpstreamMetrics::budgets(BudgetState::clock::time_point now) const {
    std::lock_guard lock(budget_mtx_);
    std::vector<BudgetGauge> out;
    out.reserve(budgets_.size());
    for (auto const& [source, state] : budgets_)
        out.push_back(state.gauge(source, now));
    return out;
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
