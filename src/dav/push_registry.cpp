// File: push_registry.cpp
// PushRegistry: the registrations by id behind one mutex, the caps counted per feed, the persistence told of
// each change while the lock is held (so the journal or the rows see the changes in their order), and the
// topics derived from the VAPID key.
#include "dav/push_registry.hpp"

#include "util/base64url.hpp"
#include <icsbridge/digest.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace icsbridge::dav {

namespace {

std::size_t
count_feed(std::map<std::string, PushRegistration, std::less<>> const& all, std::string_view feed) {
    return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [&](auto const& e) {
        return e.second.feed == feed;
    }));
}

} // namespace

Result<std::string> push_topic_key(webpush::VapidKey const& vapid) {
    auto pem = vapid.to_pem();
    if (!pem)
        return pem.error();
    auto const digest = sha256("icsbridge webdav-push topic key\n" + *pem);
    OPENSSL_cleanse(pem->data(), pem->size());
    return std::string(reinterpret_cast<char const*>(digest.data()), digest.size());
}

std::string new_push_id() {
    std::array<unsigned char, 16> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
        throw std::runtime_error("the random number generator (RAND_bytes) failed");
    return base64url(std::string_view(reinterpret_cast<char const*>(bytes.data()), bytes.size()));
}

std::string push_token_digest(std::string_view feed, std::string_view subscriber, std::string_view token) {
    std::string text = "icsbridge push token\n";
    text.append(feed).append(1, '\0').append(subscriber).append(1, '\0').append(token);
    auto digest = to_hex(sha256(text));
    OPENSSL_cleanse(text.data(), text.size());
    return digest;
}

PushRegistry::PushRegistry(
    std::string vapid_public,
    std::string topic_key,
    std::shared_ptr<PushPersistence> persistence,
    PushCaps caps
)
    : vapid_public_(std::move(vapid_public))
    , topic_key_(std::move(topic_key))
    , persistence_(std::move(persistence))
    , caps_(caps) {}

Result<void> PushRegistry::reload(std::chrono::sys_seconds now) {
    if (!persistence_)
        return {};
    std::lock_guard lock(mtx_);
    auto kept = persistence_->load();
    if (!kept)
        return kept.error();
    std::map<std::string, PushRegistration, std::less<>> fresh;
    for (auto& r : *kept) {
        if (r.expires > now)
            fresh.emplace(r.id, std::move(r));
        else
            (void)persistence_->remove(r.id); // expired while nobody looked: gone from the persistence too
    }
    by_id_ = std::move(fresh);
    return {};
}

Result<std::pair<PushAdded, PushRegistration>>
PushRegistry::add(PushRegistration r, std::chrono::sys_seconds now) {
    auto const longest = now + std::chrono::duration_cast<std::chrono::seconds>(push_max_lifetime);
    if (r.expires <= now || r.expires > longest)
        r.expires = longest;
    std::lock_guard lock(mtx_);
    (void)expire_locked(now);
    auto same = std::find_if(by_id_.begin(), by_id_.end(), [&](auto const& e) {
        return e.second.feed == r.feed && e.second.push_resource == r.push_resource;
    });
    PushAdded const how = same == by_id_.end() ? PushAdded::created : PushAdded::updated;
    if (how == PushAdded::updated) {
        r.id = same->first;
    } else {
        if (by_id_.size() >= caps_.total)
            return fail(
                errc::usage,
                "this server keeps no more push registrations (" + std::to_string(caps_.total) + " in all)"
            );
        if (count_feed(by_id_, r.feed) >= caps_.per_collection)
            return fail(
                errc::usage,
                "this calendar has as many push registrations as it keeps (" +
                    std::to_string(caps_.per_collection) + ")"
            );
        if (r.id.empty())
            r.id = new_push_id();
    }
    if (persistence_)
        if (auto kept = persistence_->put(r); !kept)
            return kept.error();
    by_id_.insert_or_assign(r.id, r);
    return std::pair{how, std::move(r)};
}

std::vector<PushRegistration> PushRegistry::live(std::string_view feed, std::chrono::sys_seconds now) const {
    std::vector<PushRegistration> out;
    std::lock_guard lock(mtx_);
    for (auto const& [id, r] : by_id_)
        if (r.feed == feed && r.expires > now)
            out.push_back(r);
    return out;
}

std::optional<PushRegistration> PushRegistry::find(std::string_view id, std::chrono::sys_seconds now) const {
    std::lock_guard lock(mtx_);
    auto const it = by_id_.find(id);
    if (it == by_id_.end() || it->second.expires <= now)
        return std::nullopt;
    return it->second;
}

bool PushRegistry::remove(std::string_view id) {
    std::lock_guard lock(mtx_);
    auto const it = by_id_.find(id);
    bool const here = it != by_id_.end();
    if (here)
        by_id_.erase(it); // gone from memory regardless of the persistence: never sent to again from here
    if (!persistence_)
        return here;
    auto const there = persistence_->remove(std::string(id));
    return here || (there && *there);
}

std::size_t PushRegistry::remove_if(std::function<bool(PushRegistration const&)> const& ends) {
    std::lock_guard lock(mtx_);
    return remove_locked(ends);
}

std::size_t PushRegistry::expire(std::chrono::sys_seconds now) {
    std::lock_guard lock(mtx_);
    return expire_locked(now);
}

std::size_t PushRegistry::expire_locked(std::chrono::sys_seconds now) {
    return remove_locked([now](PushRegistration const& r) { return r.expires <= now; });
}

std::size_t PushRegistry::remove_locked(std::function<bool(PushRegistration const&)> const& ends) {
    std::size_t n = 0;
    for (auto it = by_id_.begin(); it != by_id_.end();) {
        if (!ends(it->second)) {
            ++it;
            continue;
        }
        if (persistence_)
            (void)persistence_->remove(it->first); // gone from memory regardless: never sent to again here
        it = by_id_.erase(it);
        ++n;
    }
    return n;
}

std::map<std::string, std::size_t, std::less<>> PushRegistry::counts() const {
    std::map<std::string, std::size_t, std::less<>> out;
    std::lock_guard lock(mtx_);
    for (auto const& [id, r] : by_id_)
        ++out[r.feed];
    return out;
}

std::string PushRegistry::topic(std::string_view feed) const {
    std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
    std::size_t len = 0;
    if (!EVP_Q_mac(
            nullptr,
            "HMAC",
            nullptr,
            "SHA256",
            nullptr,
            topic_key_.data(),
            topic_key_.size(),
            reinterpret_cast<unsigned char const*>(feed.data()),
            feed.size(),
            mac.data(),
            mac.size(),
            &len
        ) ||
        len < 16)
        throw std::runtime_error("OpenSSL: HMAC-SHA-256 (EVP_Q_mac) failed");
    return base64url(std::string_view(reinterpret_cast<char const*>(mac.data()), 16));
}

} // namespace icsbridge::dav
