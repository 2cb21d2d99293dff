// File: target_gate_test.cpp
// A push target's shared gate (issue 27) against a scripted server on loopback: every try passes the gate,
// a retried request twice; a gate that answers false ends the request as errc::shutdown before anything is
// sent; connections sharing one FairBudget each count their requests in it; a turn held ahead of a request
// (hold_turn) is used by the next try instead of a second pass of the gate.
#include "integration/scripted_upstream.hpp"
#include "push/fair_budget.hpp"
#include "push/target_client.hpp"
#include "support/run_coro.hpp"

#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <string>

using namespace icsbridge;
using icsbridge::test::ScriptedReply;
using icsbridge::test::ScriptedRequest;
using icsbridge::test::ScriptedUpstream;
namespace net = boost::asio;

namespace target_gate_test {

TargetConfig target(std::string name, std::string url) {
    TargetConfig t;
    t.name = std::move(name);
    t.url = std::move(url); // its credentials go to this origin only
    t.username = "u";
    t.password = "p";
    return t;
}

/** A gate that counts its calls and answers `open`. */
push::TargetClient::Gate counting_gate(int& calls, bool open) {
    return [&calls, open]() -> net::awaitable<bool> {
        ++calls;
        co_return open;
    };
}

} // namespace target_gate_test

BOOST_AUTO_TEST_SUITE(target_gate_test)

BOOST_AUTO_TEST_CASE(every_try_passes_the_gate) {
    // Setup: the first answer is a 503, so the request is tried twice.
    std::atomic<int> seen{0};
    ScriptedUpstream up([&](ScriptedRequest const&) {
        return ++seen == 1 ? ScriptedReply{503, "busy"} : ScriptedReply{200, "ok"};
    });
    int calls = 0;
    // Run
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        push::TargetClient client(ex, target("gated", up.base_url()), Logger{});
        client.set_gate(counting_gate(calls, true));
        auto sending = client.send("GET", up.base_url() + "/cal/");
        auto answer = co_await std::move(sending);
        // Check
        BOOST_TEST_REQUIRE(answer.has_value(), (answer ? "" : answer.error().message));
        BOOST_TEST(answer->status == 200u);
        BOOST_TEST(client.requests() == 2u);
    });
    BOOST_TEST(calls == 2);
}

BOOST_AUTO_TEST_CASE(a_closed_gate_ends_the_request_before_it_is_sent) {
    ScriptedUpstream up([](ScriptedRequest const&) { return ScriptedReply{200, "ok"}; });
    int calls = 0;
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        push::TargetClient client(ex, target("gated", up.base_url()), Logger{});
        client.set_gate(counting_gate(calls, false));
        auto sending = client.send("GET", up.base_url() + "/cal/");
        auto answer = co_await std::move(sending);
        BOOST_TEST_REQUIRE(!answer.has_value());
        BOOST_TEST(answer.error().code == errc::shutdown);
        BOOST_TEST(answer.error().message == "gated: stopped while waiting for the shared request budget");
        BOOST_TEST(client.requests() == 0u);
    });
    BOOST_TEST(calls == 1);
    BOOST_TEST(up.requests().empty());
}

BOOST_AUTO_TEST_CASE(a_turn_held_ahead_is_used_by_the_next_try_and_only_once) {
    ScriptedUpstream up([](ScriptedRequest const&) { return ScriptedReply{200, "ok"}; });
    int calls = 0;
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        push::TargetClient client(ex, target("gated", up.base_url()), Logger{});
        client.set_gate(counting_gate(calls, true));
        // Run: two turns held (the second passes the gate itself, not taking the first's), then three sends.
        for (int i = 0; i < 2; ++i) {
            auto holding = client.hold_turn();
            BOOST_TEST(co_await std::move(holding));
        }
        BOOST_TEST(calls == 2);
        BOOST_TEST(client.turns_held() == 2u);
        for (int i = 0; i < 3; ++i) {
            auto sending = client.send("GET", up.base_url() + "/cal/");
            auto answer = co_await std::move(sending);
            BOOST_TEST(answer.has_value());
        }
        // Check: the first two sends used the held turns, the third passed the gate.
        BOOST_TEST(calls == 3);
        BOOST_TEST(client.turns_held() == 0u);
        BOOST_TEST(client.requests() == 3u);
        // A held turn given up is not used: the next send passes the gate again.
        auto holding = client.hold_turn();
        BOOST_TEST(co_await std::move(holding));
        client.drop_turn();
        auto sending = client.send("GET", up.base_url() + "/cal/");
        auto answer = co_await std::move(sending);
        BOOST_TEST(answer.has_value());
        BOOST_TEST(calls == 5);
    });
}

BOOST_AUTO_TEST_CASE(a_closed_gate_holds_no_turn) {
    ScriptedUpstream up([](ScriptedRequest const&) { return ScriptedReply{200, "ok"}; });
    int calls = 0;
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        push::TargetClient client(ex, target("gated", up.base_url()), Logger{});
        client.set_gate(counting_gate(calls, false));
        auto holding = client.hold_turn();
        BOOST_TEST(!co_await std::move(holding));
        BOOST_TEST(client.turns_held() == 0u);
    });
    BOOST_TEST(calls == 1);
}

BOOST_AUTO_TEST_CASE(connections_sharing_a_fair_budget_each_take_their_turns) {
    ScriptedUpstream up([](ScriptedRequest const&) { return ScriptedReply{200, "ok"}; });
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        // Setup: no limit, so only the counting is under test here (the order is fair_budget_test's).
        push::FairBudget budget(ex, Budget{0, std::chrono::seconds(0)});
        push::TargetClient a(ex, target("connection-a", up.base_url()), Logger{});
        push::TargetClient b(ex, target("connection-b", up.base_url()), Logger{});
        a.set_gate(push::gate_of(budget, "a"));
        b.set_gate(push::gate_of(budget, "b"));
        // Run
        for (auto* c : {&a, &a, &b}) {
            auto sending = c->send("GET", up.base_url() + "/cal/");
            auto answer = co_await std::move(sending);
            BOOST_TEST(answer.has_value());
        }
        // Check
        BOOST_TEST(budget.granted() == 3u);
        budget.stop();
        auto sending = a.send("GET", up.base_url() + "/cal/");
        auto after = co_await std::move(sending);
        BOOST_TEST(after.error().code == errc::shutdown);
    });
    BOOST_TEST(up.requests().size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
