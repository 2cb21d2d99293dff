// File: client_limit.hpp
// The per-client connection cap: how many connections each client address holds, and whether one more
// may be admitted (a trusted reverse proxy's address is never capped). Private to src/server/.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::server_detail {

class ClientLimit {
  public:
    /**
     * @param cap connections one address may hold (0: no cap)
     * @param trusted addresses or networks as the config validated them ("10.0.0.0/8", "::1")
     */
    ClientLimit(std::size_t cap, std::vector<std::string> const& trusted);

    /** @brief Counts one more connection of `client`; false (nothing counted) when it holds `cap` already. */
    bool admit(boost::asio::ip::address const& client);
    /** @brief The end of a connection admit() counted. */
    void release(boost::asio::ip::address const& client);
    /** @brief Connections `client` holds now (tests, logs). */
    std::size_t held(boost::asio::ip::address const& client) const;
    /** @brief Whether `a` is in trusted_proxies. */
    bool trusted(boost::asio::ip::address const& a) const;
    /**
     * @brief The client a request comes from: `peer`, or when `peer` is a trusted proxy, the last address
     * of `forwarded` (its X-Forwarded-For) that is not one, read from the right: a proxy appends the
     * address it saw, and anything left of that is what the client claimed. An entry that is not an
     * address ends the walk at the hop that added it.
     */
    boost::asio::ip::address
    client_of(boost::asio::ip::address const& peer, std::string_view forwarded) const;

  private:
    std::size_t cap_;
    std::vector<boost::asio::ip::network_v4> trusted_v4_;
    std::vector<boost::asio::ip::network_v6> trusted_v6_;
    mutable std::mutex mtx_;
    std::map<boost::asio::ip::address, std::size_t> open_; ///< guarded by mtx_; only addresses holding one
};

/** @brief An IPv4 client seen through a dual-stack socket (::ffff:a.b.c.d) as the IPv4 address it is. */
boost::asio::ip::address plain_address(boost::asio::ip::address const& a);

} // namespace icsbridge::server_detail
