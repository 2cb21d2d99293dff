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

MergedFeeds::MergedFeeds(Config const& cfg, ServedFeeds& table, Publisher& publisher, Logger log)
    : cfg_(cfg)
    , table_(table)
    , publisher_(publisher)
    , log_(std::move(log)) {
    for (auto const& f : cfg_.feeds)
        for (auto const& part : f.merge)
            merges_of_[part].push_back(&f);
}

void MergedFeeds::start() {
    if (merges_of_.empty())
        return;
    for (auto const& f : cfg_.feeds)
        if (f.is_merged())
            rebuild(f);
    subscription_ = publisher_.subscribe([this](Publication const& p) { published(p); });
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

void MergedFeeds::rebuild(FeedConfig const& merged) {
    auto const now = parts_now(merged, table_.status());
    // Never a partial calendar: a subscriber would see the missing part's events deleted, then back.
    if (!now.missing.empty() || !now.as_of) {
        if (std::exchange(waiting_[merged.name], now.missing) != now.missing)
            log_.info("feed " + merged.name + ": waiting for a first snapshot of " + now.missing);
        return;
    }
    waiting_.erase(merged.name);
    if (auto const b = built_.find(merged.name); b != built_.end() && b->second.from == now.etags) {
        // Same parts, same bytes: published again, only the merge's last success moves on. Our own last
        // build, not what the table serves: that may still be the calendar before it (being prepared), and
        // publishing it again after would take the merge back to its parts as they were.
        publisher_
            .publish(merged.name, std::string(*b->second.body), b->second.items, Origin::merged, *now.as_of);
        return;
    }
    auto cal = render_merged(merged, now.parts);
    if (!cal) {
        table_.record_failure(merged.name, cal.error(), *now.as_of);
        log_.warn(
            "feed " + merged.name + ": merge failed, keeping the last good snapshot: " + cal.error().message
        );
        return;
    }
    auto body = std::make_shared<std::string const>(std::move(cal->ics));
    built_[merged.name] = Built{now.etags, body, cal->items};
    publisher_.publish(merged.name, std::string(*body), cal->items, Origin::merged, *now.as_of);
}

} // namespace icsbridge
