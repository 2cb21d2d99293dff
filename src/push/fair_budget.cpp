// File: fair_budget.cpp
// FairTurns: per-client queues, a round of clients and the spacing of grants. FairBudget: waiters on
// steady_timers woken by cancel(), one of them holding the pacing deadline.
#include "push/fair_budget.hpp"

#include "net/deadline.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace icsbridge::push {

namespace net = boost::asio;

namespace {

using namespace std::chrono_literals;

FairTurns::clock::duration catch_up_of(Budget rate) {
    if (rate.calls == 0 || rate.period.count() <= 0)
        return FairTurns::clock::duration::zero();
    // Enough for a timer's late wakes; small enough that catching up is no burst (four slots at most).
    auto const period = std::chrono::duration_cast<FairTurns::clock::duration>(rate.period);
    return std::min(
        {period / 100,
         period * 4 / static_cast<FairTurns::clock::rep>(rate.calls),
         FairTurns::clock::duration(250ms)}
    );
}

FairTurns::clock::duration spacing_of(Budget rate) {
    if (rate.calls == 0 || rate.period.count() <= 0)
        return FairTurns::clock::duration::zero();
    // Rounded up: a spacing a nanosecond short would let calls + 1 grants into a window.
    auto const span = std::chrono::duration_cast<FairTurns::clock::duration>(rate.period) + catch_up_of(rate);
    auto const calls = static_cast<FairTurns::clock::rep>(rate.calls);
    return FairTurns::clock::duration((span.count() + calls - 1) / calls);
}

} // namespace

FairTurns::FairTurns(Budget rate)
    : spacing_(spacing_of(rate))
    , catch_up_(catch_up_of(rate)) {}

void FairTurns::set_rate(Budget rate) {
    spacing_ = spacing_of(rate);
    catch_up_ = catch_up_of(rate);
}

FairTurns::Ticket FairTurns::join(std::string const& client, clock::time_point now) {
    // After an idle time the schedule starts again at now: the slots no one waited for are not owed.
    if (owner_.empty() && slot_ && *slot_ + spacing_ < now)
        slot_ = now - spacing_;
    Ticket const t = next_ticket_++;
    auto& queue = queues_[client];
    if (queue.empty())
        round_.push_back(client);
    queue.push_back(t);
    owner_.emplace(t, client);
    return t;
}

void FairTurns::leave(Ticket t) {
    auto const found = owner_.find(t);
    if (found == owner_.end())
        return;
    auto const queue = queues_.find(found->second);
    auto& tickets = queue->second;
    tickets.erase(std::find(tickets.begin(), tickets.end(), t));
    if (tickets.empty()) {
        round_.erase(std::find(round_.begin(), round_.end(), found->second));
        queues_.erase(queue);
    }
    owner_.erase(found);
}

std::optional<FairTurns::Ticket> FairTurns::next() const {
    if (round_.empty())
        return std::nullopt;
    return queues_.at(round_.front()).front();
}

FairTurns::clock::time_point FairTurns::due() const {
    return slot_ ? *slot_ + spacing_ : clock::time_point::min();
}

std::optional<FairTurns::Ticket> FairTurns::grant(clock::time_point now) {
    if (round_.empty() || now < due())
        return std::nullopt;
    std::string client = std::move(round_.front());
    round_.pop_front();
    auto const queue = queues_.find(client);
    Ticket const t = queue->second.front();
    queue->second.pop_front();
    if (queue->second.empty())
        queues_.erase(queue);
    else
        round_.push_back(std::move(client)); // its next request waits for everyone else's turn
    owner_.erase(t);
    // Its slot, not now: a late wake does not push every later grant back. Later than catch_up: the
    // schedule moves on so that the slots missed never come as a burst.
    auto const due_at = due();
    slot_ = due_at == clock::time_point::min() ? now : std::max(due_at, now - catch_up_);
    ++granted_;
    return t;
}

/** @brief A take() waiting: its timer sleeps until woken (cancel) or, for whoever goes next, until due. */
struct FairBudget::Waiter {
    net::steady_timer timer;
    clock::time_point wake_at = clock::time_point::max();
    bool granted = false;
};

/** @brief Takes a waiter out however its take() ends (granted, stopped, cancelled, destroyed). */
struct FairBudget::Leave {
    FairBudget& budget;
    FairTurns::Ticket ticket;
    Waiter const& waiter;
    Leave(FairBudget& b, FairTurns::Ticket t, Waiter const& w)
        : budget(b)
        , ticket(t)
        , waiter(w) {}
    Leave(Leave const&) = delete;
    Leave& operator=(Leave const&) = delete;
    ~Leave() {
        budget.waiters_.erase(ticket);
        if (waiter.granted)
            return;
        budget.turns_.leave(ticket);
        // It may have held the pacing deadline: hand it on. Nothing here is worth ending the process for.
        try {
            if (!budget.stopped_)
                budget.pump();
        } catch (...) {
        }
    }
};

FairBudget::FairBudget(net::any_io_executor ex, Budget rate)
    : ex_(std::move(ex))
    , turns_(rate) {}

FairBudget::~FairBudget() = default;

void FairBudget::set_rate(Budget rate) {
    turns_.set_rate(rate);
    if (!stopped_)
        pump();
}

void FairBudget::stop() {
    stopped_ = true;
    for (auto& [ticket, waiter] : waiters_)
        waiter->timer.cancel();
}

void FairBudget::pump() {
    auto const now = clock::now();
    while (auto const t = turns_.grant(now)) {
        Waiter& w = *waiters_.at(*t);
        w.granted = true;
        w.timer.cancel();
    }
    auto const next = turns_.next();
    if (!next)
        return;
    Waiter& w = *waiters_.at(*next);
    if (w.wake_at != turns_.due()) {
        w.wake_at = turns_.due();
        w.timer.cancel(); // re-armed with the new deadline by its take()
    }
}

net::awaitable<bool> FairBudget::take(std::string client) {
    if (stopped_)
        co_return false;
    auto const ticket = turns_.join(client, clock::now());
    Waiter w{net::steady_timer(ex_)};
    waiters_.emplace(ticket, &w);
    Leave const leave{*this, ticket, w};
    pump();
    while (!w.granted && !stopped_) {
        w.timer.expires_at(w.wake_at);
        auto sleeping = w.timer.async_wait(net::as_tuple(net::use_awaitable));
        co_await std::move(sleeping);
        auto checking = net_detail::throw_if_cancelled();
        co_await std::move(checking);
        if (!w.granted && !stopped_ && clock::now() >= w.wake_at) {
            // Its deadline came: no longer anyone's until pump() says whose it is now.
            w.wake_at = clock::time_point::max();
            pump();
        }
    }
    co_return w.granted && !stopped_;
}

std::function<net::awaitable<bool>()> gate_of(FairBudget& budget, std::string client) {
    return [&budget, client = std::move(client)]() { return budget.take(client); };
}

} // namespace icsbridge::push
