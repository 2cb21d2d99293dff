// File: fetch_within.hpp
// A fetch bounded by its fetch_timeout (every page and retry included), in serve's refreshes and the
// one-shot commands alike, and the one error that says it took too long.
#pragma once

#include "util/use_tuple.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/pipeline.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>

#include <chrono>
#include <optional>
#include <utility>

namespace icsbridge {

/**
 * @brief errc::upstream_timeout for `feed`, whose fetch took longer than its fetch_timeout: the key to raise
 * if the upstream is just slow.
 */
Error fetch_too_slow(FeedConfig const& feed);

/**
 * @brief `fetch`, abandoned once `limit` has passed: nullopt then, and the fetch cancelled (its requests end
 * with it; nothing it read is kept). The timer runs on the caller's executor.
 */
template <class T>
boost::asio::awaitable<std::optional<T>>
fetch_within(boost::asio::awaitable<T> fetch, std::chrono::steady_clock::duration limit) {
    using namespace boost::asio::experimental::awaitable_operators;
    boost::asio::steady_timer deadline(co_await boost::asio::this_coro::executor, limit);
    auto r = co_await (std::move(fetch) || deadline.async_wait(use_tuple));
    if (r.index() != 0)
        co_return std::nullopt;
    co_return std::get<0>(std::move(r));
}

/** @brief One feed's `fetch` within its fetch_timeout, or fetch_too_slow(feed). */
boost::asio::awaitable<Result<Calendar>>
fetch_within(boost::asio::awaitable<Result<Calendar>> fetch, FeedConfig const& feed);

} // namespace icsbridge
