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
 * are spaced `period / calls` apart (none when calls == 0: unlimited).
 *
 * Spacing, not a window with bursts: the provider's quota is counted per minute or per 100 s, and a burst
 * of a whole period's calls at once is what trips it. A grant that comes late (a busy thread) moves the
 * next one on, never brings on a catch-up burst, so no window of `period` ever holds more than `calls`.
 */
class FairTurns {
  public:
    using clock = std::chrono::steady_clock;
    using Ticket = std::uint64_t;

    explicit FairTurns(Budget rate);

    /** @brief A reload: the next grant is due `period / calls` after the last one under the new rate. */
    void set_rate(Budget rate);

    /** @brief Queues one request of `client` behind its own earlier ones. */
    Ticket join(std::string const& client);
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
    /** @brief The time between two grants: period / calls, zero when unlimited. */
    clock::duration spacing() const { return spacing_; }

  private:
    clock::duration spacing_{};
    std::optional<clock::time_point> last_;
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
