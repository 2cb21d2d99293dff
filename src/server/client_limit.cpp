// File: client_limit.cpp
// ClientLimit: open connections per client address under one mutex (admitted on accept, released when
// the session ends), trusted proxies parsed once.
#include "server/client_limit.hpp"

#include "util/trim.hpp"

namespace icsbridge::server_detail {

namespace ip = boost::asio::ip;

ip::address plain_address(ip::address const& a) {
    if (a.is_v6() && a.to_v6().is_v4_mapped())
        return ip::make_address_v4(ip::v4_mapped, a.to_v6());
    return a;
}

ClientLimit::ClientLimit(std::size_t cap, std::vector<std::string> const& trusted)
    : cap_(cap) {
    // The config checked every entry; one that still fails to parse is skipped rather than trusted.
    for (auto const& t : trusted) {
        boost::system::error_code ec;
        if (t.find('/') == std::string::npos) {
            auto a = plain_address(ip::make_address(t, ec));
            if (ec)
                continue;
            if (a.is_v4())
                trusted_v4_.emplace_back(a.to_v4(), 32);
            else
                trusted_v6_.emplace_back(a.to_v6(), 128);
        } else if (t.find(':') == std::string::npos) {
            auto n = ip::make_network_v4(t, ec);
            if (!ec)
                trusted_v4_.push_back(n.canonical());
        } else {
            auto n = ip::make_network_v6(t, ec);
            if (!ec)
                trusted_v6_.push_back(n.canonical());
        }
    }
}

bool ClientLimit::trusted(ip::address const& a) const {
    if (a.is_v4()) {
        for (auto const& n : trusted_v4_)
            if (ip::network_v4(a.to_v4(), 32).is_subnet_of(n) || n.address() == a.to_v4())
                return true;
        return false;
    }
    for (auto const& n : trusted_v6_)
        if (ip::network_v6(a.to_v6(), 128).is_subnet_of(n) || n.address() == a.to_v6())
            return true;
    return false;
}

bool ClientLimit::admit(ip::address const& client) {
    if (cap_ == 0)
        return true;
    auto const a = plain_address(client);
    if (trusted(a))
        return true;
    std::lock_guard lock(mtx_);
    auto& n = open_[a];
    if (n >= cap_)
        return false;
    ++n;
    return true;
}

void ClientLimit::release(ip::address const& client) {
    if (cap_ == 0)
        return;
    auto const a = plain_address(client);
    std::lock_guard lock(mtx_);
    auto it = open_.find(a);
    // Absent for a trusted address (never counted).
    if (it == open_.end())
        return;
    if (--it->second == 0)
        open_.erase(it);
}

ip::address ClientLimit::client_of(ip::address const& peer, std::string_view forwarded) const {
    auto client = plain_address(peer);
    while (trusted(client) && !forwarded.empty()) {
        auto const comma = forwarded.rfind(',');
        auto const entry =
            trim_ows(comma == std::string_view::npos ? forwarded : forwarded.substr(comma + 1));
        forwarded = comma == std::string_view::npos ? std::string_view() : forwarded.substr(0, comma);
        boost::system::error_code ec;
        auto const a = ip::make_address(std::string(entry), ec);
        if (ec)
            break;
        client = plain_address(a);
    }
    return client;
}

std::size_t ClientLimit::held(ip::address const& client) const {
    std::lock_guard lock(mtx_);
    auto it = open_.find(plain_address(client));
    return it == open_.end() ? 0 : it->second;
}

} // namespace icsbridge::server_detail
