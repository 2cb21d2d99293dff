// File: dav_wiring.cpp
// The CalDAV history's wiring in `serve`: the snapshot backends with the history beside each snapshot, the
// subscriber, and the start-up resume.
#include "app/dav_wiring.hpp"

#include "dav/history_files.hpp"

namespace icsbridge::cli {

namespace {

sys_seconds now_s() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

/**
 * The CalDAV history to keep with a snapshot, up to it. The keeper's thread may get there before the
 * publication's subscribers: a snapshot still served is recorded here then (the subscriber finds it done);
 * one already replaced was recorded by its own subscribers, which ran before the next publication began.
 */
dav::HistoryOf history_of(std::shared_ptr<dav::History> history, ServedFeeds const& store) {
    return [history = std::move(history), &store](std::string const& feed, Snapshot const& snap) {
        if (auto served = store.get(feed); served && served.get() == &snap)
            (void)history->collection(feed, served, now_s());
        return history->kept_form(feed, snap.etag);
    };
}

} // namespace

std::shared_ptr<SnapshotBackend> kept_snapshots(
    Config const& cfg,
    cluster::ClusterNode* node,
    std::shared_ptr<dav::History> const& history,
    ServedFeeds const& store
) {
    dav::HistoryOf of;
    if (history) {
        auto files = std::make_shared<dav::HistoryFiles>(cfg.storage.dir);
        std::vector<std::string> feeds;
        for (auto const& f : cfg.feeds)
            feeds.push_back(f.name);
        files->forget_all_but(feeds); // a feed removed while serve was stopped: added back, a new epoch
        if (node)
            node->forget_history_all_but(feeds);
        history->keep_with(std::move(files));
        of = history_of(history, store);
    }
    if (node) {
        std::function<void(std::string const&)> gone;
        if (history)
            gone = [history](std::string const& feed) { history->forget(feed); };
        node->keep_history(std::move(of), std::move(gone));
        return node->snapshots();
    }
    auto disk = std::make_shared<DiskSnapshots>(cfg.storage.dir);
    if (!history)
        return disk;
    return std::make_shared<dav::HistoryBeside>(std::move(disk), cfg.storage.dir, std::move(of));
}

Publisher::Subscriber record_publications(std::shared_ptr<dav::History> history) {
    // On the publishing thread, so a sync request finds it done.
    return [history = std::move(history)](Publication const& p) {
        if (p.origin == Origin::adopted || p.origin == Origin::restored)
            (void)history->adopt(p.feed, p.snapshot, now_s());
        else if (p.changed)
            (void)history->collection(p.feed, p.snapshot, now_s());
    };
}

Publisher::Preparer prepare_publications(std::shared_ptr<dav::History> history) {
    return
        [history = std::move(history)](std::string const& feed, std::shared_ptr<Snapshot const> const& snap) {
            history->prepare(feed, snap);
        };
}

void resume_history(dav::History* history, ServedFeeds const& store) {
    if (!history)
        return;
    // Before the first refresh records its publication on top: a token from the last run names these.
    for (auto const& name : store.names())
        if (auto snap = store.get(name))
            (void)history->adopt(name, snap, now_s());
}

void forget_removed(
    dav::History* history,
    cluster::ClusterNode* node,
    std::vector<std::string> const& removed,
    std::vector<std::string> const& added
) {
    if (!history)
        return;
    for (auto const& name : removed) {
        history->forget(name);
        if (node)
            node->forget_history(name);
    }
    for (auto const& name : added)
        history->forget(name);
}

} // namespace icsbridge::cli
