// File: delivery.cpp
// The verdict on a push service's answer, the per-registration schedule and the per-origin pace.
#include "webpush/delivery.hpp"

#include <algorithm>
#include <cmath>

namespace icsbridge::webpush {

using std::chrono::milliseconds;

namespace {

/** @brief The backoff before retry number `retry`: half of the doubled wait for certain, half by jitter. */
milliseconds backoff(DeliveryPolicy const& p, int retry, double jitter) {
    double base = static_cast<double>(p.initial_backoff.count()) * std::pow(2.0, std::max(0, retry - 1));
    base = std::min(base, static_cast<double>(p.max_backoff.count()));
    return milliseconds(static_cast<long long>(base / 2 + base / 2 * std::clamp(jitter, 0.0, 1.0)));
}

bool retryable(unsigned status) {
    return status == 0 || status == 429 || (status >= 500 && status <= 599);
}

} // namespace

Verdict judge(DeliveryPolicy const& policy, Answer const& answer, int attempt, double jitter) {
    auto const status = answer.status;
    if (status >= 200 && status <= 299)
        return {Fate::sent, {}, "sent"};
    if (status == 404 || status == 410)
        return {Fate::remove, {}, "the push service no longer knows the subscription"};
    // A push resource that redirects could point us anywhere, the operator's own network included.
    if (status >= 300 && status <= 399)
        return {Fate::drop, {}, "redirect not followed"};
    if (!retryable(status))
        return {Fate::drop, {}, "refused by the push service"};
    if (attempt >= policy.max_attempts)
        return {Fate::drop, {}, "attempts spent"};
    if (answer.retry_after) {
        if (*answer.retry_after > policy.max_retry_after)
            return {Fate::drop, {}, "Retry-After too long"};
        return {Fate::retry, std::chrono::duration_cast<milliseconds>(*answer.retry_after), "Retry-After"};
    }
    return {Fate::retry, backoff(policy, attempt, jitter), status == 0 ? "no answer" : "busy"};
}

// ---- Schedule ---------------------------------------------------------------------------------------------

void Schedule::change(std::string const& id, std::string token, steady_time published) {
    auto& e = entries_[id];
    // The latency of a message counts from the first change it tells of that no earlier message told.
    bool const fresh = !e.token || (e.in_flight && *e.token == e.flying);
    if (fresh)
        e.published = published;
    e.token = std::move(token);
    if (!e.in_flight)
        queue(id, e);
}

std::vector<Due> Schedule::take_due(steady_time now) {
    std::vector<Due> out;
    while (!queue_.empty() && queue_.begin()->first <= now) {
        auto const id = queue_.begin()->second;
        queue_.erase(queue_.begin());
        auto& e = entries_.at(id);
        e.queued.reset();
        e.in_flight = true;
        e.flying = *e.token;
        e.last_start = now;
        out.push_back(Due{id, *e.token, e.published, e.attempt});
    }
    return out;
}

std::optional<steady_time> Schedule::next_due() const {
    if (queue_.empty())
        return std::nullopt;
    return queue_.begin()->first;
}

void Schedule::finished(Due const& due, Fate fate, milliseconds wait, steady_time now) {
    auto it = entries_.find(due.id);
    if (it == entries_.end())
        return;
    auto& e = it->second;
    e.in_flight = false;
    switch (fate) {
    case Fate::remove:
        forget(due.id);
        return;
    case Fate::sent:
    case Fate::drop:
        if (e.token == due.token)
            e.token.reset();
        e.attempt = 1;
        break;
    case Fate::retry:
        e.attempt = due.attempt + 1;
        e.not_before = now + wait;
        break;
    }
    if (e.token)
        queue(due.id, e);
}

void Schedule::forget(std::string const& id) {
    auto it = entries_.find(id);
    if (it == entries_.end())
        return;
    unqueue(id, it->second);
    entries_.erase(it);
}

std::size_t Schedule::pending() const {
    return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](auto const& kv) {
        return kv.second.token.has_value() || kv.second.in_flight;
    }));
}

void Schedule::queue(std::string const& id, Entry& e) {
    unqueue(id, e);
    auto due = e.not_before;
    if (e.last_start)
        due = std::max(due, *e.last_start + min_interval_);
    e.queued = due;
    queue_.emplace(due, id);
}

void Schedule::unqueue(std::string const& id, Entry& e) {
    if (e.queued)
        queue_.erase({*e.queued, id});
    e.queued.reset();
}

// ---- OriginPace -------------------------------------------------------------------------------------------

OriginPace::OriginPace(double rate, double burst)
    : interval_(static_cast<long long>(1e9 / std::max(rate, 1e-3)))
    , tolerance_(static_cast<long long>(static_cast<double>(interval_.count()) * std::max(burst - 1, 0.0))) {}

std::chrono::nanoseconds OriginPace::reserve(std::string const& origin, steady_time now) {
    auto [it, added] = next_.try_emplace(origin, now);
    auto const tat = std::max(it->second, now);
    auto const start = std::max(now, tat - tolerance_);
    it->second = tat + interval_;
    return start - now;
}

} // namespace icsbridge::webpush
