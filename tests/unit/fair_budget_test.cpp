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

#include <map>
#include <string>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::push;
using namespace std::chrono_literals;
namespace net = boost::asio;

namespace fair_budget_test {

using clock = FairTurns::clock;
clock::time_point const t0{std::chrono::hours(1000)};

/** Grants every turn there is, one a second from t0 (each due by then at 60/m), naming whose it was. */
std::string drain(FairTurns& turns, std::map<FairTurns::Ticket, char> const& whose, clock::time_point from) {
    std::string order;
    for (auto t = from; turns.waiting() > 0; t += 1s) {
        auto const g = turns.grant(t);
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
        whose[turns.join("A")] = 'A';
    for (int i = 0; i < 2; ++i)
        whose[turns.join("B")] = 'B';
    BOOST_TEST(turns.waiting() == 12u);
    // Run and check: B's two go within the first four grants.
    BOOST_TEST(drain(turns, whose, t0) == "ABABAAAAAAAA");
    BOOST_TEST(turns.granted() == 12u);
}

BOOST_AUTO_TEST_CASE(a_client_that_comes_back_joins_the_end_of_the_round) {
    FairTurns turns(Budget{0, 0s});
    std::map<FairTurns::Ticket, char> whose;
    whose[turns.join("A")] = 'A';
    whose[turns.join("B")] = 'B';
    whose[turns.join("C")] = 'C';
    BOOST_TEST(whose.at(turns.grant(t0).value()) == 'A');
    whose[turns.join("A")] = 'A'; // its next write, queued as soon as the first was let through
    whose[turns.join("B")] = 'B';
    BOOST_TEST(drain(turns, whose, t0) == "BCAB");
}

BOOST_AUTO_TEST_CASE(grants_are_spaced_evenly_and_a_late_one_brings_no_burst) {
    // Setup: 120 a minute is one every 500 ms.
    FairTurns turns(Budget{120, 60s});
    for (int i = 0; i < 5; ++i)
        turns.join("A");
    BOOST_TEST((turns.spacing() == 500ms));
    // Run and check
    BOOST_TEST((turns.due() == clock::time_point::min())); // nothing granted yet: the first goes at once
    BOOST_TEST(turns.grant(t0).has_value());
    BOOST_TEST((turns.due() == t0 + 500ms));
    BOOST_TEST(!turns.grant(t0 + 499ms).has_value());
    BOOST_TEST(turns.grant(t0 + 500ms).has_value());
    // Four seconds late: one grant now, the next a spacing later, not the missed ones at once.
    BOOST_TEST(turns.grant(t0 + 4500ms).has_value());
    BOOST_TEST(!turns.grant(t0 + 4500ms).has_value());
    BOOST_TEST((turns.due() == t0 + 5s));
    // A reload to 60 a minute spaces the next from the last grant.
    turns.set_rate(Budget{60, 60s});
    BOOST_TEST((turns.due() == t0 + 5500ms));
    BOOST_TEST(turns.waiting() == 2u);
}

BOOST_AUTO_TEST_CASE(without_a_budget_everyone_goes_at_once) {
    FairTurns turns(Budget{0, 0s});
    for (int i = 0; i < 3; ++i)
        turns.join("A");
    turns.join("B");
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
    auto const a1 = turns.join("A");
    whose[a1] = 'A';
    auto const b1 = turns.join("B");
    whose[b1] = 'B';
    whose[turns.join("A")] = 'A';
    whose[turns.join("C")] = 'C';
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
