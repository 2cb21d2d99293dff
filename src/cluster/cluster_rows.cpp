// File: cluster_rows.cpp
// ClusterNode, what moves between the replicas: peers' rows adopted as they are announced (NOTIFY) and after
// an outage (converge), and webhooks announced to every replica. Database thread only.
#include "cluster/cluster_node.hpp"

#include <boost/asio/post.hpp>

#include <set>
#include <string>

namespace icsbridge::cluster {

namespace net = boost::asio;

bool ClusterNode::converge() {
    // What peers published while we were not listening, and what we fetched alone meanwhile: per feed the
    // newer fetch wins, ours goes in (and its NOTIFY brings the peers along) or the row comes out.
    std::size_t pushed = 0;
    std::size_t loaded = 0;
    for (auto const& s : store_.status()) {
        if (!s.merge.empty())
            continue; // a merged feed is rebuilt from its parts on every replica
        std::string history;
        auto row = rows_->load_with_history(s.name, store_.gzip_enabled(), &history);
        if (!row && row.error().code == errc::io_error) {
            // Away again: the next reconnect listens anew and converges.
            stop_listening();
            away(row.error().message);
            return false;
        }
        if (!row && row.error().code == errc::snapshot_corrupt)
            snapshots_->warn_refused(s.name, row.error());
        bool const ours_newer =
            s.snapshot && s.last_success && !refused(s.name) &&
            (!row || !*row || ((*row)->etag != s.snapshot->etag && *s.last_success > (*row)->fetched_at));
        if (ours_newer) {
            auto wrote = rows_->catch_up(s.name, *s.snapshot, *s.last_success);
            if (wrote && *wrote) {
                ++pushed;
                continue;
            }
        }
        bool const same = row && *row && s.snapshot && (*row)->etag == s.snapshot->etag;
        // Of the same calendar, the row's CalDAV history still wins over the one we started from: the feed
        // may have been removed and added back while we were stopped, or a peer went on after us.
        if ((row && *row && !same) || (same && snapshots_->history_differs(s.name, history)))
            loaded += adopt(s.name) ? 1 : 0;
    }
    log_.info(
        "cluster: listening for peers' snapshots; " + std::to_string(loaded) + " row(s) loaded, " +
        std::to_string(pushed) + " newer snapshot(s) of ours written"
    );
    return true;
}

void ClusterNode::announce_hook(
    std::string source, std::string const& event_id, std::function<void()> alone
) {
    // The payload is "SOURCE" or "SOURCE\nEVENT": neither holds a line break.
    if (!event_id.empty())
        source += "\n" + event_id;
    net::post(db_ex_, [this, source = std::move(source), alone = std::move(alone)] {
        if (stopped_)
            return;
        if (degraded_) {
            alone();
            return;
        }
        auto sent =
            lease_db_.query("SELECT pg_notify($1, $2)", {PgParam::text(hook_channel), PgParam::text(source)});
        if (!sent) {
            away(sent.error().message);
            alone();
        }
    });
}

void ClusterNode::forget_history(std::string feed) {
    net::post(db_ex_, [this, feed = std::move(feed)] {
        if (stopped_)
            return;
        if (auto done = snapshots_->forget_history(feed); !done)
            log_.warn(
                "cluster: feed " + feed + " was removed, but its CalDAV history stays in its row (" +
                done.error().message + "): added back, it would take up its old sync tokens"
            );
    });
}

void ClusterNode::forget_history_all_but(std::vector<std::string> kept) {
    net::post(db_ex_, [this, kept = std::move(kept)] {
        if (stopped_)
            return;
        if (auto done = snapshots_->forget_history_all_but(kept); !done)
            log_.warn(
                "cluster: the CalDAV history of feeds no longer configured stays in their rows (" +
                done.error().message + "): added back, they would take up their old sync tokens"
            );
    });
}

bool ClusterNode::adopt(std::string const& feed) {
    auto snap = load_kept(feed, *snapshots_, store_.gzip_enabled(), log_);
    if (!snap)
        return false;
    // Publications all happen on the control thread, in one sequence: the row joins it there.
    net::post(control_ex_, [this, feed, s = std::move(snap)]() mutable {
        publisher_.adopt(feed, std::move(s), Origin::adopted);
    });
    return true;
}

void ClusterNode::load_notified() {
    PGconn* c = listen_db_.raw();
    if (PQconsumeInput(c) == 0 || PQstatus(c) != CONNECTION_OK) {
        listen_lost({});
        return;
    }
    std::set<std::string> feeds;
    std::set<std::string> hooked;
    while (PGnotify* n = PQnotifies(c)) {
        (std::string_view(n->relname) == hook_channel ? hooked : feeds).insert(n->extra);
        PQfreemem(n);
    }
    load_rows(feeds);
    // Every replica wakes the source's refreshers; only the lease holder's refresh goes on (lease_wait()).
    if (!on_hook_)
        return;
    for (auto const& payload : hooked) {
        auto const nl = payload.find('\n');
        on_hook_(payload.substr(0, nl), nl == std::string::npos ? std::string() : payload.substr(nl + 1));
    }
}

void ClusterNode::load_rows(std::set<std::string> const& feeds) {
    // A merged feed is rebuilt from its parts here as on every replica, and its CalDAV history is this
    // replica's own (converge() skips it too). A peer's rebuild, kept as its row, can come in after ours and
    // hold the parts as they were before: taking it up served the older calendar again until the next
    // rebuild, and two replicas resuming one row's history could each name a different calendar by the same
    // sync token.
    std::set<std::string, std::less<>> merged;
    for (auto const& s : store_.status())
        if (!s.merge.empty())
            merged.insert(s.name);
    for (auto const& feed : feeds)
        if (!merged.contains(feed))
            (void)adopt(feed);
}

} // namespace icsbridge::cluster
