// File: ical.hpp
// Model -> iCalendar text (RFC 5545) through libical: events as VEVENTs, job posts as VTODOs
// (or all-day VEVENTs). Pure: no I/O, `now` is never read; same input gives byte-identical output.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/model.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

/** @brief Calendar-level properties. */
struct CalendarMeta {
    std::string feed_name;                                  ///< used when title is empty
    std::string title;                                      ///< NAME / X-WR-CALNAME
    std::string description;                                ///< X-WR-CALDESC (empty: a generated one)
    std::chrono::seconds refresh{std::chrono::minutes(15)}; ///< REFRESH-INTERVAL / X-PUBLISHED-TTL
    std::string uid_domain = "icsbridge"; ///< right-hand side of every UID (the upstream's host)
};

struct EventRenderOptions {
    std::optional<std::chrono::seconds> alarm;
    CancelledPolicy cancelled = CancelledPolicy::status;
};

struct JobRenderOptions {
    std::chrono::seconds due_after{std::chrono::days(30)};
    JobsAs jobs_as = JobsAs::vtodo;
};

namespace ical_detail {
struct RenderCacheAccess;
} // namespace ical_detail

/**
 * @brief Keeps the rendered text of each item keyed by its identity and change time, so a refresh
 * where little changed reuses blocks instead of rebuilding them. One per feed; not thread-safe.
 */
class RenderCache {
  public:
    RenderCache();
    ~RenderCache();
    RenderCache(RenderCache&&) noexcept;
    RenderCache& operator=(RenderCache&&) noexcept;

    /** @brief What the last render did with the cache, and what it holds now. */
    struct Stats {
        std::size_t hits = 0;   ///< blocks reused by the last render
        std::size_t misses = 0; ///< blocks built by the last render
        std::size_t events = 0; ///< event blocks kept
        std::size_t jobs = 0;   ///< job post blocks kept
    };
    Stats stats() const;

  private:
    friend struct ical_detail::RenderCacheAccess; // the renderer's way in (src/ical/render_cache.hpp)
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/** @brief A VCALENDAR of VEVENTs (with one VTIMEZONE per zone used). errc::render_failed if libical refuses.
 */
Result<std::string> render_events(
    CalendarMeta const& meta,
    std::span<Event const> events,
    EventRenderOptions const& opts,
    RenderCache* cache = nullptr
);

/** @brief An event's block built ahead of a render (prebuild_events), waiting to enter a cache. */
struct PrebuiltBlock {
    std::string key;        ///< the id as the UID writes it
    std::uint64_t hash = 0; ///< of everything that shapes the block: the render checks it before use
    std::string block;
};

/**
 * @brief The blocks of `events` that `cache` lacks or holds for another version of the event, built
 * without changing the cache. Several threads may build at once (each call has its own zone table;
 * libical's zone cache locks itself), provided nothing changes `cache` meanwhile.
 */
std::vector<PrebuiltBlock> prebuild_events(
    CalendarMeta const& meta,
    std::span<Event const> events,
    EventRenderOptions const& opts,
    RenderCache const* cache = nullptr
);

/** @brief Moves blocks from prebuild_events() into `cache`, for the next render_events() to reuse. */
void adopt_blocks(RenderCache& cache, std::vector<PrebuiltBlock> blocks);

/**
 * @brief Builds the blocks of `events` into `cache` ahead of render_events() (same meta and options), for
 * the pages of a long list while the next ones travel: the render then only assembles. An event that
 * changes before the render is rebuilt there (the cache checks each item's hash), so the calendar is the
 * same byte for byte; blocks the render does not use are dropped by it.
 */
void prerender_events(
    CalendarMeta const& meta,
    std::span<Event const> events,
    EventRenderOptions const& opts,
    RenderCache& cache
);

/** @brief A VCALENDAR of VTODOs and/or all-day VEVENTs for job posts. */
Result<std::string> render_jobs(
    CalendarMeta const& meta,
    std::span<JobPost const> posts,
    JobRenderOptions const& opts,
    RenderCache* cache = nullptr
);

/** @brief One part of a merged calendar: the feed's name (for messages) and the calendar it published. */
struct CalendarPart {
    std::string_view feed;
    std::string_view ics;
};

/** @brief A rendered calendar (a feed's, or a merged one) and how many VEVENTs and VTODOs it holds. */
struct Calendar {
    std::string ics;       ///< the whole calendar
    std::size_t items = 0; ///< events or job posts in it (after the cancelled policy)
};

/** @brief What a merged feed itself does to the items it carries over: its own `filter` and `alarm`. */
struct MergeOptions {
    FeedFilter filter; ///< an item must pass it as well as its part's own filter (empty: all pass)
    /// Replaces the parts' reminders: one this long before each event that is not cancelled
    std::optional<std::chrono::seconds> alarm;
};

/**
 * @brief The VEVENTs and VTODOs of `parts` in one calendar with `meta`'s properties: in part order, each
 * item as its part published it (own UID; an item whose UID an earlier part already gave is left out),
 * one VTIMEZONE per TZID the kept items use (rebuilt to cover every item when parts carry different
 * ranges of one zone). `opts` filters the items and replaces their reminders. Pure: the same parts give
 * the same bytes.
 * @return errc::render_failed naming the part when its calendar cannot be read
 */
Result<Calendar>
merge_calendars(CalendarMeta const& meta, std::span<CalendarPart const> parts, MergeOptions const& opts = {});

/** @brief HTML description -> readable plain text: paragraphs, list items, links as URLs, entities decoded.
 */
std::string html_to_text(std::string_view html);

/**
 * @brief HTML description -> a safe HTML document for X-ALT-DESC: only formatting tags are kept (no
 * script, style, iframe, event handler or other attribute; `<a href>` only with http(s), mailto or tel),
 * text re-escaped, tags balanced. Empty when the HTML holds no text.
 */
std::string sanitize_html(std::string_view html);

/** @brief Whether the system knows the zone `name` ("Area/City" or "UTC"), as the agenda's `?tz=` asks. */
bool known_time_zone(std::string const& name);

/**
 * @brief Every feed's `timezone` is one the system knows; else errc::config_invalid at its FILE:LINE:COL
 * (the loader checks only its form: the lookup is libical's).
 */
Result<void> check_feed_zones(Config const& cfg);

/**
 * @brief Process-wide libical settings, and the tables libical builds lazily without a lock, built now.
 * Safe to call again (main() calls it first; each PrerenderPool before its workers start, for callers
 * without main()); the first call must come before a second thread uses libical.
 */
void init_libical();

} // namespace icsbridge
