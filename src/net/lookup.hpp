// File: lookup.hpp
// Name resolution that no other lookup waits behind. Asio's resolver runs every lookup of an io_context on
// one private thread, one after another, and its cancel cannot stop one already running: a name whose DNS
// never answers held every other target's (or source's) new connections on that context, and the caller
// past its own deadline too. Here a name is looked up on a thread of its own and the caller waits at most
// its limit; an address is converted at once, without a thread.
#pragma once

#include <icsbridge/net.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace icsbridge::net_detail {

/** @brief What a lookup found: the endpoints, or why not. */
struct Lookup {
    bool timed_out = false; ///< `limit` passed first (or the caller was cancelled)
    std::string error;      ///< getaddrinfo's reason; empty when found (or timed out)
    boost::asio::ip::tcp::resolver::results_type endpoints;
};

/**
 * @brief The TCP endpoints of `host`:`port` (getaddrinfo with AI_ADDRCONFIG, as Asio's resolver asks).
 * A name's lookup keeps its thread, and its count in `lookups`, until getaddrinfo returns, even when the
 * caller stopped waiting; with lookups->most() running it fails at once rather than pile up threads.
 */
boost::asio::awaitable<Lookup> lookup(
    std::string host, std::string port, std::chrono::milliseconds limit, std::shared_ptr<NameLookups> lookups
);

} // namespace icsbridge::net_detail
