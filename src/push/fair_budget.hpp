// File: fair_budget.hpp
// One request budget shared by every subscriber's connection (`[connect] rate`), handed out in turn so a
// connection with thousands of writes queued never starves one with five: the pure turn-taking and pacing
// (FairTurns, tested without clocks) and its coroutine face (FairBudget).
#pragma once

#include <icsbridge/config.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

namespace icsbridge::push {

/**
 * @brief Who goes next and when, without clocks or timers (sans-io): waiters queue per client; clients with
 * waiters take turns round-robin, one grant each per turn, a newcomer joining the back of the round; grants
 * go on a schedule of slots `spacing()` apart (none when calls == 0: unlimited).
 *
 * Slots, not "a spacing after the last grant": a timer that wakes a few milliseconds late (a busy thread)
 * would otherwise push every later grant back, and a thousand late wakes add up to seconds. A late grant
 * keeps its slot, so the next ones catch up, but by at most `catch_up()`: after a longer stall, or when no
 * one waited, the schedule starts again from now, never with a burst of the time missed.
 *
 * The window guarantee: no window of `period` ever holds more than `calls` grants (the provider's quota is
 * counted per minute or per 100 s, over a sliding window). Slots are spaced (period + catch_up) / calls,
 * a little more than period / calls, and that is what makes it hold with the catch-up: any calls + 1
 * grants in a row span at least calls * spacing - catch_up = period. (Across a reload to a lower rate the
 * grants made under the old one are not counted again.)
 */
class FairTurns {
  public:
    using clock = std::chrono::steady_clock;
    using Ticket = std::uint64_t;

    explicit FairTurns(Budget rate);

    /** @brief A reload: the next slot is `spacing()` under the new rate after the last one. */
    void set_rate(Budget rate);

    /**
     * @brief Queues one request of `client` behind its own earlier ones, at `now`. The first waiter after an
     * idle time starts the schedule again: no slot before `now` is owed to anyone.
     */
    Ticket join(std::string const& client, clock::time_point now);
    /** @brief A waiter that gave up before its turn (cancelled); unknown tickets are ignored. */
    void leave(Ticket t);

    /** @brief The next waiter's ticket if its grant is due at `now` (counted as granted), else nullopt. */
    std::optional<Ticket> grant(clock::time_point now);
    /** @brief Whom grant() serves next; nullopt when no one waits. */
    std::optional<Ticket> next() const;
    /** @brief When grant() may next serve someone (clock::time_point::min() before the first grant). */
    clock::time_point due() const;

    std::size_t waiting() const { return owner_.size(); }
    std::uint64_t granted() const { return granted_; }
    /** @brief The time between two slots: (period + catch_up) / calls, zero when unlimited. */
    clock::duration spacing() const { return spacing_; }
    /** @brief How far late grants may catch up with their slots: period / 100, at most 4 slots or 250 ms. */
    clock::duration catch_up() const { return catch_up_; }

  private:
    clock::duration spacing_{};
    clock::duration catch_up_{};
    std::optional<clock::time_point> slot_;                      ///< the slot of the last grant
    std::unordered_map<std::string, std::deque<Ticket>> queues_; ///< clients with waiters, oldest first
    std::deque<std::string> round_;                              ///< the same clients, next in turn first
    std::unordered_map<Ticket, std::string> owner_;              ///< every waiting ticket's client
    Ticket next_ticket_ = 1;
    std::uint64_t granted_ = 0;
};

/**
 * @brief FairTurns over Asio: take() suspends its caller until its turn. Single-threaded: every call on one
 * thread (the push thread's executor). Must outlive every take() it hands out. The waiter that goes next
 * holds the one pacing timer; the others sleep until woken, so a thousand waiters cost no timer churn.
 */
class FairBudget {
  public:
    using clock = FairTurns::clock;

    FairBudget(boost::asio::any_io_executor ex, Budget rate);
    FairBudget(FairBudget const&) = delete;
    FairBudget& operator=(FairBudget const&) = delete;
    ~FairBudget();

    /** @brief A reload; waiters keep their places. */
    void set_rate(Budget rate);

    /**
     * @brief Waits until `client` may send one request. Clients waiting are served round-robin, one request
     * each per turn. @return true: send it now; false: stopped (now or before). A caller cancelled while it
     * waits leaves the queue and gets operation_aborted, as from any Asio wait.
     */
    boost::asio::awaitable<bool> take(std::string client);

    /** @brief Wakes every waiter (their take() returns false), and every later take() returns false. */
    void stop();

    std::size_t waiting() const { return turns_.waiting(); }
    std::uint64_t granted() const { return turns_.granted(); }

  private:
    struct Waiter;
    struct Leave;
    /** @brief Grants every turn due now, and gives the pacing timer to whoever goes next. */
    void pump();

    boost::asio::any_io_executor ex_;
    FairTurns turns_;
    std::unordered_map<FairTurns::Ticket, Waiter*> waiters_; ///< the frames of the take()s waiting
    bool stopped_ = false;
};

/**
 * @brief A TargetClient gate (TargetClient::Gate) that takes `client`'s turns of `budget`, which must outlive
 * the target client.
 */
std::function<boost::asio::awaitable<bool>()> gate_of(FairBudget& budget, std::string client);

} // namespace icsbridge::push
