// File: merged_feeds.cpp
// MergedFeeds: rebuilds a merged feed from its parts' snapshots when one of them publishes, and publishes
// and saves it like a refresher would. render_merged(): the calendar itself, also used by `export`.
#include <icsbridge/merge.hpp>

#include <algorithm>

namespace icsbridge {

Result<MergedCalendar> render_merged(FeedConfig const& feed, std::span<CalendarPart const> parts) {
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

MergedFeeds::MergedFeeds(
    Config const& cfg, FeedStore& store, Logger log, std::shared_ptr<SnapshotBackend> snapshots
)
    : cfg_(cfg)
    , store_(store)
    , log_(std::move(log))
    , snapshots_(std::move(snapshots)) {
    for (auto const& f : cfg_.feeds)
        for (auto const& part : f.merge)
            merges_of_[part].push_back(&f);
}

MergedFeeds::~MergedFeeds() {
    if (listening_)
        store_.set_publish_listener({});
}

void MergedFeeds::start() {
    if (merges_of_.empty())
        return;
    for (auto const& f : cfg_.feeds)
        if (f.is_merged())
            rebuild(f);
    store_.set_publish_listener([this](std::string_view feed) { published(feed); });
    listening_ = true;
}

void MergedFeeds::published(std::string_view feed) {
    // Looked up before locking: a merge is never a part, so its own publish returns here, never
    // re-entering the lock that rebuild() holds while it publishes.
    auto it = merges_of_.find(feed);
    if (it == merges_of_.end())
        return;
    for (FeedConfig const* merged : it->second)
        rebuild(*merged);
}

void MergedFeeds::rebuild(FeedConfig const& merged) {
    std::lock_guard lock(mtx_);
    auto const statuses = store_.status();
    std::vector<std::shared_ptr<Snapshot const>> held; // keeps the parts' bytes alive while merging
    std::vector<CalendarPart> parts;
    std::string etags;
    std::optional<sys_seconds> as_of;
    for (auto const& name : merged.merge) {
        auto st = std::find_if(statuses.begin(), statuses.end(), [&](FeedStatus const& s) {
            return s.name == name;
        });
        if (st == statuses.end() || !st->snapshot) {
            etags += "-,";
            continue;
        }
        held.push_back(st->snapshot);
        parts.push_back(CalendarPart{name, st->snapshot->body});
        etags += st->snapshot->etag + ",";
        // The merge is as recent as its most recently refreshed part: a restart that only reloads
        // snapshots must not make it look freshly fetched.
        if (st->last_success)
            as_of = as_of ? std::max(*as_of, *st->last_success) : *st->last_success;
    }
    // Nothing to show yet: the merge keeps answering 503 (or its stored snapshot) until a part publishes.
    if (parts.empty() || !as_of)
        return;

    std::string body;
    std::size_t items = 0;
    auto current = store_.get(merged.name);
    if (current && built_from_[merged.name] == etags) {
        // Same parts, same bytes: publishing them again records the success without merging anew.
        body = current->body;
        items = current->items;
    } else {
        auto cal = render_merged(merged, parts);
        if (!cal) {
            store_.record_failure(merged.name, cal.error(), *as_of);
            log_.warn(
                "feed " + merged.name +
                ": merge failed, keeping the last good snapshot: " + cal.error().message
            );
            return;
        }
        body = std::move(cal->ics);
        items = cal->items;
    }
    auto [snap, changed] = store_.publish(merged.name, std::move(body), items, *as_of);
    if (!snap)
        return;
    built_from_[merged.name] = etags;
    if (changed)
        log_.info(
            "feed " + merged.name + ": merged " + std::to_string(parts.size()) + " of " +
            std::to_string(merged.merge.size()) + " parts, " + std::to_string(items) + " items, " +
            std::to_string(snap->body.size()) + " bytes"
        );
    if (snapshots_) {
        if (auto saved = snapshots_->save(merged.name, *snap, *as_of); !saved)
            log_.warn("feed " + merged.name + ": cannot save snapshot: " + saved.error().message);
    }
}

} // namespace icsbridge
