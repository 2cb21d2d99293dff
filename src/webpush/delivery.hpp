// File: delivery.hpp
// Delivery policy as plain functions and state without I/O or clocks of its own: what a push service's
// answer means for the message and the registration, when each registration's next message may go (a
// burst of changes coalesces to one message a second, the newest sync-token winning), and the pace per
// push-service origin.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge::webpush {

using steady_time = std::chrono::steady_clock::time_point;

/** @brief The knobs of delivery; the defaults are what `serve` uses. */
struct DeliveryPolicy {
    /// At most one message per registration in this time: the first after a quiet spell goes at once.
    std::chrono::milliseconds min_interval{1000};
    /// Attempts of one message (the first included) before it is dropped.
    int max_attempts = 5;
    /// The wait before the first retry, doubled each time up to max_backoff, with jitter.
    std::chrono::milliseconds initial_backoff{2000};
    std::chrono::milliseconds max_backoff{std::chrono::minutes(5)};
    /// A Retry-After beyond this drops the message: the client syncs on its own by then.
    std::chrono::seconds max_retry_after{std::chrono::hours(1)};
    /// Messages per second to one push-service origin, and how many may go at once after a quiet spell.
    double origin_rate = 2500;
    double origin_burst = 2500;
};

/** @brief What becomes of a message after an attempt. */
enum class Fate {
    sent,   ///< 2xx: the push service took it
    remove, ///< 404/410: the subscription is gone; the registration is removed
    retry,  ///< 429, 5xx or no answer: tried again after `wait`
    drop,   ///< given up: a 3xx (no redirect is followed), another 4xx, or attempts spent
};

/** @brief How an attempt ended. */
struct Answer {
    unsigned status = 0; ///< 0: no answer came (connection failed, timed out)
    std::optional<std::chrono::seconds> retry_after;
};

struct Verdict {
    Fate fate = Fate::drop;
    std::chrono::milliseconds wait{0}; ///< Fate::retry: how long before the next attempt
    std::string_view why;              ///< for the log: "redirect not followed", "attempts spent", …
};

/**
 * @brief The fate of a message after attempt number `attempt` (1 = the first) ended with `answer`.
 * `jitter` is uniform in [0, 1): the caller's draw, so the wait is reproducible in tests.
 */
Verdict judge(DeliveryPolicy const& policy, Answer const& answer, int attempt, double jitter);

/** @brief A message that may go now. */
struct Due {
    std::string id;        ///< the registration
    std::string token;     ///< the newest sync-token of its collection
    steady_time published; ///< the earliest publication this message tells of (for the latency)
    int attempt = 1;       ///< 1 for the first try of this content
};

/**
 * @brief When each registration's next message goes. A change of its collection makes a message pending
 * (a newer change replaces its token); it is due at once after a quiet spell, else min_interval after the
 * previous message started, or when a retry's wait ends. One message per registration is in flight at a
 * time. Single-threaded: the sender's thread owns it.
 */
class Schedule {
  public:
    explicit Schedule(std::chrono::milliseconds min_interval)
        : min_interval_(min_interval) {}

    /** @brief `id`'s collection changed at `published` and is now at `token`. */
    void change(std::string const& id, std::string token, steady_time published);

    /** @brief Every message due at `now`, each marked in flight until finished(). */
    std::vector<Due> take_due(steady_time now);

    /** @brief When the next pending message falls due; nullopt when none waits. */
    std::optional<steady_time> next_due() const;

    /**
     * @brief The attempt `due` ended with `fate` at `now`. Sent or dropped: the message is done unless a
     * newer change came meanwhile (that one goes min_interval after this one started). Retry: it goes again
     * after `wait`, with the newest token. Remove: the registration is forgotten.
     */
    void finished(Due const& due, Fate fate, std::chrono::milliseconds wait, steady_time now);

    /** @brief Forgets a registration (removed, or its feed gone). */
    void forget(std::string const& id);

    /** @brief Registrations with a message pending or in flight. */
    std::size_t pending() const;

  private:
    struct Entry {
        std::optional<std::string> token; ///< pending content; none: nothing to send
        std::string flying;               ///< the token of the message in flight
        steady_time published{};
        std::optional<steady_time> last_start;
        steady_time not_before{}; ///< a retry's wait
        int attempt = 1;
        bool in_flight = false;
        std::optional<steady_time> queued; ///< its key in queue_, while pending and not in flight
    };
    void queue(std::string const& id, Entry& e);
    void unqueue(std::string const& id, Entry& e);

    std::chrono::milliseconds min_interval_;
    std::map<std::string, Entry, std::less<>> entries_;
    std::set<std::pair<steady_time, std::string>> queue_; ///< pending, not in flight, by due time
};

/**
 * @brief The pace per push-service origin (a generic cell rate: `rate` per second with `burst` at once):
 * reserve() books the next slot and says how long to wait for it. Single-threaded.
 */
class OriginPace {
  public:
    OriginPace(double rate, double burst);
    /** @brief The wait before a message to `origin` may start, its slot booked. */
    std::chrono::nanoseconds reserve(std::string const& origin, steady_time now);

  private:
    std::chrono::nanoseconds interval_;
    std::chrono::nanoseconds tolerance_;
    std::map<std::string, steady_time, std::less<>> next_; ///< the theoretical arrival time per origin
};

} // namespace icsbridge::webpush
