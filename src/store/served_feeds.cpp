// File: served_feeds.cpp
// ServedFeeds: the served table of immutable snapshots, per-feed refresh status and token digests.
#include "net/http_date.hpp"
#include "store/gzip.hpp"
#include <icsbridge/digest.hpp>
#include <icsbridge/store.hpp>

#include <openssl/crypto.h>

#include <filesystem>
#include <limits>
#include <map>

namespace icsbridge {

namespace {

using Digest = std::array<unsigned char, 32>;
constexpr std::int64_t never = std::numeric_limits<std::int64_t>::min();

std::shared_ptr<Snapshot const> build_snapshot(
    std::string body,
    std::string etag,
    std::size_t items,
    sys_seconds changed_at,
    sys_seconds fetched_at,
    bool gzip,
    std::string definition,
    SnapshotFiles const* files
) {
    auto s = std::make_shared<Snapshot>();
    s->definition = std::move(definition);
    if (gzip)
        s->gzip_body = gzip_compress(body);
    s->body = SnapshotBody(std::move(body), files);
    s->etag = std::move(etag);
    s->items = items;
    s->last_modified = changed_at;
    s->last_modified_http = format_http_date(changed_at);
    s->fetched_at = fetched_at;
    if (s->gzip_body.size() >= sendfile_min_bytes)
        s->gzip_file = files != nullptr ? files->make(s->gzip_body) : SealedFile::make(s->gzip_body);
    return s;
}

} // namespace

std::shared_ptr<Snapshot const> make_snapshot(
    std::string body,
    std::size_t items,
    sys_seconds changed_at,
    sys_seconds fetched_at,
    bool gzip,
    std::string etag,
    std::string definition,
    SnapshotFiles const* files
) {
    if (etag.empty())
        etag = make_etag(body);
    return build_snapshot(
        std::move(body),
        std::move(etag),
        items,
        changed_at,
        fetched_at,
        gzip,
        std::move(definition),
        files
    );
}

std::string definition_of(Config const& cfg, FeedConfig const& f) {
    // Unit and record separators cannot occur in the parts: distinct definitions never collide.
    std::string text = "icsbridge-definition-1\x1f" + std::string(f.is_public() ? "public" : "private");
    if (auto src = cfg.sources.find(f.source); src != cfg.sources.end())
        text += "\x1f" + std::to_string(static_cast<int>(src->second.type)) + "\x1f" + src->second.base_url;
    text += "\x1f" + f.source + "\x1f" + f.select + "\x1f" + f.organization_id + "\x1f" +
            (f.window ? std::to_string(f.window->count()) : "-") + "\x1f" + (f.ticket_classes ? "tc" : "-");
    for (auto const& [k, v] : f.params)
        text += "\x1f" + k + "\x1e" + v;
    for (auto const& part : f.merge)
        text += "\x1fpart\x1e" + part;
    return to_hex(sha256(text));
}

bool FeedStatus::stale(sys_seconds now) const {
    if (!last_success)
        return true;
    return now - *last_success > 2 * refresh + std::chrono::minutes(5);
}

// ---- the store ----

struct ServedFeeds::Entry {
    std::string name; // fixed

    // Guarded by ServedFeeds::mtx_. A reload replaces `settings` whole; everything else outlives it.
    std::shared_ptr<FeedSettings const> settings;
    std::shared_ptr<Snapshot const> snap;
    std::optional<sys_seconds> last_success, last_failure;
    std::string last_error;
    std::uint64_t ok = 0, failed = 0;
    std::array<std::uint64_t, duration_buckets.size() + 1> buckets{};
    double duration_sum = 0;
    bool lease_held = false; ///< cluster mode: this replica holds the lease of the feed's fetch group
};

namespace {

/** @brief A feed's serving settings; a subscriber's last fetch carries over from `before` by name. */
std::shared_ptr<FeedSettings const>
make_settings(Config const& cfg, FeedConfig const& f, FeedSettings const* before) {
    auto s = std::make_shared<FeedSettings>();
    s->definition = definition_of(cfg, f);
    s->title = f.title.empty() ? f.name : f.title;
    s->is_public = f.is_public();
    s->refresh = f.refresh;
    s->merge = f.merge;
    if (!f.token.empty())
        s->digests.emplace_back(sha256(f.token), -1);
    for (auto const& [who, secret] : f.tokens) {
        s->digests.emplace_back(sha256(secret), static_cast<int>(s->subscribers.size()));
        s->subscribers.push_back(who);
    }
    s->subscriber_last = std::make_unique<std::atomic<std::int64_t>[]>(s->subscribers.size());
    for (std::size_t i = 0; i < s->subscribers.size(); ++i) {
        std::int64_t last = never;
        for (std::size_t j = 0; before && j < before->subscribers.size(); ++j)
            if (before->subscribers[j] == s->subscribers[i])
                last = before->subscriber_last[j].load(std::memory_order_relaxed);
        s->subscriber_last[i].store(last);
    }
    return s;
}

} // namespace

ServedFeeds::ServedFeeds(Config const& cfg)
    : gzip_(cfg.server.gzip)
    , files_(std::make_shared<SnapshotFiles const>(cfg.storage.dir)) {
    reconfigure(cfg);
}

ServedFeeds::~ServedFeeds() = default;

void ServedFeeds::reconfigure(Config const& cfg) {
    // Entries of feeds that stay, with their settings, taken in one go; the new settings are built outside
    // the lock (hashing every token), then swapped in at once.
    std::map<std::string, std::pair<std::shared_ptr<Entry>, std::shared_ptr<FeedSettings const>>, std::less<>>
        current;
    {
        std::lock_guard lock(mtx_);
        for (auto const& e : entries_)
            current.emplace(e->name, std::pair(e, e->settings));
    }
    std::vector<std::shared_ptr<Entry>> next;
    std::vector<std::shared_ptr<FeedSettings const>> settings;
    for (auto const& f : cfg.feeds) {
        auto it = current.find(f.name);
        auto e = it != current.end() ? it->second.first : std::make_shared<Entry>();
        if (it == current.end())
            e->name = f.name; // fixed from here on: read without the lock
        settings.push_back(make_settings(cfg, f, it != current.end() ? it->second.second.get() : nullptr));
        next.push_back(std::move(e));
    }
    std::lock_guard lock(mtx_);
    for (std::size_t i = 0; i < next.size(); ++i) {
        // Another question, or readable by others than before: what was fetched goes, never served again.
        if (next[i]->settings && next[i]->settings->definition != settings[i]->definition)
            next[i]->snap.reset();
        next[i]->settings = std::move(settings[i]);
    }
    entries_ = std::move(next);
}

std::shared_ptr<ServedFeeds::Entry> ServedFeeds::find(std::string_view name) const {
    std::lock_guard lock(mtx_);
    return find_locked(name);
}

std::shared_ptr<ServedFeeds::Entry> ServedFeeds::find_locked(std::string_view name) const {
    for (auto const& e : entries_)
        if (e->name == name)
            return e;
    return nullptr;
}

std::vector<std::string> ServedFeeds::names() const {
    std::lock_guard lock(mtx_);
    std::vector<std::string> out;
    for (auto const& e : entries_)
        out.push_back(e->name);
    return out;
}

std::shared_ptr<Snapshot const> ServedFeeds::get(std::string_view name) const {
    std::lock_guard lock(mtx_);
    auto e = find_locked(name);
    return e ? e->snap : nullptr;
}

std::string ServedFeeds::definition(std::string_view name) const {
    std::lock_guard lock(mtx_);
    auto e = find_locked(name);
    return e ? e->settings->definition : std::string();
}

bool ServedFeeds::put(
    std::string_view name, std::shared_ptr<Snapshot const> snap, sys_seconds success_at, bool refreshed
) {
    std::lock_guard lock(mtx_);
    auto e = find_locked(name);
    if (!e)
        return false;
    if (snap)
        e->snap = std::move(snap);
    e->last_success = success_at;
    if (refreshed) {
        e->last_error.clear();
        ++e->ok;
    }
    return true;
}

void ServedFeeds::record_failure(std::string_view name, Error const& err, sys_seconds now) {
    std::lock_guard lock(mtx_);
    auto e = find_locked(name);
    if (!e)
        return;
    e->last_failure = now;
    e->last_error = err.message.empty() ? std::string(to_string(err.code)) : err.message;
    ++e->failed;
}

void ServedFeeds::record_fetch_duration(std::string_view name, std::chrono::duration<double> d) {
    double s = d.count();
    std::size_t i = duration_bucket(s);
    std::lock_guard lock(mtx_);
    auto e = find_locked(name);
    if (!e)
        return;
    ++e->buckets[i];
    e->duration_sum += s;
}

namespace {

/** @brief Every secret's digest compared, without an early exit: the time shows neither length nor place. */
Access check_token(FeedSettings const& s, Digest const& presented, bool empty) {
    if (s.is_public)
        return {true, -1};
    int match = -2;
    for (auto const& [digest, who] : s.digests) {
        bool same = CRYPTO_memcmp(digest.data(), presented.data(), presented.size()) == 0;
        match = same ? who : match;
    }
    if (empty || match == -2)
        return {};
    return {true, match};
}

} // namespace

FeedLookup ServedFeeds::lookup(std::string_view name, std::string_view presented) const {
    // Outside the lock. No token presented, nothing to hash: a public feed needs none and a token feed
    // refuses an empty one whatever the digests, so skipping it tells nobody anything about a secret.
    Digest const d = presented.empty() ? Digest{} : sha256(presented);
    FeedLookup out;
    {
        std::lock_guard lock(mtx_);
        auto e = find_locked(name);
        if (!e)
            return out;
        out.settings = e->settings;
        out.snapshot = e->snap;
    }
    out.access = check_token(*out.settings, d, presented.empty());
    if (!out.access.allowed)
        out.snapshot.reset();
    return out;
}

Access ServedFeeds::authorize(std::string_view name, std::string_view presented) const {
    return lookup(name, presented).access;
}

void FeedLookup::record_fetch(sys_seconds now) const {
    if (!settings || access.subscriber < 0 ||
        static_cast<std::size_t>(access.subscriber) >= settings->subscribers.size())
        return;
    settings->subscriber_last[static_cast<std::size_t>(access.subscriber)].store(
        now.time_since_epoch().count(),
        std::memory_order_relaxed
    );
}

void ServedFeeds::record_subscriber_fetch(std::string_view name, int subscriber, sys_seconds now) const {
    FeedLookup l;
    {
        std::lock_guard lock(mtx_);
        auto e = find_locked(name);
        if (!e)
            return;
        l.settings = e->settings;
    }
    l.access = {true, subscriber};
    l.record_fetch(now);
}

std::vector<FeedStatus> ServedFeeds::status() const {
    std::vector<FeedStatus> out;
    std::lock_guard lock(mtx_);
    for (auto const& e : entries_) {
        FeedStatus s;
        s.name = e->name;
        s.title = e->settings->title;
        s.is_public = e->settings->is_public;
        s.refresh = e->settings->refresh;
        s.last_success = e->last_success;
        s.last_failure = e->last_failure;
        s.last_error = e->last_error;
        s.refreshes_ok = e->ok;
        s.refreshes_failed = e->failed;
        s.duration_counts = e->buckets;
        s.duration_sum = e->duration_sum;
        s.snapshot = e->snap;
        s.merge = e->settings->merge;
        if (cluster_)
            s.lease_held = e->lease_held;
        auto const& set = *e->settings;
        for (std::size_t i = 0; i < set.subscribers.size(); ++i) {
            auto v = set.subscriber_last[i].load(std::memory_order_relaxed);
            SubscriberStatus sub{set.subscribers[i], std::nullopt};
            if (v != never)
                sub.last_fetch = sys_seconds{std::chrono::seconds{v}};
            s.subscribers.push_back(std::move(sub));
        }
        out.push_back(std::move(s));
    }
    return out;
}

void ServedFeeds::record_reload(ReloadStatus r) {
    std::lock_guard lock(mtx_);
    reload_ = std::move(r);
}

std::optional<ReloadStatus> ServedFeeds::last_reload() const {
    std::lock_guard lock(mtx_);
    return reload_;
}

void ServedFeeds::record_cluster(bool connected) {
    std::lock_guard lock(mtx_);
    cluster_ = connected;
}

void ServedFeeds::record_lease(std::string_view name, bool held) {
    std::lock_guard lock(mtx_);
    if (auto e = find_locked(name))
        e->lease_held = held;
}

void ServedFeeds::merge_subscriber_fetch(std::string_view feed, std::string_view subscriber, sys_seconds at) {
    std::shared_ptr<FeedSettings const> set;
    {
        std::lock_guard lock(mtx_);
        if (auto e = find_locked(feed))
            set = e->settings;
    }
    if (!set)
        return;
    for (std::size_t i = 0; i < set->subscribers.size(); ++i) {
        if (set->subscribers[i] != subscriber)
            continue;
        // A request on this replica may store a newer time meanwhile: only ever move forward.
        auto& last = set->subscriber_last[i];
        auto cur = last.load(std::memory_order_relaxed);
        auto const t = at.time_since_epoch().count();
        while (cur < t && !last.compare_exchange_weak(cur, t, std::memory_order_relaxed)) {
        }
    }
}

std::optional<bool> ServedFeeds::cluster_connected() const {
    std::lock_guard lock(mtx_);
    return cluster_;
}

} // namespace icsbridge
