// File: render_cache.hpp
// RenderCache internals: serialised item blocks keyed by (kind, id) with a hash of everything that
// shapes the block, and VTIMEZONE texts keyed by (zone, years). Private to src/ical and the tests.
#pragma once

#include <icsbridge/calendar.hpp>

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace icsbridge {

/** @brief A fast 64-bit hash for change detection (not for security). */
class ItemHasher {
  public:
    void add(std::uint64_t v) {
        h_ ^= v * 0x9E3779B97F4A7C15ull;
        h_ = ((h_ << 31) | (h_ >> 33)) * 0xC2B2AE3D27D4EB4Full;
    }
    void add(std::string_view s) {
        add(static_cast<std::uint64_t>(s.size()));
        std::size_t i = 0;
        for (; i + 8 <= s.size(); i += 8) {
            std::uint64_t w;
            std::memcpy(&w, s.data() + i, 8);
            add(w);
        }
        if (i < s.size()) {
            std::uint64_t w = 0;
            std::memcpy(&w, s.data() + i, s.size() - i);
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
    std::uint64_t h_ = 0x84222325CBF29CE4ull;
};

struct RenderCache::Impl {
    struct Entry {
        std::uint64_t hash = 0;
        std::string block;
        std::uint64_t generation = 0;
    };

    /** Key "E\0id" for events, "J\0id" for job posts. */
    std::unordered_map<std::string, Entry> items;
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
        std::erase_if(items, [&](auto const& kv) { return kv.second.generation != generation; });
    }
};

} // namespace icsbridge
