// File: run_on.hpp
// run_on(): co_await a coroutine on another executor (a strand, another thread's io_context) with the
// caller's cancellation forwarded to it safely, which Boost 1.81's co_spawn does not do.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/cancellation_state.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <memory>
#include <utility>

namespace icsbridge {

/**
 * @brief `co_await co_spawn(ex, std::move(work), use_awaitable)`, with the caller's cancellation forwarded
 * to `work` safely.
 *
 * Boost 1.81's co_spawn forwards a cancellation that arrives off `ex` by posting to `ex` a lambda that holds
 * a raw pointer into its own handler; if `work` completes before that lambda runs, the handler is freed and
 * the lambda calls into freed memory (UBSan: "invalid vptr" in cancellation_signal::emit, when a reload
 * cancelled a refresh in the middle of a request). Here the caller's cancellation is emitted, on `ex`, into
 * a signal that the forwarding shares ownership of. A cancellation that comes late finds `work` completed on
 * that same executor and does nothing.
 */
template <class T, class Executor>
boost::asio::awaitable<T> run_on(Executor ex, boost::asio::awaitable<T> work) {
    namespace net = boost::asio;
    auto signal = std::make_shared<net::cancellation_signal>();
    net::cancellation_state const state = co_await net::this_coro::cancellation_state;
    auto slot = state.slot();
    if (slot.is_connected())
        slot.assign([signal, ex](net::cancellation_type type) {
            net::dispatch(ex, [signal, type] { signal->emit(type); });
        });
    co_return co_await net::co_spawn(
        ex,
        std::move(work),
        net::bind_cancellation_slot(signal->slot(), net::use_awaitable)
    );
}

} // namespace icsbridge
