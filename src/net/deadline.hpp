// File: deadline.hpp
// Races an awaitable against a steady_timer (Boost 1.81 has no cancel_after), for the deadlines that
// beast::tcp_stream::expires_after cannot cover: name resolution and a whole request attempt; and the
// check for cancellation that follows such a race.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <utility>

namespace icsbridge::net_detail {

namespace detail {

inline boost::asio::awaitable<void>
fire_after(boost::asio::steady_timer& timer, bool& fired, std::function<void()> const& on_timeout) {
    auto [ec] = co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    // Cancelled (the operation won, or the caller is being cancelled): nothing to do.
    if (ec)
        co_return;
    fired = true;
    // Not every operation honours per-operation cancellation (the resolver does not), so the
    // caller gets a hook to force it to finish, e.g. by closing its socket.
    if (on_timeout)
        on_timeout();
}

} // namespace detail

/**
 * @brief Awaits `op` for at most `limit`; nullopt when the deadline fired first (or the caller was
 * cancelled: check the cancellation state to tell them apart). `op` must not throw.
 */
template <class T>
boost::asio::awaitable<std::optional<T>> race_deadline(
    boost::asio::awaitable<T> op,
    std::chrono::steady_clock::duration limit,
    std::function<void()> on_timeout = {}
) {
    using namespace boost::asio::experimental::awaitable_operators;
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, limit);
    bool fired = false;
    auto v = co_await (std::move(op) || detail::fire_after(timer, fired, on_timeout));
    // A late result that raced the timer still counts as a timeout: the hook may have broken it.
    if (fired || v.index() != 0)
        co_return std::nullopt;
    co_return std::move(std::get<0>(v));
}

/** @brief Throws operation_aborted if the calling coroutine has been cancelled. */
inline boost::asio::awaitable<void> throw_if_cancelled() {
    auto cs = co_await boost::asio::this_coro::cancellation_state;
    if (cs.cancelled() != boost::asio::cancellation_type::none)
        throw boost::system::system_error(boost::asio::error::operation_aborted);
}

} // namespace icsbridge::net_detail
