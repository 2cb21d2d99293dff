// File: run_on_test.cpp
// run_on(): work co_awaited on another strand gets the caller's cancellation, and a cancellation that arrives
// as the work completes is harmless (with Boost 1.81's plain co_spawn it could call into freed memory, which
// the sanitizer build reports). Two threads, so the strands really run at once.
#include "util/run_on.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace icsbridge;

namespace run_on_test {

namespace net = boost::asio;
using namespace std::chrono_literals;
using Strand = net::strand<net::io_context::executor_type>;

/** An io_context run by two threads until destroyed. */
struct TwoThreads {
    net::io_context ioc;
    net::executor_work_guard<net::io_context::executor_type> work = net::make_work_guard(ioc);
    std::vector<std::jthread> threads;
    TwoThreads() {
        for (int i = 0; i < 2; ++i)
            threads.emplace_back([this] { ioc.run(); });
    }
    ~TwoThreads() {
        work.reset();
        ioc.stop();
    }
    TwoThreads(TwoThreads const&) = delete;
    TwoThreads& operator=(TwoThreads const&) = delete;
};

/** Waits on `ex` for a minute unless cancelled; says which. */
net::awaitable<std::string> wait_a_minute() {
    net::steady_timer timer(co_await net::this_coro::executor, 60s);
    try {
        co_await timer.async_wait(net::use_awaitable);
    } catch (boost::system::system_error const& e) {
        co_return e.code() == net::error::operation_aborted ? "cancelled" : e.code().message();
    }
    co_return "a minute passed";
}

/**
 * Completes just as the caller's cancellation arrives: it has the caller emit `cancel` and, behind a slow
 * handler on its own strand, returns. So the cancellation is sent on toward this strand while the work is
 * completing, and reaches it only after the caller has resumed: the moment where Boost 1.81's co_spawn
 * calls into its freed handler.
 */
net::awaitable<int>
complete_as_cancelled(int n, Strand caller, std::shared_ptr<net::cancellation_signal> cancel) {
    auto here = co_await net::this_coro::executor;
    net::post(here, [] { std::this_thread::sleep_for(2ms); });
    net::post(caller, [cancel] { cancel->emit(net::cancellation_type::terminal); });
    std::this_thread::sleep_for(1ms); // the caller emits meanwhile
    co_return n;
}

BOOST_AUTO_TEST_SUITE(run_on_test)

BOOST_AUTO_TEST_CASE(the_callers_cancellation_reaches_the_work_on_the_other_strand) {
    TwoThreads pool;
    Strand caller(net::make_strand(pool.ioc)), worker(net::make_strand(pool.ioc));
    net::cancellation_signal cancel; // emitted on the caller's strand only, as cancellation signals must be
    std::promise<std::string> said;
    net::co_spawn(
        caller,
        [&]() -> net::awaitable<void> { said.set_value(co_await run_on(worker, wait_a_minute())); },
        net::bind_cancellation_slot(cancel.slot(), net::detached)
    );
    std::this_thread::sleep_for(50ms);
    net::post(caller, [&] { cancel.emit(net::cancellation_type::terminal); });
    auto outcome = said.get_future();
    BOOST_TEST_REQUIRE((outcome.wait_for(10s) == std::future_status::ready), "the work was not cancelled");
    BOOST_TEST(outcome.get() == "cancelled");
}

BOOST_AUTO_TEST_CASE(a_cancellation_arriving_as_the_work_completes_is_harmless) {
    TwoThreads pool;
    Strand caller(net::make_strand(pool.ioc)), worker(net::make_strand(pool.ioc));
    int const runs = 100;
    std::atomic<int> done = 0, wrong = 0;
    std::promise<void> all_done;
    for (int i = 0; i < runs; ++i) {
        auto cancel = std::make_shared<net::cancellation_signal>();
        net::co_spawn(
            caller,
            [&, i, cancel, caller]() -> net::awaitable<void> {
                try {
                    if (co_await run_on(worker, complete_as_cancelled(i, caller, cancel)) != i)
                        ++wrong; // Boost.Test's checks are for the test's own thread
                } catch (boost::system::system_error const&) {
                    // cancelled before it was done: as good an outcome, here
                }
                if (++done == runs)
                    all_done.set_value();
            },
            net::bind_cancellation_slot(cancel->slot(), net::detached)
        );
    }
    auto finished = all_done.get_future();
    BOOST_TEST_REQUIRE(
        (finished.wait_for(30s) == std::future_status::ready),
        done.load() << " of " << runs << " ended"
    );
    BOOST_TEST(wrong.load() == 0);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace run_on_test
