// File: rate_budget.hpp
// A source's call budget ("2000/h"): how many upstream calls may start in any window of the period, as a
// pure sliding window (tested without clocks or sockets), plus what the upstream itself reports, and in a
// cluster the count all replicas share.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge {

/**
 * @brief A source's calls counted where every replica of a cluster sees them (the database), so that
 * several replicas together stay within one budget. Each answer is nullopt when the counter cannot be
 * reached: the replica then counts on its own (RateBudget's local window).
 */
class SharedCalls {
  public:
    struct Taken {
        std::chrono::milliseconds wait{0}; ///< zero: the call is counted; more: no room until then
        std::size_t used = 0;              ///< calls in the window across the cluster, this one included
    };
    virtual ~SharedCalls() = default;
    /** @brief Counts one call of `source` if its window has room for it. Blocking. */
    virtual std::optional<Taken> try_take(std::string const& source, Budget const& spec) = 0;
    /**
     * @brief try_take() without holding the caller's thread while the counter answers (the database's
     * own thread waits instead); by default the blocking one.
     */
    virtual boost::asio::awaitable<std::optional<Taken>> take(std::string source, Budget spec);
    /** @brief Counts `n` calls already made (retries). False when the counter is known to be away; may
     * return before the counter has them. */
    virtual bool record(std::string const& source, Budget const& spec, int n) = 0;
};

/**
 * @brief Calls of one source in the last `period`. Thread-safe: the feeds of a source share one.
 * Every call is recorded when it starts (retries included, see record_retries); a call that would be the
 * (calls+1)-th within a period waits until the oldest one leaves the window. Shown in /metrics and
 * /healthz by pushing its state into UpstreamMetrics on every change (show_in).
 */
class RateBudget {
  public:
    using clock = std::chrono::steady_clock;

    explicit RateBudget(Budget spec);

    /** @brief Records a call at `now` and returns zero, or returns how long to wait before asking again. */
    clock::duration try_take(clock::time_point now);
    /** @brief try_take() whose shared count is asked without blocking the calling thread (SharedCalls::take).
     */
    boost::asio::awaitable<clock::duration> take(clock::time_point now);

    /** @brief Retries the HTTP client made for a call already taken: they count too. */
    void record_retries(int n, clock::time_point now);

    /**
     * @brief What the upstream reports (`X-Rate-Limit: ... 1180 of 2000 hourly`): another client of the
     * same token may have spent part of it, so the window never holds fewer calls than reported.
     */
    void upstream_reports(std::size_t used, clock::time_point now);

    std::size_t used(clock::time_point now);
    std::size_t left(clock::time_point now);
    /** @brief When the current wait (if any) ends: for /healthz. */
    std::optional<clock::time_point> waiting_until() const;
    Budget spec() const { return Budget{state_.limit, state_.period}; }

    /**
     * @brief Cluster mode: counts calls in `shared` as `source` from now on; the local window goes on
     * counting this replica's calls, and decides alone whenever `shared` does not answer.
     */
    void share(std::shared_ptr<SharedCalls> shared, std::string source);

    /**
     * @brief Pushes this budget's state into `metrics` as the budget of `source`: at once, and after every
     * change from now on (the metrics never ask the budget).
     */
    void show_in(UpstreamMetrics& metrics, std::string source);
    /** @brief No more pushes (a reload replaced this budget); none is under way once it returns. */
    void stop_showing();

  private:
    void expire(clock::time_point now);
    /** @brief The local window's decision, given the cluster's answer (nullopt: none). mtx_ held. */
    clock::duration settle(std::optional<SharedCalls::Taken> const& taken, clock::time_point now);
    /** @brief The state as it now is, into the metrics it is shown in (if any). mtx_ held, so that the
     * pushes of two changes arrive in their order. */
    void show_locked() const;

    std::shared_ptr<SharedCalls> shared_; ///< set before the refreshers start; read on their strand
    std::string source_;
    mutable std::mutex mtx_;
    /// The calls in the window, the cluster's count at its last answer (the gauges show the larger count)
    /// and the current wait. Guarded by mtx_, except limit and period, which never change.
    BudgetState state_;
    UpstreamMetrics* shown_in_ = nullptr; ///< guarded by mtx_
    std::string shown_as_;                ///< guarded by mtx_
};

/**
 * @brief Calls the upstream says were used: the first "N of M" of an `X-Rate-Limit` value ("key[..]: 1180 of
 * 2000 hourly"), else `X-RateLimit-Limit` minus `X-RateLimit-Remaining`; nullopt when neither is readable.
 */
std::optional<std::size_t>
reported_use(std::string_view x_rate_limit, std::string_view limit, std::string_view remaining);

} // namespace icsbridge
