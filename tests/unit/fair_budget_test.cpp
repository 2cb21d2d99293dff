// File: fair_budget_test.cpp
// The shared connect budget: turn-taking and spacing as plain decisions at given instants (no clocks), then
// FairBudget on an io_context, where only orders and counts are checked, never how long anything took.
#include "push/fair_budget.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::push;
using namespace std::chrono_literals;
namespace net = boost::asio;

namespace fair_budget_test {

using clock = FairTurns::clock;
clock::time_point const t0{std::chrono::hours(1000)};

/** Grants every turn there is, each when it is due (from `from` on), naming whose it was. */
std::string drain(FairTurns& turns, std::map<FairTurns::Ticket, char> const& whose, clock::time_point from) {
    std::string order;
    while (turns.waiting() > 0) {
        auto const g = turns.grant(std::max(from, turns.due()));
        BOOST_TEST_REQUIRE(g.has_value());
        order += whose.at(*g);
    }
    return order;
}

/** Runs `ioc` until its work is done (at most 20 s: a hung waiter fails the test instead of hanging it). */
void run_all(net::io_context& ioc) {
    ioc.run_for(20s);
    BOOST_TEST_REQUIRE(ioc.stopped(), "waiters were left hanging");
}

/** A take() whose outcome lands in `out` as the client's letter, or '-' when it returned false. */
net::awaitable<void> take_into(FairBudget& budget, std::string client, std::string& out) {
    auto taking = budget.take(client);
    bool const ok = co_await std::move(taking);
    out += ok ? client : std::string("-");
}

void rethrow(std::exception_ptr e) {
    if (e)
        std::rethrow_exception(e);
}

} // namespace fair_budget_test

BOOST_AUTO_TEST_SUITE(fair_budget_test)

BOOST_AUTO_TEST_CASE(clients_waiting_take_turns_one_request_each) {
    // Setup: A queues 10, then B 2.
    FairTurns turns(Budget{60, 60s});
    std::map<FairTurns::Ticket, char> whose;
    for (int i = 0; i < 10; ++i)
        whose[turns.join("A", t0)] = 'A';
    for (int i = 0; i < 2; ++i)
        whose[turns.join("B", t0)] = 'B';
    BOOST_TEST(turns.waiting() == 12u);
    // Run and check: B's two go within the first four grants.
    BOOST_TEST(drain(turns, whose, t0) == "ABABAAAAAAAA");
    BOOST_TEST(turns.granted() == 12u);
}

BOOST_AUTO_TEST_CASE(a_client_that_comes_back_joins_the_end_of_the_round) {
    FairTurns turns(Budget{0, 0s});
    std::map<FairTurns::Ticket, char> whose;
    whose[turns.join("A", t0)] = 'A';
    whose[turns.join("B", t0)] = 'B';
    whose[turns.join("C", t0)] = 'C';
    BOOST_TEST(whose.at(turns.grant(t0).value()) == 'A');
    whose[turns.join("A", t0)] = 'A'; // its next write, queued as soon as the first was let through
    whose[turns.join("B", t0)] = 'B';
    BOOST_TEST(drain(turns, whose, t0) == "BCAB");
}

BOOST_AUTO_TEST_CASE(grants_keep_their_slots_and_a_late_one_brings_no_burst) {
    // Setup: 10 a second, with 10 ms of catch-up, is a slot every 101 ms.
    FairTurns turns(Budget{10, 1s});
    for (int i = 0; i < 8; ++i)
        turns.join("A", t0);
    BOOST_TEST((turns.catch_up() == 10ms));
    BOOST_TEST((turns.spacing() == 101ms));
    // Run and check
    BOOST_TEST((turns.due() == clock::time_point::min())); // nothing granted yet: the first goes at once
    BOOST_TEST(turns.grant(t0).has_value());
    BOOST_TEST((turns.due() == t0 + 101ms));
    BOOST_TEST(!turns.grant(t0 + 100ms).has_value());
    // 7 ms late: the next slot is still t0 + 202 ms, not 101 ms after this grant.
    BOOST_TEST(turns.grant(t0 + 108ms).has_value());
    BOOST_TEST((turns.due() == t0 + 202ms));
    BOOST_TEST(turns.grant(t0 + 202ms).has_value());
    // Four seconds late: one grant now, the next one at most catch_up early, not the missed ones at once.
    BOOST_TEST(turns.grant(t0 + 4303ms).has_value());
    BOOST_TEST(!turns.grant(t0 + 4303ms).has_value());
    BOOST_TEST((turns.due() == t0 + 4303ms - 10ms + 101ms));
    // A reload to 5 a second (10 ms of catch-up, 202 ms apart) moves the next slot from the last one.
    turns.set_rate(Budget{5, 1s});
    BOOST_TEST((turns.spacing() == 202ms));
    BOOST_TEST((turns.due() == t0 + 4293ms + 202ms));
    BOOST_TEST(turns.waiting() == 4u);
}

BOOST_AUTO_TEST_CASE(late_wakes_do_not_add_up) {
    // Setup: 100 a second (10.1 ms apart); every grant comes 3 ms after its slot, as a busy thread wakes.
    FairTurns turns(Budget{100, 1s});
    for (int i = 0; i < 1000; ++i)
        turns.join("A", t0);
    // Run: each grant at 3 ms past when it was due.
    auto last = t0;
    while (turns.waiting() > 0) {
        auto const due = turns.due();
        last = due == clock::time_point::min() ? t0 : due + 3ms;
        BOOST_TEST_REQUIRE(turns.grant(last).has_value());
    }
    // Check: the 1,000th grant is 3 ms after its slot (999 * 10.1 ms), not 999 * 3 ms later.
    BOOST_TEST(
        std::chrono::duration_cast<std::chrono::microseconds>(last - t0).count() == 10'089'900 + 3'000
    );
}

BOOST_AUTO_TEST_CASE(after_an_idle_time_no_burst_is_owed) {
    // Setup: 10 a second; one grant, then ten seconds of nothing.
    FairTurns turns(Budget{10, 1s});
    turns.join("A", t0);
    BOOST_TEST(turns.grant(t0).has_value());
    auto const back = t0 + 10s;
    for (int i = 0; i < 5; ++i)
        turns.join("B", back);
    // Run and check: the first goes at once, the next a spacing later: none of the missed slots.
    BOOST_TEST(turns.grant(back).has_value());
    BOOST_TEST(!turns.grant(back).has_value());
    BOOST_TEST(!turns.grant(back + 100ms).has_value());
    BOOST_TEST((turns.due() == back + 101ms));
    BOOST_TEST(turns.grant(back + 101ms).has_value());
    // A waiter that joins while others wait does not move the schedule.
    turns.join("C", back + 150ms);
    BOOST_TEST((turns.due() == back + 202ms));
}

BOOST_AUTO_TEST_CASE(a_thousand_clients_each_get_one_turn_per_round) {
    // Setup: 1,000 clients, each with a listing queued; each one's write joins once its listing is granted.
    FairTurns turns(Budget{6000, 60s});
    BOOST_TEST((turns.catch_up() == 40ms)); // four slots
    std::map<FairTurns::Ticket, int> whose;
    for (int c = 0; c < 1000; ++c)
        whose[turns.join("c" + std::to_string(c), t0)] = c;
    // Run: grant all 2,000 on their slots.
    std::vector<int> order;
    std::map<int, int> seen;
    while (turns.waiting() > 0) {
        auto const now = std::max(t0, turns.due());
        auto const g = turns.grant(now);
        BOOST_TEST_REQUIRE(g.has_value());
        int const c = whose.at(*g);
        order.push_back(c);
        if (++seen[c] == 1)
            whose[turns.join("c" + std::to_string(c), now)] = c;
    }
    // Check: every listing goes before any write (the writes join the back of the round), each client's
    // write in the order of its listing, and the last grant is on slot 1,999 (1.0002 x the floor of 20 s).
    BOOST_TEST_REQUIRE(order.size() == 2000u);
    for (int i = 0; i < 2000; ++i)
        BOOST_TEST(order[static_cast<std::size_t>(i)] == i % 1000);
    BOOST_TEST((turns.due() - turns.spacing() == t0 + 1999 * turns.spacing()));
    BOOST_TEST(
        std::chrono::duration_cast<std::chrono::milliseconds>(1999 * turns.spacing()).count() == 20003
    );
}

BOOST_AUTO_TEST_CASE(no_window_of_a_period_holds_more_than_calls_over_random_schedules) {
    std::mt19937 rng(39);
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int round = 0; round < 300; ++round) {
        // Setup: a random rate; requests of a few clients join at random times; each grant is tried at a
        // random time past when it is due: on time, a late timer (up to twice the catch-up), or a stall.
        auto const calls = static_cast<std::size_t>(pick(1, 60));
        auto const period = std::chrono::seconds(pick(1, 100));
        FairTurns turns(Budget{calls, period});
        auto const late = std::chrono::duration_cast<std::chrono::microseconds>(turns.catch_up() * 2).count();
        std::vector<clock::time_point> grants;
        auto now = t0;
        // Run
        for (int step = 0; step < 600; ++step) {
            if (turns.waiting() == 0 || pick(0, 2) == 0) {
                now += std::chrono::microseconds(pick(0, 3) == 0 ? pick(0, 3'000'000) : 0);
                turns.join(std::string(1, static_cast<char>('A' + pick(0, 4))), now);
                continue;
            }
            auto const due = turns.due();
            auto const kind = pick(0, 9);
            auto const delay = std::chrono::microseconds(
                kind < 3   ? 0
                : kind < 9 ? pick(0, late)
                           : pick(0, 200'000'000)
            );
            if (due != clock::time_point::min()) {
                BOOST_TEST_REQUIRE(!turns.grant(due - std::chrono::microseconds(1)).has_value()
                ); // never early
                now = std::max(now, due + delay);
            }
            BOOST_TEST_REQUIRE(turns.grant(now).has_value()); // due and someone waits: granted
            grants.push_back(now);
        }
        // Check: any calls + 1 grants in a row span at least a period.
        for (std::size_t i = 0; i + calls < grants.size(); ++i)
            BOOST_TEST_REQUIRE(
                (grants[i + calls] - grants[i] >= period),
                "round " << round << " grant " << i
            );
    }
}

BOOST_AUTO_TEST_CASE(without_a_budget_everyone_goes_at_once) {
    FairTurns turns(Budget{0, 0s});
    for (int i = 0; i < 3; ++i)
        turns.join("A", t0);
    turns.join("B", t0);
    int granted = 0;
    while (turns.grant(t0))
        ++granted;
    BOOST_TEST(granted == 4);
    BOOST_TEST(!turns.next().has_value());
}

BOOST_AUTO_TEST_CASE(a_waiter_that_leaves_loses_its_place_only) {
    // Setup
    FairTurns turns(Budget{0, 0s});
    std::map<FairTurns::Ticket, char> whose;
    auto const a1 = turns.join("A", t0);
    whose[a1] = 'A';
    auto const b1 = turns.join("B", t0);
    whose[b1] = 'B';
    whose[turns.join("A", t0)] = 'A';
    whose[turns.join("C", t0)] = 'C';
    // Run: A's first and B's only request give up.
    turns.leave(a1);
    turns.leave(b1);
    turns.leave(b1);     // twice: ignored
    turns.leave(999999); // unknown: ignored
    // Check: A keeps its place in the round with its second request; B is out of it.
    BOOST_TEST(turns.waiting() == 2u);
    BOOST_TEST(turns.next().has_value());
    BOOST_TEST(drain(turns, whose, t0) == "AC");
}

BOOST_AUTO_TEST_CASE(on_an_io_context_a_short_queue_is_not_starved_by_a_long_one) {
    // Setup: one grant every 20 ms; A asks ten times, then B twice. (At one a millisecond a slow machine,
    // or a sanitizer build at -O0, started A's second before B had asked.)
    net::io_context ioc;
    FairBudget budget(ioc.get_executor(), Budget{50, 1s});
    std::string order;
    for (int i = 0; i < 10; ++i)
        net::co_spawn(ioc, take_into(budget, "A", order), rethrow);
    for (int i = 0; i < 2; ++i)
        net::co_spawn(ioc, take_into(budget, "B", order), rethrow);
    // Run
    run_all(ioc);
    // Check: A's first went before B asked; then turns alternate until B has had its two.
    BOOST_TEST(order == "AABABAAAAAAA");
    BOOST_TEST(budget.granted() == 12u);
    BOOST_TEST(budget.waiting() == 0u);
}

BOOST_AUTO_TEST_CASE(stop_wakes_every_waiter_with_false) {
    // Setup: one request an hour, spent at once.
    net::io_context ioc;
    FairBudget budget(ioc.get_executor(), Budget{1, 3600s});
    std::string order;
    auto body = [&]() -> net::awaitable<void> {
        auto first = take_into(budget, "A", order);
        co_await std::move(first);
        for (auto const* c : {"A", "B", "C"})
            net::co_spawn(ioc, take_into(budget, c, order), rethrow);
        co_await net::post(ioc, net::use_awaitable); // they queue up
        BOOST_TEST(budget.waiting() == 3u);
        // Run
        budget.stop();
        auto late = take_into(budget, "D", order);
        co_await std::move(late);
    };
    net::co_spawn(ioc, body(), rethrow);
    run_all(ioc);
    // Check
    BOOST_TEST(order == "A----");
    BOOST_TEST(budget.waiting() == 0u);
}

BOOST_AUTO_TEST_CASE(a_cancelled_waiter_leaves_and_a_reload_lets_the_rest_through) {
    // Setup: one request an hour, spent at once.
    net::io_context ioc;
    FairBudget budget(ioc.get_executor(), Budget{1, 3600s});
    std::string order;
    bool timed_out = false;
    auto body = [&]() -> net::awaitable<void> {
        using namespace net::experimental::awaitable_operators;
        auto first = take_into(budget, "A", order);
        co_await std::move(first);
        // Run: B gives up (a request deadline); C waits, until a reload lifts the budget.
        net::steady_timer deadline(ioc, 20ms);
        auto racing = take_into(budget, "B", order) || deadline.async_wait(net::use_awaitable);
        auto const winner = co_await std::move(racing);
        timed_out = winner.index() == 1;
        BOOST_TEST(budget.waiting() == 0u);
        net::co_spawn(ioc, take_into(budget, "C", order), rethrow);
        co_await net::post(ioc, net::use_awaitable);
        BOOST_TEST(budget.waiting() == 1u);
        budget.set_rate(Budget{0, 0s});
    };
    net::co_spawn(ioc, body(), rethrow);
    run_all(ioc);
    // Check
    BOOST_TEST(timed_out);
    BOOST_TEST(order == "AC");
    BOOST_TEST(budget.granted() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
