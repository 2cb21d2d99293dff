// File: sign_in_cap.hpp
// SignInCap: how many sign-ins one client address (and everyone together) may begin, or claim, within the
// life of a sign-in's state (issue 35). A claim is kept by the store until its state expires, so without a
// cap one client at full speed fills memory; with one, claims and begun sign-ins are bounded by the caps.
// Plain and clock-free (the caller passes `now`): tested without sockets.
#pragma once

#include <boost/asio/ip/address.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace icsbridge::connect {

/** @brief The caps of one kind of sign-in step (begun, claimed), each counted for `window`. */
struct SignInCaps {
    std::size_t per_client = 30; ///< steps one client address may take within `window`
    std::size_t total = 10000;   ///< steps all clients together may take within `window`
    std::chrono::seconds window{600};
};

class SignInCap {
  public:
    explicit SignInCap(SignInCaps caps);

    /**
     * @brief Counts one step of `client` at `now` (kept until now + window); nullopt when counted. When the
     * client, or everyone, is at the cap: nothing is counted and the answer is how long until a step may be
     * taken again (at least 1 s), for a Retry-After. An IPv6 client counts by its /64 (one host has them
     * all); an IPv4 one seen as ::ffff:a.b.c.d as a.b.c.d.
     */
    std::optional<std::chrono::seconds>
    take(boost::asio::ip::address const& client, std::chrono::sys_seconds now);

    /** @brief Steps counted and not yet expired at the last take() (all clients). */
    std::size_t held() const;
    /** @brief Client addresses holding a counted step at the last take(). */
    std::size_t clients() const;

  private:
    using Key = std::array<unsigned char, 17>; ///< the family, then the address (IPv6: its /64 only)
    static Key key_of(boost::asio::ip::address const& client);
    void expire(std::chrono::sys_seconds now);

    SignInCaps caps_;
    mutable std::mutex mtx_;
    /// guarded by mtx_: every counted step in order of expiry (each expires window after it was taken)
    std::deque<std::pair<std::chrono::sys_seconds, Key>> order_;
    /// guarded by mtx_: each client's steps' expiries, oldest first; only clients holding one
    std::map<Key, std::vector<std::chrono::sys_seconds>> by_client_;
};

} // namespace icsbridge::connect
