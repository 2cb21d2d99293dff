// File: rate_budget.cpp
// RateBudget: a sliding window of call start times per source.
#include "sources/rate_budget.hpp"

#include <algorithm>
#include <charconv>

namespace icsbridge {

namespace {

std::optional<std::size_t> number_at(std::string_view s, std::size_t pos) {
    std::size_t value = 0;
    auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), value);
    if (ec != std::errc() || end == s.data() + pos)
        return std::nullopt;
    return value;
}

} // namespace

void RateBudget::expire(clock::time_point now) {
    while (!calls_.empty() && calls_.front() + spec_.period <= now)
        calls_.pop_front();
}

RateBudget::clock::duration RateBudget::try_take(clock::time_point now) {
    std::lock_guard lock(mtx_);
    expire(now);
    if (calls_.size() < spec_.calls) {
        calls_.push_back(now);
        waiting_until_.reset();
        return clock::duration::zero();
    }
    // The window is full: the next slot opens when its oldest call leaves it (never a zero wait).
    auto const opens = calls_.front() + spec_.period;
    waiting_until_ = opens;
    return std::max<clock::duration>(opens - now, std::chrono::milliseconds(1));
}

void RateBudget::record_retries(int n, clock::time_point now) {
    std::lock_guard lock(mtx_);
    for (int i = 0; i < n; ++i)
        calls_.push_back(now);
}

void RateBudget::upstream_reports(std::size_t used, clock::time_point now) {
    std::lock_guard lock(mtx_);
    expire(now);
    used = std::min(used, spec_.calls);
    while (calls_.size() < used)
        calls_.push_back(now);
}

std::size_t RateBudget::used(clock::time_point now) {
    std::lock_guard lock(mtx_);
    expire(now);
    return calls_.size();
}

std::size_t RateBudget::left(clock::time_point now) {
    auto const u = used(now);
    return u >= spec_.calls ? 0 : spec_.calls - u;
}

std::optional<RateBudget::clock::time_point> RateBudget::waiting_until() const {
    std::lock_guard lock(mtx_);
    return waiting_until_;
}

std::optional<std::size_t>
reported_use(std::string_view x_rate_limit, std::string_view limit, std::string_view remaining) {
    if (auto of = x_rate_limit.find(" of "); of != std::string_view::npos) {
        std::size_t start = of;
        while (start > 0 && x_rate_limit[start - 1] >= '0' && x_rate_limit[start - 1] <= '9')
            --start;
        if (start < of)
            return number_at(x_rate_limit, start);
    }
    auto const total = limit.empty() ? std::nullopt : number_at(limit, 0);
    auto const rest = remaining.empty() ? std::nullopt : number_at(remaining, 0);
    if (total && rest)
        return *rest >= *total ? 0 : *total - *rest;
    return std::nullopt;
}

} // namespace icsbridge
