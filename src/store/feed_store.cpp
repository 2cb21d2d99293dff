// File: feed_store.cpp
// FeedStore: the mutex-guarded table of immutable snapshots, per-feed refresh status and token digests.
#include "store/etag.hpp"
#include "store/gzip.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/store.hpp>

#include <openssl/crypto.h>

#include <filesystem>
#include <limits>

namespace icsbridge {

namespace {

using Digest = std::array<unsigned char, 32>;
constexpr std::int64_t never = std::numeric_limits<std::int64_t>::min();

/** @brief The histogram bucket of a duration: the first whose upper bound holds it, else +Inf. */
std::size_t duration_bucket(double seconds) {
    std::size_t i = 0;
    while (i < duration_buckets.size() && seconds > duration_buckets[i])
        ++i;
    return i;
}

std::shared_ptr<Snapshot const> build_snapshot(
    std::string body,
    std::string etag,
    std::size_t items,
    sys_seconds changed_at,
    sys_seconds fetched_at,
    bool gzip
) {
    auto s = std::make_shared<Snapshot>();
    if (gzip)
        s->gzip_body = gzip_compress(body);
    s->body = std::move(body);
    s->etag = std::move(etag);
    s->items = items;
    s->last_modified = changed_at;
    s->last_modified_http = format_http_date(changed_at);
    s->fetched_at = fetched_at;
    if (s->gzip_body.size() >= sendfile_min_bytes)
        s->gzip_file = SealedFile::make(s->gzip_body);
    return s;
}

} // namespace

std::shared_ptr<Snapshot const> make_snapshot(
    std::string body, std::size_t items, sys_seconds changed_at, sys_seconds fetched_at, bool gzip
) {
    auto etag = make_etag(body);
    return build_snapshot(std::move(body), std::move(etag), items, changed_at, fetched_at, gzip);
}

// ---- metrics ----

void UpstreamMetrics::set_budget_source(std::function<std::vector<BudgetGauge>()> source) {
    std::lock_guard lock(mtx_);
    budget_source_ = std::move(source);
}

std::vector<BudgetGauge> UpstreamMetrics::budgets() const {
    std::function<std::vector<BudgetGauge>()> source;
    {
        std::lock_guard lock(mtx_);
        source = budget_source_;
    }
    return source ? source() : std::vector<BudgetGauge>{};
}

void UpstreamMetrics::record(std::string_view source, unsigned status, std::chrono::duration<double> took) {
    std::string code = status >= 100 && status < 600 ? std::to_string(status / 100) + "xx" : "error";
    double s = took.count();
    std::lock_guard lock(mtx_);
    auto& h = series_[{std::string(source), std::move(code)}];
    ++h.counts[duration_bucket(s)];
    h.sum += s;
}

std::vector<UpstreamMetrics::Series> UpstreamMetrics::series() const {
    std::lock_guard lock(mtx_);
    std::vector<Series> out;
    for (auto const& [key, h] : series_)
        out.push_back(Series{key.first, key.second, h.counts, h.sum});
    return out;
}

std::size_t HttpMetrics::status_index(unsigned status) noexcept {
    for (std::size_t i = 0; i + 1 < counted_statuses.size(); ++i)
        if (counted_statuses[i] == status)
            return i;
    return counted_statuses.size() - 1;
}

void HttpMetrics::count(Route r, unsigned status) noexcept {
    counts_[static_cast<std::size_t>(r)][status_index(status)].fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t HttpMetrics::get(Route r, unsigned status) const noexcept {
    return counts_[static_cast<std::size_t>(r)][status_index(status)].load(std::memory_order_relaxed);
}

bool FeedStatus::stale(sys_seconds now) const {
    if (!last_success)
        return true;
    return now - *last_success > 2 * refresh + std::chrono::minutes(5);
}

// ---- the store ----

struct FeedStore::Entry {
    // Fixed at construction: read without the lock.
    std::string name;
    std::string title;
    bool is_public = true;
    std::chrono::seconds refresh{0};
    std::vector<std::string> subscribers;
    std::vector<std::pair<Digest, int>>
        digests; ///< token digest -> subscriber index (-1: the single `token`)
    std::unique_ptr<std::atomic<std::int64_t>[]> subscriber_last;

    // Guarded by FeedStore::mtx_.
    std::shared_ptr<Snapshot const> snap;
    std::optional<sys_seconds> last_success, last_failure;
    std::string last_error;
    std::uint64_t ok = 0, failed = 0;
    std::array<std::uint64_t, duration_buckets.size() + 1> buckets{};
    double duration_sum = 0;
};

FeedStore::FeedStore(Config const& cfg)
    : gzip_(cfg.server.gzip)
    , http_(std::make_unique<HttpMetrics>())
    , upstream_(std::make_unique<UpstreamMetrics>())
    , views_(std::make_unique<ViewCache>()) {
    for (auto const& f : cfg.feeds) {
        auto e = std::make_unique<Entry>();
        e->name = f.name;
        e->title = f.title.empty() ? f.name : f.title;
        e->is_public = f.is_public();
        e->refresh = f.refresh;
        if (!f.token.empty())
            e->digests.emplace_back(sha256(f.token), -1);
        for (auto const& [who, secret] : f.tokens) {
            e->digests.emplace_back(sha256(secret), static_cast<int>(e->subscribers.size()));
            e->subscribers.push_back(who);
        }
        e->subscriber_last = std::make_unique<std::atomic<std::int64_t>[]>(e->subscribers.size());
        for (std::size_t i = 0; i < e->subscribers.size(); ++i)
            e->subscriber_last[i].store(never);
        entries_.push_back(std::move(e));
    }
}

FeedStore::~FeedStore() = default;

FeedStore::Entry* FeedStore::find(std::string_view name) const {
    for (auto const& e : entries_)
        if (e->name == name)
            return e.get();
    return nullptr;
}

std::vector<std::string> FeedStore::names() const {
    std::vector<std::string> out;
    for (auto const& e : entries_)
        out.push_back(e->name);
    return out;
}

std::shared_ptr<Snapshot const> FeedStore::get(std::string_view name) const {
    auto* e = find(name);
    if (!e)
        return nullptr;
    std::lock_guard lock(mtx_);
    return e->snap;
}

std::pair<std::shared_ptr<Snapshot const>, bool>
FeedStore::publish(std::string_view name, std::string body, std::size_t items, sys_seconds now) {
    auto* e = find(name);
    if (!e)
        return {nullptr, false};
    // Hash and compress outside the lock: readers must never wait for this.
    auto etag = make_etag(body);
    std::shared_ptr<Snapshot const> current = get(name);
    bool changed = !current || current->etag != etag || current->items != items;
    std::shared_ptr<Snapshot const> next =
        changed ? build_snapshot(std::move(body), std::move(etag), items, now, now, gzip_) : current;
    std::lock_guard lock(mtx_);
    e->snap = next;
    e->last_success = now;
    e->last_error.clear();
    ++e->ok;
    return {next, changed};
}

void FeedStore::record_failure(std::string_view name, Error const& err, sys_seconds now) {
    auto* e = find(name);
    if (!e)
        return;
    std::lock_guard lock(mtx_);
    e->last_failure = now;
    e->last_error = err.message.empty() ? std::string(to_string(err.code)) : err.message;
    ++e->failed;
}

void FeedStore::record_fetch_duration(std::string_view name, std::chrono::duration<double> d) {
    auto* e = find(name);
    if (!e)
        return;
    double s = d.count();
    std::size_t i = duration_bucket(s);
    std::lock_guard lock(mtx_);
    ++e->buckets[i];
    e->duration_sum += s;
}

Access FeedStore::authorize(std::string_view name, std::string_view presented) const {
    auto* e = find(name);
    if (!e)
        return {};
    if (e->is_public)
        return {true, -1};
    // Compare fixed-size digests of every secret, without an early exit, so neither the length nor
    // the position of a secret shows in the response time.
    Digest d = sha256(presented);
    int match = -2;
    for (auto const& [digest, who] : e->digests) {
        bool same = CRYPTO_memcmp(digest.data(), d.data(), d.size()) == 0;
        match = same ? who : match;
    }
    if (presented.empty() || match == -2)
        return {};
    return {true, match};
}

void FeedStore::record_subscriber_fetch(std::string_view name, int subscriber, sys_seconds now) const {
    auto* e = find(name);
    if (!e || subscriber < 0 || static_cast<std::size_t>(subscriber) >= e->subscribers.size())
        return;
    e->subscriber_last[static_cast<std::size_t>(subscriber)].store(
        now.time_since_epoch().count(),
        std::memory_order_relaxed
    );
}

std::size_t FeedStore::load_dir(std::string const& dir, Logger const& log) {
    std::size_t loaded = 0;
    for (auto const& e : entries_) {
        // A missing file is normal on first start; anything else is worth a warning.
        std::error_code ec;
        if (!std::filesystem::exists(dir + "/" + e->name + ".snapshot", ec))
            continue;
        auto snap = load_snapshot(dir, e->name, gzip_);
        if (!snap) {
            log.warn("feed " + e->name + ": ignoring stored snapshot: " + snap.error().message);
            continue;
        }
        std::lock_guard lock(mtx_);
        // The stored fetched_at is the last success before the restart: without it /healthz would call
        // every feed stale until its first refresh, and an upstream that is down keeps it that way.
        e->last_success = (*snap)->fetched_at;
        e->snap = *snap;
        ++loaded;
    }
    return loaded;
}

std::vector<FeedStatus> FeedStore::status() const {
    std::vector<FeedStatus> out;
    std::lock_guard lock(mtx_);
    for (auto const& e : entries_) {
        FeedStatus s;
        s.name = e->name;
        s.title = e->title;
        s.is_public = e->is_public;
        s.refresh = e->refresh;
        s.last_success = e->last_success;
        s.last_failure = e->last_failure;
        s.last_error = e->last_error;
        s.refreshes_ok = e->ok;
        s.refreshes_failed = e->failed;
        s.duration_counts = e->buckets;
        s.duration_sum = e->duration_sum;
        s.snapshot = e->snap;
        for (std::size_t i = 0; i < e->subscribers.size(); ++i) {
            auto v = e->subscriber_last[i].load(std::memory_order_relaxed);
            SubscriberStatus sub{e->subscribers[i], std::nullopt};
            if (v != never)
                sub.last_fetch = sys_seconds{std::chrono::seconds{v}};
            s.subscribers.push_back(std::move(sub));
        }
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace icsbridge
