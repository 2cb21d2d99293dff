// File: render.cpp
// render_events / render_jobs: order the items, pick the VTIMEZONEs, and assemble the calendar from
// separately serialised blocks (header + VTIMEZONEs + items + footer), reusing cached blocks.
#include "ical/builder.hpp"
#include "ical/item_hash.hpp"
#include "ical/render_cache.hpp"
#include "ical/text.hpp"
#include "ical/timezones.hpp"
#include <icsbridge/ical.hpp>

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_set>

namespace icsbridge {

RenderCache::RenderCache()
    : impl_(std::make_unique<Impl>()) {}
RenderCache::~RenderCache() = default;
RenderCache::RenderCache(RenderCache&&) noexcept = default;
RenderCache& RenderCache::operator=(RenderCache&&) noexcept = default;

RenderCache::Stats RenderCache::stats() const {
    return Stats{impl_->hits, impl_->misses, impl_->events.size(), impl_->jobs.size()};
}

namespace {

using CacheAccess = ical_detail::RenderCacheAccess;

// Items in output order. Duplicate ids (an item seen on two upstream pages) are skipped by BlockWriter.
template <class T, class Less>
std::vector<T const*> ordered(std::span<T const> items, Less less, auto keep) {
    std::vector<T const*> out;
    out.reserve(items.size());
    for (auto const& item : items)
        if (keep(item))
            out.push_back(&item);
    std::stable_sort(out.begin(), out.end(), [&](T const* a, T const* b) { return less(*a, *b); });
    return out;
}

/**
 * Appends each item's block(s) to `out`: from the cache when the item's hash matches, else freshly
 * built; the first item with a given key wins, later ones with the same key are skipped. The key is the
 * id as the UID writes it, so two upstream ids that differ only in what the UID cleans away (a CR/LF,
 * a run of spaces) can never give two items one UID.
 */
class BlockWriter {
  public:
    using Impl = CacheAccess::Impl;

    BlockWriter(RenderCache* cache, Impl::Items Impl::*items, Impl::Order Impl::*order, std::string& out)
        : cache_(cache)
        , out_(out) {
        if (cache_) {
            items_ = &(CacheAccess::impl(*cache_).*items);
            order_ = &(CacheAccess::impl(*cache_).*order);
            // Taken out for the render: on failure the old order (which may name erased entries) is gone.
            previous_ = std::move(*order_);
            order_->clear();
            next_.reserve(previous_.size());
        }
    }

    /** Call after the last item: keeps this render's order for the next one. */
    void finish() {
        if (cache_)
            *order_ = std::move(next_);
    }

    /** `hash()` gives the item's cache hash; `build(std::string&)` appends its block(s). */
    template <class Hash, class Build>
    Result<void> item(std::string_view raw_id, Hash hash, Build build) {
        std::string const id = ical::one_line(raw_id);
        if (cache_ == nullptr) {
            if (!seen_.insert(id).second)
                return {};
            return build(out_);
        }
        auto& impl = CacheAccess::impl(*cache_);
        std::size_t const position = position_++;
        Impl::Items::value_type* node = nullptr;
        if (position < previous_.size() && previous_[position]->first == id)
            node = previous_[position];
        else if (auto it = items_->find(id); it != items_->end())
            node = &*it;
        else
            node = &*items_->emplace(id, Impl::Entry{}).first;
        auto& entry = node->second;
        // The cache marks what this render already wrote, so it doubles as the duplicate check.
        if (entry.generation == impl.generation)
            return {};
        std::uint64_t const h = hash();
        if (entry.generation != 0 && entry.hash == h) {
            ++impl.hits;
        } else {
            ++impl.misses;
            entry.block.clear();
            if (auto r = build(entry.block); !r) {
                items_->erase(id);
                return r;
            }
            entry.hash = h;
        }
        entry.generation = impl.generation;
        next_.push_back(node);
        out_.append(entry.block);
        return {};
    }

  private:
    RenderCache* cache_;
    Impl::Items* items_ = nullptr;
    Impl::Order* order_ = nullptr;
    Impl::Order previous_, next_;
    std::size_t position_ = 0;
    std::string& out_;
    std::unordered_set<std::string> seen_;
};

struct CacheScope {
    RenderCache* cache;
    explicit CacheScope(RenderCache* c)
        : cache(c) {
        if (cache)
            CacheAccess::impl(*cache).begin_render();
    }
    ~CacheScope() {
        if (cache)
            CacheAccess::impl(*cache).end_render();
    }
};

Result<std::string> vtimezone_cached(
    RenderCache* cache, std::string const& name, icaltimezone* zone, int first_year, int last_year
) {
    if (cache == nullptr)
        return ical::vtimezone_text(name, zone, first_year, last_year);
    auto& tzs = CacheAccess::impl(*cache).vtimezones;
    auto key = std::make_tuple(name, first_year, last_year);
    if (auto it = tzs.find(key); it != tzs.end())
        return it->second;
    auto text = ical::vtimezone_text(name, zone, first_year, last_year);
    if (text)
        tzs.emplace(std::move(key), *text);
    return text;
}

std::string display_name(CalendarMeta const& meta) {
    return meta.title.empty() ? meta.feed_name : meta.title;
}

} // namespace

std::vector<PrebuiltBlock> prebuild_events(
    CalendarMeta const& meta,
    std::span<Event const> events,
    EventRenderOptions const& opts,
    RenderCache const* cache
) {
    std::vector<PrebuiltBlock> out;
    out.reserve(events.size());
    ical::ZoneTable zones;
    for (Event const& e : events) {
        if (e.cancelled() && opts.cancelled == CancelledPolicy::drop)
            continue;
        PrebuiltBlock b{ical::one_line(e.id), ical::event_hash(e, meta, opts), {}};
        if (cache) {
            auto const& kept = CacheAccess::impl(*cache).events;
            if (auto it = kept.find(b.key);
                it != kept.end() && it->second.generation != 0 && it->second.hash == b.hash)
                continue;
        }
        // On failure the render builds it again and reports the error in context.
        if (ical::append_event(e, meta, opts, zones, b.block))
            out.push_back(std::move(b));
    }
    return out;
}

void adopt_blocks(RenderCache& cache, std::vector<PrebuiltBlock> blocks) {
    auto& impl = CacheAccess::impl(cache);
    // Generation 0 marks an entry no render has built: lift a new cache's counter so these count as built.
    impl.generation = std::max<std::uint64_t>(impl.generation, 1);
    for (auto& b : blocks) {
        auto& entry = impl.events[std::move(b.key)];
        entry.block = std::move(b.block);
        entry.hash = b.hash;
        entry.generation = impl.generation;
    }
}

void prerender_events(
    CalendarMeta const& meta,
    std::span<Event const> events,
    EventRenderOptions const& opts,
    RenderCache& cache
) {
    adopt_blocks(cache, prebuild_events(meta, events, opts, &cache));
}

namespace {

/** @brief What the events need of the zone table: the zones it knows that they use, the years they span,
 * and a guess of the calendar's size. */
struct EventZones {
    std::set<std::string> used;
    int first_year = 0;
    int last_year = 0;
    std::size_t estimate = 4096;
};

EventZones event_zones(std::vector<Event const*> const& items, ical::ZoneTable& zones) {
    EventZones z;
    std::unordered_set<std::string_view> seen;
    std::optional<sys_seconds> earliest, latest;
    for (Event const* e : items) {
        for (std::string_view name : ical::event_zone_names(*e))
            if (seen.insert(name).second && zones.find(std::string(name)) != nullptr)
                z.used.emplace(name);
        for (sys_seconds t : {e->start.utc, e->end.utc}) {
            if (t == sys_seconds{})
                continue;
            earliest = earliest ? std::min(*earliest, t) : t;
            latest = latest ? std::max(*latest, t) : t;
        }
        z.estimate += 700 + e->description_text.size() + 2 * e->description_html.size() +
                      2 * (e->name.size() + e->url.size());
    }
    z.first_year = earliest ? ical::utc_year(*earliest) : 0;
    z.last_year = latest ? ical::utc_year(*latest) : 0;
    return z;
}

} // namespace

Result<std::string> render_events(
    CalendarMeta const& meta,
    std::span<Event const> events,
    EventRenderOptions const& opts,
    RenderCache* cache
) {
    auto const items = ordered(
        events,
        [](Event const& a, Event const& b) {
            return std::tie(a.start.utc, a.id) < std::tie(b.start.utc, b.id);
        },
        [&](Event const& e) { return !(e.cancelled() && opts.cancelled == CancelledPolicy::drop); }
    );
    CacheScope scope(cache);

    // Zones first: the VTIMEZONEs go before the events, and the output is written in one pass.
    ical::ZoneTable zones;
    EventZones const z = event_zones(items, zones);

    auto header =
        ical::calendar_header(meta, "Events from " + display_name(meta) + ", published by icsbridge");
    if (!header)
        return header.error();
    std::string out;
    out.reserve(z.estimate + header->size());
    out.append(*header);
    // Whole years with a year of margin: the range (and so the VTIMEZONE bytes) rarely changes between
    // refreshes, and a time near New Year in UTC may fall in the neighbouring year locally.
    for (auto const& name : z.used) {
        auto text = vtimezone_cached(cache, name, zones.find(name), z.first_year - 1, z.last_year + 1);
        if (!text)
            return text.error();
        out.append(*text);
    }
    BlockWriter blocks(cache, &CacheAccess::Impl::events, &CacheAccess::Impl::events_order, out);
    for (Event const* e : items) {
        auto r = blocks.item(
            e->id,
            [&] { return ical::event_hash(*e, meta, opts); },
            [&](std::string& dst) { return ical::append_event(*e, meta, opts, zones, dst); }
        );
        if (!r)
            return r.error();
    }
    blocks.finish();
    out.append(ical::calendar_footer);
    return out;
}

Result<std::string> render_jobs(
    CalendarMeta const& meta, std::span<JobPost const> posts, JobRenderOptions const& opts, RenderCache* cache
) {
    auto const posted_key = [](JobPost const& p) {
        auto const& d = p.posted;
        return std::tie(d.year, d.month, d.day, d.hour, d.minute, d.second, p.id);
    };
    auto const items = ordered(
        posts,
        [&](JobPost const& a, JobPost const& b) { return posted_key(a) < posted_key(b); },
        [](JobPost const&) { return true; }
    );
    CacheScope scope(cache);

    auto header =
        ical::calendar_header(meta, "Job posts from " + display_name(meta) + ", published by icsbridge");
    if (!header)
        return header.error();
    std::size_t estimate = header->size() + 64;
    for (JobPost const* p : items)
        estimate += (opts.jobs_as == JobsAs::both ? 2 : 1) *
                    (800 + p->description_html.size() + p->perks.size() + p->howto_apply.size());
    std::string out;
    out.reserve(estimate);
    out.append(*header);
    BlockWriter blocks(cache, &CacheAccess::Impl::jobs, &CacheAccess::Impl::jobs_order, out);
    for (JobPost const* p : items) {
        auto r = blocks.item(
            p->id,
            [&] { return ical::job_hash(*p, meta, opts); },
            [&](std::string& dst) { return ical::append_job(*p, meta, opts, dst); }
        );
        if (!r)
            return r.error();
    }
    blocks.finish();
    out.append(ical::calendar_footer);
    return out;
}

} // namespace icsbridge
