// File: merged_feeds.cpp
// MergedFeeds: rebuilds a merged feed from its parts' snapshots when one of them is published, and hands
// it to the Publisher like a refresher would. render_merged(): the calendar itself, also used by `export`.
#include <icsbridge/merge.hpp>

#include <algorithm>
#include <optional>

namespace icsbridge {

Result<Calendar> render_merged(FeedConfig const& feed, std::span<CalendarPart const> parts) {
    CalendarMeta meta;
    meta.feed_name = feed.name;
    meta.title = feed.title;
    meta.description = feed.description;
    meta.refresh = feed.refresh;
    // The merge's own filter and alarm, on top of what each part already did to its items.
    MergeOptions opts;
    opts.filter = feed.filter;
    opts.alarm = feed.alarm;
    return merge_calendars(meta, parts, opts);
}

struct MergedFeeds::Builds {
    ServedFeeds& table;
    Publisher& publisher;
    Logger log;
    /// The merged feeds, copies: a reload's config may be gone before the rebuilds it asked for.
    std::map<std::string, FeedConfig, std::less<>> feeds;
    /// What a merge was last built as. Its own copy, not the table's: a publication is served only once
    /// the Publisher's threads have prepared it, so until then the table still holds the calendar before.
    struct Built {
        std::string from; ///< the parts' ETags
        std::shared_ptr<std::string const> body;
        std::size_t items = 0;
    };
    std::map<std::string, Built> built;         ///< merge -> what it was last built as
    std::map<std::string, std::string> waiting; ///< merge -> the parts it waits for (logged once)

    void rebuild(FeedConfig const& merged);
};

MergedFeeds::MergedFeeds(Config const& cfg, ServedFeeds& table, Publisher& publisher, Logger log)
    : cfg_(cfg)
    , builds_(std::make_shared<Builds>(Builds{table, publisher, std::move(log), {}, {}, {}})) {
    for (auto const& f : cfg_.feeds) {
        for (auto const& part : f.merge)
            merges_of_[part].push_back(&f);
        if (f.is_merged())
            builds_->feeds.emplace(f.name, f);
    }
}

void MergedFeeds::start() {
    if (merges_of_.empty())
        return;
    for (auto const& f : cfg_.feeds)
        if (f.is_merged())
            rebuild(f);
    subscription_ = builds_->publisher.subscribe([this](Publication const& p) { published(p); });
}

void MergedFeeds::rebuild(FeedConfig const& merged) {
    // Read the parts and render on the line, in the order asked: the merge never goes back to older parts.
    builds_->publisher.post_in_order([builds = builds_, feed = &builds_->feeds.at(merged.name)] {
        builds->rebuild(*feed);
    });
}

void MergedFeeds::published(Publication const& p) {
    // A merge is never a part, so its own publication ends here.
    auto it = merges_of_.find(p.feed);
    if (it == merges_of_.end())
        return;
    for (FeedConfig const* merged : it->second)
        rebuild(*merged);
}

namespace {

/** @brief The parts' snapshots in `merge` order, and the names of those without one yet. */
struct PartsNow {
    std::vector<std::shared_ptr<Snapshot const>> held; ///< keeps the parts' bytes alive while merging
    std::vector<CalendarPart> parts;
    std::string etags;
    std::string missing;
    std::optional<sys_seconds> as_of; ///< the most recent part's last success
};

PartsNow parts_now(FeedConfig const& merged, std::vector<FeedStatus> const& statuses) {
    PartsNow now;
    for (auto const& name : merged.merge) {
        auto st = std::find_if(statuses.begin(), statuses.end(), [&](FeedStatus const& s) {
            return s.name == name;
        });
        if (st == statuses.end() || !st->snapshot) {
            now.missing += (now.missing.empty() ? "" : ", ") + name;
            continue;
        }
        now.held.push_back(st->snapshot);
        now.parts.push_back(CalendarPart{name, st->snapshot->body});
        now.etags += st->snapshot->etag + ",";
        // The merge is as recent as its most recently refreshed part: a restart that only reloads
        // snapshots must not make it look freshly fetched.
        if (st->last_success)
            now.as_of = now.as_of ? std::max(*now.as_of, *st->last_success) : *st->last_success;
    }
    return now;
}

} // namespace

void MergedFeeds::Builds::rebuild(FeedConfig const& merged) {
    auto const now = parts_now(merged, table.status());
    // Never a partial calendar: a subscriber would see the missing part's events deleted, then back.
    if (!now.missing.empty() || !now.as_of) {
        if (std::exchange(waiting[merged.name], now.missing) != now.missing)
            log.info("feed " + merged.name + ": waiting for a first snapshot of " + now.missing);
        return;
    }
    waiting.erase(merged.name);
    if (auto const b = built.find(merged.name); b != built.end() && b->second.from == now.etags) {
        // Same parts, same bytes: published again, only the merge's last success moves on. Our own last
        // build, not what the table serves: that may still be the calendar before it (being prepared), and
        // publishing it again after would take the merge back to its parts as they were.
        publisher
            .publish(merged.name, std::string(*b->second.body), b->second.items, Origin::merged, *now.as_of);
        return;
    }
    auto cal = render_merged(merged, now.parts);
    if (!cal) {
        table.record_failure(merged.name, cal.error(), *now.as_of);
        log.warn(
            "feed " + merged.name + ": merge failed, keeping the last good snapshot: " + cal.error().message
        );
        return;
    }
    auto body = std::make_shared<std::string const>(std::move(cal->ics));
    built[merged.name] = Built{now.etags, body, cal->items};
    publisher.publish(merged.name, std::string(*body), cal->items, Origin::merged, *now.as_of);
}

} // namespace icsbridge
