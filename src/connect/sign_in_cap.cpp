// File: sign_in_cap.cpp
// SignInCap: a queue of counted steps by expiry (expired ones dropped on every take, so the cost is paid
// once per step) beside each client's own expiries, both under one mutex.
#include "connect/sign_in_cap.hpp"

#include <algorithm>
#include <utility>

namespace icsbridge::connect {

namespace ip = boost::asio::ip;
using std::chrono::seconds;
using std::chrono::sys_seconds;

SignInCap::SignInCap(SignInCaps caps)
    : caps_(caps) {}

SignInCap::Key SignInCap::key_of(ip::address const& client) {
    Key k{};
    if (client.is_v4() || (client.is_v6() && client.to_v6().is_v4_mapped())) {
        auto const v4 = client.is_v4() ? client.to_v4() : ip::make_address_v4(ip::v4_mapped, client.to_v6());
        auto const bytes = v4.to_bytes();
        k[0] = 4;
        std::copy(bytes.begin(), bytes.end(), k.begin() + 1);
        return k;
    }
    // A host gets a /64 (or more) from its provider: its addresses in it are one client.
    auto const bytes = client.to_v6().to_bytes();
    k[0] = 6;
    std::copy(bytes.begin(), bytes.begin() + 8, k.begin() + 1);
    return k;
}

void SignInCap::expire(sys_seconds now) {
    while (!order_.empty() && order_.front().first <= now) {
        auto it = by_client_.find(order_.front().second);
        if (it != by_client_.end()) {
            auto& mine = it->second;
            mine.erase(mine.begin());
            if (mine.empty())
                by_client_.erase(it);
        }
        order_.pop_front();
    }
}

std::optional<seconds> SignInCap::take(ip::address const& client, sys_seconds now) {
    auto const key = key_of(client);
    std::lock_guard lock(mtx_);
    expire(now);
    auto const wait = [now](sys_seconds until) { return std::max(seconds(1), until - now); };
    // A cap of 0 refuses everything for a window.
    if (order_.size() >= caps_.total)
        return wait(order_.empty() ? now + caps_.window : order_.front().first);
    auto it = by_client_.find(key);
    std::size_t const held = it == by_client_.end() ? 0 : it->second.size();
    if (held >= caps_.per_client)
        return wait(held == 0 ? now + caps_.window : it->second.front());
    // Expiries only grow, as long as the clock does: a clock set back keeps these a little longer.
    auto const until = std::max(now + caps_.window, order_.empty() ? now : order_.back().first);
    if (it == by_client_.end())
        it = by_client_.emplace(key, std::vector<sys_seconds>{}).first;
    it->second.push_back(until);
    order_.emplace_back(until, key);
    return std::nullopt;
}

std::size_t SignInCap::held() const {
    std::lock_guard lock(mtx_);
    return order_.size();
}

std::size_t SignInCap::clients() const {
    std::lock_guard lock(mtx_);
    return by_client_.size();
}

} // namespace icsbridge::connect
