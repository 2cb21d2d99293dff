// File: rate_budget.cpp
// RateBudget: a sliding window of call start times per source.
#include "sources/rate_budget.hpp"

#include <algorithm>
#include <charconv>

namespace icsbridge {

namespace net = boost::asio;

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

void RateBudget::share(std::shared_ptr<SharedCalls> shared, std::string source) {
    std::lock_guard lock(mtx_);
    shared_ = std::move(shared);
    source_ = std::move(source);
}

net::awaitable<std::optional<SharedCalls::Taken>> SharedCalls::take(std::string source, Budget spec) {
    co_return try_take(source, spec);
}

RateBudget::clock::duration RateBudget::try_take(clock::time_point now) {
    std::unique_lock lock(mtx_);
    auto shared = shared_;
    lock.unlock();
    // Not under the lock: the gauges read it from the HTTP threads while the database answers.
    auto const taken = shared ? shared->try_take(source_, spec_) : std::nullopt;
    lock.lock();
    return settle(taken, now);
}

net::awaitable<RateBudget::clock::duration> RateBudget::take(clock::time_point now) {
    std::unique_lock lock(mtx_);
    auto shared = shared_;
    lock.unlock();
    std::optional<SharedCalls::Taken> taken;
    if (shared)
        taken = co_await shared->take(source_, spec_);
    lock.lock();
    co_return settle(taken, now);
}

RateBudget::clock::duration
RateBudget::settle(std::optional<SharedCalls::Taken> const& taken, clock::time_point now) {
    expire(now);
    if (taken) {
        shared_used_ = taken->used;
        shared_seen_ = now;
        if (taken->wait.count() == 0) {
            calls_.push_back(now); // ours too: if the database goes away, the local window knows them
            waiting_until_.reset();
            return clock::duration::zero();
        }
        waiting_until_ = now + taken->wait;
        return std::max<clock::duration>(taken->wait, std::chrono::milliseconds(1));
    }
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
    std::unique_lock lock(mtx_);
    auto shared = shared_;
    lock.unlock();
    bool const counted = shared && n > 0 && shared->record(source_, spec_, n);
    lock.lock();
    if (counted)
        shared_used_ += static_cast<std::size_t>(n);
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
    // The cluster's count as of our last call, while that count's window still overlaps this one.
    if (shared_seen_ && *shared_seen_ + spec_.period > now)
        return std::max(calls_.size(), std::min(shared_used_, spec_.calls));
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
