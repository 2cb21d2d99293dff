// File: push_status.hpp
// What /healthz and /metrics show of each push target: written by the push room after every reconcile and
// write, read by the server. A base-layer registry, so neither of those rooms includes the other.
#pragma once

#include <icsbridge/duration.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace icsbridge {

using sys_seconds = std::chrono::sys_seconds;

/** @brief One target as last seen. Counters count since the process started. */
struct TargetStatus {
    std::string name;
    std::optional<sys_seconds> last_success; ///< the last reconcile that left the calendar in sync
    std::optional<sys_seconds> last_failure;
    std::string last_error; ///< of the last reconcile; empty once one succeeded (never a secret)
    std::size_t items = 0;  ///< our items in the calendar after the last reconcile
    std::uint64_t created = 0, updated = 0, deleted = 0;
    std::uint64_t conflicts = 0; ///< 412 answers, each resolved by reading the item again
    std::uint64_t requests = 0;  ///< every request sent (retries included)
    std::uint64_t reconciles = 0;
    std::size_t queue = 0; ///< writes planned and not yet made by the running reconcile
};

/** @brief Thread-safe: the push room's thread writes, the server's read. */
class PushStatus {
  public:
    /** @brief Sets the targets shown (a reload may add or drop some); keeps the counters of those left. */
    void set_targets(std::vector<std::string> const& names);
    /** @brief Changes one target's entry under the lock (nothing when it is not a target any more). */
    template <class Fn>
    void update(std::string const& name, Fn&& fn) {
        std::lock_guard lock(mtx_);
        if (auto it = targets_.find(name); it != targets_.end())
            fn(it->second);
    }
    /** @brief A copy of every target's entry, by name. */
    std::vector<TargetStatus> snapshot() const;

  private:
    mutable std::mutex mtx_;
    std::map<std::string, TargetStatus> targets_;
};

/**
 * @brief The subscribers' connections ([connect]) as counts only: /healthz and /metrics never name a
 * connection, its feed link or its account. Written by the connect room every few seconds.
 */
struct ConnectionCounts {
    std::atomic<std::size_t> total{0};
    std::atomic<std::size_t> in_sync{0}; ///< their last push succeeded
    std::atomic<std::size_t> failing{0}; ///< their last push failed (reconnect needed, refused, quota)
    std::atomic<std::size_t> stopped{0}; ///< not pushed: their link revoked, the key changed, the feed gone
    std::atomic<std::uint64_t> requests{0}; ///< API requests of every connection since start
    std::atomic<bool> enabled{false};       ///< [connect] is configured: the counts are shown
};

/**
 * @brief WebDAV-Push delivery (issue 37) as counts: /metrics and /healthz never name a registration, its push
 * resource or its keys. Written by the webpush sender's thread, read by the server's.
 */
struct WebPushCounts {
    std::atomic<std::uint64_t> sent{0};   ///< messages a push service took (2xx)
    std::atomic<std::uint64_t> failed{0}; ///< attempts it did not take: an error status, no answer, a refusal
    std::atomic<std::uint64_t> dropped{0}; ///< messages given up: a 3xx or 4xx, attempts spent, a bad address
    std::atomic<std::uint64_t> removed{0}; ///< registrations ended by a 404 or 410 of their push service
    /// publication → the push service's 2xx, per duration_buckets bucket (not cumulative; last: +Inf)
    std::array<std::atomic<std::uint64_t>, duration_buckets.size() + 1> latency{};
    std::atomic<std::uint64_t> latency_sum_us{0};
    std::atomic<bool> enabled{false}; ///< [dav] push is on: the counts are shown

    void observe_latency(double seconds) {
        ++latency[duration_bucket(seconds)];
        latency_sum_us += static_cast<std::uint64_t>(seconds * 1e6);
    }
};

} // namespace icsbridge
