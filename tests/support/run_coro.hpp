// File: run_coro.hpp
// Runs a coroutine test on a fresh io_context with a hard deadline; the test fails if it has not finished.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <exception>
#include <functional>

namespace icsbridge::test {

/**
 * @brief co_spawns `fn(executor)` on a new io_context and runs it for at most `deadline`.
 * Rethrows an exception from the coroutine; fails the current test if it did not complete in time.
 */
template <class Fn>
void run_coro(Fn&& fn, std::chrono::milliseconds deadline = std::chrono::seconds(30)) {
    boost::asio::io_context ioc;
    bool done = false;
    std::exception_ptr error;
    boost::asio::co_spawn(ioc, fn(ioc.get_executor()), [&](std::exception_ptr e) {
        done = true;
        error = e;
    });
    ioc.run_for(deadline);
    BOOST_TEST_REQUIRE(done, "coroutine did not finish within " << deadline.count() << " ms");
    if (error)
        std::rethrow_exception(error);
}

} // namespace icsbridge::test
