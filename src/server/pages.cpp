// File: pages.cpp
// Index HTML and /healthz JSON (Boost.JSON); /metrics is metrics_text.cpp.
#include "server/pages.hpp"

#include "dav/push_registry.hpp"
#include "server/target_status.hpp"
#include "views/view_cache.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>

namespace icsbridge {

namespace {

namespace json = boost::json;

/** @brief Whether /healthz names the feed: a token feed only to the admin, not even as a part of a merge. */
bool named(std::vector<FeedStatus> const& statuses, std::string const& name, bool details) {
    return details || std::any_of(statuses.begin(), statuses.end(), [&](auto const& o) {
               return o.name == name && o.is_public;
           });
}

/** @brief One feed's entry: its refresh record, what is served, its merge parts and its subscribers. */
json::object
feed_json(FeedStatus const& s, std::vector<FeedStatus> const& statuses, sys_seconds now, bool details) {
    json::object f;
    f["name"] = s.name;
    f["public"] = s.is_public;
    f["refresh_seconds"] = s.refresh.count();
    f["last_success"] = http_date_or_null(s.last_success);
    f["last_failure"] = http_date_or_null(s.last_failure);
    f["last_error"] = s.last_error.empty() ? json::value(nullptr) : json::value(s.last_error);
    f["stale"] = s.stale(now);
    f["served"] = s.snapshot != nullptr;
    f["items"] = s.snapshot ? s.snapshot->items : 0;
    f["snapshot_bytes"] = s.snapshot ? s.snapshot->body.size() : 0;
    f["last_modified"] = s.snapshot ? json::value(s.snapshot->last_modified_http) : json::value(nullptr);
    if (auto w = s.snapshot ? views::google_size_warning(s.snapshot->body.size()) : std::string(); !w.empty())
        f["warnings"] = json::array({json::string(w)});
    if (!s.merge.empty()) {
        json::array parts;
        for (auto const& part : s.merge)
            if (named(statuses, part, details))
                parts.emplace_back(part);
        f["merge"] = std::move(parts);
    }
    if (!s.subscribers.empty()) {
        json::object subs;
        for (auto const& sub : s.subscribers)
            subs[sub.name] = json::object{{"last_fetch", http_date_or_null(sub.last_fetch)}};
        f["subscribers"] = std::move(subs);
    }
    return f;
}

/** @brief Why a refresh may be late: each source's call budget, and the wait when it is spent. */
json::array budgets_json(Metrics const& metrics) {
    json::array budgets;
    for (auto const& b : metrics.upstream.budgets()) {
        json::object o{
            {"source", b.source},
            {"limit", b.limit},
            {"period_seconds", b.period_seconds},
            {"used", b.used},
            {"left", b.left}};
        if (b.waiting_seconds > 0)
            o["waiting"] =
                "the call budget is spent: refreshes wait " + std::to_string(b.waiting_seconds) + "s";
        budgets.push_back(std::move(o));
    }
    return budgets;
}

} // namespace

/** @brief The WebDAV-Push registrations: how many in all and per feed (the admin's: feed names). */
json::object push_json(dav::PushRegistry const& push) {
    json::object by_feed;
    std::size_t total = 0;
    for (auto const& [feed, n] : push.counts()) {
        by_feed[feed] = n;
        total += n;
    }
    return {{"registrations", total}, {"feeds", std::move(by_feed)}};
}

std::string healthz_json(
    ServedFeeds const& store,
    Metrics const& metrics,
    sys_seconds now,
    bool details,
    dav::PushRegistry const* push
) {
    json::object root;
    json::array feeds;
    bool all_ok = true;
    auto const statuses = store.status();
    for (auto const& s : statuses) {
        all_ok = all_ok && !s.stale(now) && s.snapshot;
        if (s.is_public || details)
            feeds.push_back(feed_json(s, statuses, now, details));
    }
    root["ok"] = all_ok;
    root["details"] = details;
    if (details) { // a target names a person's calendar: the admin's to see; connections only as counts
        root["targets"] = targets_json(metrics.push);
        if (auto c = connections_json(metrics.connections); !c.is_null())
            root["connections"] = std::move(c);
        if (push)
            root["push"] = push_json(*push);
        if (auto w = webpush_json(metrics.webpush); !w.is_null())
            root["webpush"] = std::move(w);
    }
    root["budgets"] = budgets_json(metrics);
    // A refused reload leaves the old config running: say so, the message (a FILE:LINE:COL of the config)
    // only to the admin.
    if (auto r = store.last_reload()) {
        json::object reload{{"at", http_date_or_null(r->at)}, {"ok", r->ok}};
        if (!r->ok && details)
            reload["error"] = r->error;
        root["last_reload"] = std::move(reload);
    }
    // Cluster mode: "degraded" while the database is away (this replica then serves and refreshes alone).
    if (auto c = store.cluster_connected())
        root["cluster"] = *c ? "ok" : "degraded";
    root["feeds"] = std::move(feeds);
    return json::serialize(root) + "\n";
}

} // namespace icsbridge
