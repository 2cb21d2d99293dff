// File: all_of.hpp
// all_of(): run coroutines at once and collect their results in task order, for the concurrent detail
// requests of a source. Private to src/sources/ (used by events_source.cpp).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <utility>
#include <vector>

namespace icsbridge {

// Runs all tasks at once and returns their results in task order; HttpClient bounds the requests in flight.
template <class T>
inline boost::asio::awaitable<std::vector<T>> all_of(std::vector<boost::asio::awaitable<T>> tasks) {
    if (tasks.empty())
        co_return std::vector<T>{};
    auto ex = co_await boost::asio::this_coro::executor;
    using Op =
        decltype(boost::asio::co_spawn(ex, std::declval<boost::asio::awaitable<T>>(), boost::asio::deferred));
    std::vector<Op> ops;
    ops.reserve(tasks.size());
    for (auto& t : tasks)
        ops.push_back(boost::asio::co_spawn(ex, std::move(t), boost::asio::deferred));
    auto [order, errors, results] =
        co_await boost::asio::experimental::make_parallel_group(std::move(ops))
            .async_wait(boost::asio::experimental::wait_for_all(), boost::asio::use_awaitable);
    for (auto const& e : errors)
        if (e)
            std::rethrow_exception(e);
    co_return std::move(results);
}

} // namespace icsbridge
