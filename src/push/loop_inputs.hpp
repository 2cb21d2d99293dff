// File: loop_inputs.hpp
// What a push loop is given from outside, shared by the service that starts the loops and the loops: the
// feeds a target mirrors, whose turn it is (a cluster lease), where its state is kept, and a shared gate.
#pragma once

#include "push/reconcile.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace icsbridge::push {

/** @brief A feed mirrored into a target, and through which view. */
struct Mirrored {
    std::string feed;
    std::string view;
    friend bool operator==(Mirrored const&, Mirrored const&) = default;
};

/** @brief Waits for a budget shared by several loops; false: stopped (the request is not sent). */
using Gate = std::function<boost::asio::awaitable<bool>()>;

/**
 * @brief Whose turn it is to push `target` in a cluster (a lease, as for refreshes): zero when ours;
 * otherwise how long to wait before asking again. Empty: always ours (one box).
 */
using LeaseWait = std::function<boost::asio::awaitable<std::chrono::milliseconds>(std::string const& target)>;

} // namespace icsbridge::push
