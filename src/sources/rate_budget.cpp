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

RateBudget::RateBudget(Budget spec) {
    state_.limit = spec.calls;
    state_.period = spec.period;
}

void RateBudget::expire(clock::time_point now) {
    auto& calls = state_.calls;
    while (!calls.empty() && calls.front() + state_.period <= now)
        calls.pop_front();
}

void RateBudget::share(std::shared_ptr<SharedCalls> shared, std::string source) {
    std::lock_guard lock(mtx_);
    shared_ = std::move(shared);
    source_ = std::move(source);
}

void RateBudget::show_in(UpstreamMetrics& metrics, std::string source) {
    std::lock_guard lock(mtx_);
    shown_in_ = &metrics;
    shown_as_ = std::move(source);
    show_locked();
}

void RateBudget::stop_showing() {
    std::lock_guard lock(mtx_);
    shown_in_ = nullptr;
}

void RateBudget::show_locked() const {
    if (shown_in_)
        shown_in_->set_budget(shown_as_, state_);
}

net::awaitable<std::optional<SharedCalls::Taken>> SharedCalls::take(std::string source, Budget spec) {
    co_return try_take(source, spec);
}

RateBudget::clock::duration RateBudget::try_take(clock::time_point now) {
    std::unique_lock lock(mtx_);
    auto shared = shared_;
    lock.unlock();
    // Not under the lock: the source's other feeds and retries need not wait while the database answers.
    auto const taken = shared ? shared->try_take(source_, spec()) : std::nullopt;
    lock.lock();
    auto const wait = settle(taken, now);
    show_locked();
    return wait;
}

net::awaitable<RateBudget::clock::duration> RateBudget::take(clock::time_point now) {
    std::unique_lock lock(mtx_);
    auto shared = shared_;
    lock.unlock();
    std::optional<SharedCalls::Taken> taken;
    if (shared)
        taken = co_await shared->take(source_, spec());
    lock.lock();
    auto const wait = settle(taken, now);
    show_locked();
    co_return wait;
}

RateBudget::clock::duration
RateBudget::settle(std::optional<SharedCalls::Taken> const& taken, clock::time_point now) {
    expire(now);
    auto& s = state_;
    if (taken) {
        s.shared_used = taken->used;
        s.shared_seen = now;
        if (taken->wait.count() == 0) {
            s.calls.push_back(now); // ours too: if the database goes away, the local window knows them
            s.waiting_until.reset();
            return clock::duration::zero();
        }
        s.waiting_until = now + taken->wait;
        return std::max<clock::duration>(taken->wait, std::chrono::milliseconds(1));
    }
    if (s.limit == 0) // Budget's "no budget": every call goes at once
        return clock::duration::zero();
    if (s.calls.size() < s.limit) {
        s.calls.push_back(now);
        s.waiting_until.reset();
        return clock::duration::zero();
    }
    // The window is full: the next slot opens when its oldest call leaves it (never a zero wait).
    auto const opens = s.calls.front() + s.period;
    s.waiting_until = opens;
    return std::max<clock::duration>(opens - now, std::chrono::milliseconds(1));
}

void RateBudget::record_retries(int n, clock::time_point now) {
    std::unique_lock lock(mtx_);
    auto shared = shared_;
    lock.unlock();
    bool const counted = shared && n > 0 && shared->record(source_, spec(), n);
    lock.lock();
    if (counted)
        state_.shared_used += static_cast<std::size_t>(n);
    for (int i = 0; i < n; ++i)
        state_.calls.push_back(now);
    show_locked();
}

void RateBudget::upstream_reports(std::size_t used, clock::time_point now) {
    std::lock_guard lock(mtx_);
    expire(now);
    used = std::min(used, state_.limit);
    while (state_.calls.size() < used)
        state_.calls.push_back(now);
    show_locked();
}

std::size_t RateBudget::used(clock::time_point now) {
    std::lock_guard lock(mtx_);
    expire(now);
    return state_.used(now);
}

std::size_t RateBudget::left(clock::time_point now) {
    auto const u = used(now);
    return u >= state_.limit ? 0 : state_.limit - u;
}

std::optional<RateBudget::clock::time_point> RateBudget::waiting_until() const {
    std::lock_guard lock(mtx_);
    return state_.waiting_until;
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
