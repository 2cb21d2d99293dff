// File: use_tuple.hpp
// The completion token of every wait whose error is a value to look at, not a throw.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace icsbridge {

/** @brief `co_await op(use_tuple)` gives (error_code, results...) instead of throwing on an error. */
inline constexpr auto use_tuple = boost::asio::as_tuple(boost::asio::use_awaitable);

} // namespace icsbridge
