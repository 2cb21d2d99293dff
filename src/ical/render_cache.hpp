// File: render_cache.hpp
// RenderCache internals: serialised item blocks keyed by (kind, id) with a hash of everything that
// shapes the block, and VTIMEZONE texts keyed by (zone, years). Private to src/ical and the tests.
#pragma once

#include <icsbridge/ical.hpp>

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace icsbridge {

/** @brief A fast 64-bit hash for change detection (not for security). */
class ItemHasher {
  public:
    void add(std::uint64_t v) { h_ = mix(h_, v); }
    void add(std::string_view s) {
        add(static_cast<std::uint64_t>(s.size()));
        char const* p = s.data();
        std::size_t n = s.size();
        if (n >= 32) {
            // Four independent lanes: descriptions are most of the bytes hashed on every refresh.
            std::uint64_t lane[4] = {h_, h_ ^ k1, h_ ^ k2, h_ ^ k3};
            for (; n >= 32; p += 32, n -= 32)
                for (std::size_t i = 0; i < 4; ++i)
                    lane[i] = mix(lane[i], load(p + 8 * i));
            for (std::uint64_t l : lane)
                add(l);
        }
        for (; n >= 8; p += 8, n -= 8)
            add(load(p));
        if (n > 0) {
            std::uint64_t w = 0;
            std::memcpy(&w, p, n);
            add(w);
        }
    }
    void add(char const* s) { add(std::string_view(s)); }
    void add(std::string const& s) { add(std::string_view(s)); }
    void add(bool b) { add(static_cast<std::uint64_t>(b ? 1 : 0)); }
    void add(int v) { add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
    void add(long long v) { add(static_cast<std::uint64_t>(v)); }
    void add(double d) {
        std::uint64_t w;
        std::memcpy(&w, &d, sizeof w);
        add(w);
    }
    void add(sys_seconds t) { add(static_cast<long long>(t.time_since_epoch().count())); }
    template <class T>
    void add(std::optional<T> const& o) {
        add(o.has_value());
        if (o)
            add(*o);
    }

    std::uint64_t value() const {
        std::uint64_t h = h_;
        h ^= h >> 33;
        h *= 0xFF51AFD7ED558CCDull;
        h ^= h >> 33;
        return h;
    }

  private:
    static constexpr std::uint64_t k1 = 0x9E3779B97F4A7C15ull, k2 = 0xC2B2AE3D27D4EB4Full,
                                   k3 = 0x165667B19E3779F9ull;

    static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
        h ^= v * k1;
        return ((h << 31) | (h >> 33)) * k2;
    }
    static std::uint64_t load(char const* p) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        return w;
    }

    std::uint64_t h_ = 0x84222325CBF29CE4ull;
};

struct RenderCache::Impl {
    struct Entry {
        std::uint64_t hash = 0;
        std::string block;
        std::uint64_t generation = 0;
    };

    using Items = std::unordered_map<std::string, Entry>;
    /** The entries in the order a render wrote them: the next render mostly visits the same items in the
     * same order, so checking the entry at the same position saves a hash lookup per item. */
    using Order = std::vector<Items::value_type*>;
    Items events; ///< by Event::id
    Items jobs;   ///< by JobPost::id
    Order events_order, jobs_order;
    std::map<std::tuple<std::string, int, int>, std::string, std::less<>> vtimezones;
    std::uint64_t generation = 0;
    std::size_t hits = 0;   ///< blocks reused by the last render
    std::size_t misses = 0; ///< blocks built by the last render

    /** Starts a render: counters reset, entries not touched by it are dropped in end_render(). */
    void begin_render() {
        ++generation;
        hits = misses = 0;
    }
    void end_render() {
        for (Items* items : {&events, &jobs})
            std::erase_if(*items, [&](auto const& kv) { return kv.second.generation != generation; });
    }
};

namespace ical_detail {

/** @brief The renderer's access to a RenderCache's insides (which stay private to everyone else). */
struct RenderCacheAccess {
    using Impl = RenderCache::Impl;
    static Impl& impl(RenderCache& cache) { return *cache.impl_; }
    static Impl const& impl(RenderCache const& cache) { return *cache.impl_; }
};

} // namespace ical_detail

} // namespace icsbridge
