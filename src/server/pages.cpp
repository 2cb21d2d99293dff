// File: pages.cpp
// Index HTML, /healthz JSON (Boost.JSON) and /metrics (Prometheus text).
#include "server/pages.hpp"

#include "net/http_date.hpp"
#include "views/view_cache.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace icsbridge {

namespace {

namespace json = boost::json;

json::value time_or_null(std::optional<sys_seconds> t) {
    if (!t)
        return nullptr;
    return json::string(format_http_date(*t));
}

/** @brief Prometheus label values escape backslash, quote and newline. */
std::string label(std::string_view v) {
    std::string out;
    for (char c : v) {
        if (c == '\\' || c == '"')
            out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

std::string_view route_name(Route r) {
    switch (r) {
    case Route::index:
        return "index";
    case Route::feed:
        return "feed";
    case Route::healthz:
        return "healthz";
    case Route::metrics:
        return "metrics";
    case Route::hooks:
        return "hooks";
    case Route::other:
        return "other";
    }
    return "other";
}

/** @brief The shortest text that reads back as `v` ("0.05", not "0.050000000000000003"). */
std::string number(double v) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

/** @brief The _bucket (cumulative), _sum and _count lines of one histogram series. */
void append_histogram(
    std::string& out,
    std::string_view name,
    std::string const& labels,
    std::array<std::uint64_t, duration_buckets.size() + 1> const& counts,
    double sum
) {
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= duration_buckets.size(); ++i) {
        cumulative += counts[i];
        auto le = i < duration_buckets.size() ? number(duration_buckets[i]) : std::string("+Inf");
        out.append(name).append("_bucket{").append(labels).append(",le=\"").append(le).append("\"} ");
        out.append(std::to_string(cumulative)).append("\n");
    }
    out.append(name).append("_sum{").append(labels).append("} ").append(number(sum)).append("\n");
    out.append(name)
        .append("_count{")
        .append(labels)
        .append("} ")
        .append(std::to_string(cumulative))
        .append("\n");
}

} // namespace

std::string healthz_json(FeedStore const& store, Metrics const& metrics, sys_seconds now, bool details) {
    json::object root;
    json::array feeds;
    bool all_ok = true;
    auto const statuses = store.status();
    // A token feed is never named to an anonymous caller, not even as a part of a merge.
    auto const shown = [&](std::string const& name) {
        return details || std::any_of(statuses.begin(), statuses.end(), [&](auto const& o) {
                   return o.name == name && o.is_public;
               });
    };
    for (auto const& s : statuses) {
        all_ok = all_ok && !s.stale(now) && s.snapshot;
        if (!s.is_public && !details)
            continue;
        json::object f;
        f["name"] = s.name;
        f["public"] = s.is_public;
        f["refresh_seconds"] = s.refresh.count();
        f["last_success"] = time_or_null(s.last_success);
        f["last_failure"] = time_or_null(s.last_failure);
        f["last_error"] = s.last_error.empty() ? json::value(nullptr) : json::value(s.last_error);
        bool stale = s.stale(now);
        f["stale"] = stale;
        f["served"] = s.snapshot != nullptr;
        f["items"] = s.snapshot ? s.snapshot->items : 0;
        f["snapshot_bytes"] = s.snapshot ? s.snapshot->body.size() : 0;
        f["last_modified"] = s.snapshot ? json::value(s.snapshot->last_modified_http) : json::value(nullptr);
        if (auto w = s.snapshot ? views::google_size_warning(s.snapshot->body.size()) : std::string();
            !w.empty())
            f["warnings"] = json::array({json::string(w)});
        if (!s.merge.empty()) {
            json::array parts;
            for (auto const& part : s.merge)
                if (shown(part))
                    parts.emplace_back(part);
            f["merge"] = std::move(parts);
        }
        if (!s.subscribers.empty()) {
            json::object subs;
            for (auto const& sub : s.subscribers)
                subs[sub.name] = json::object{{"last_fetch", time_or_null(sub.last_fetch)}};
            f["subscribers"] = std::move(subs);
        }
        feeds.push_back(std::move(f));
    }
    root["ok"] = all_ok;
    root["details"] = details;
    // Why a refresh may be late: a source whose call budget is spent waits for room.
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
    root["budgets"] = std::move(budgets);
    // A refused reload leaves the old config running: say so, the message (a FILE:LINE:COL of the config)
    // only to the admin.
    if (auto r = store.last_reload()) {
        json::object reload{{"at", time_or_null(r->at)}, {"ok", r->ok}};
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

std::string
metrics_text(FeedStore const& store, ViewCacheStats const& views, Metrics const& metrics, bool details) {
    std::string out;
    out += "# HELP icsbridge_http_requests_total HTTP requests answered, by route and status.\n"
           "# TYPE icsbridge_http_requests_total counter\n";
    auto const& http = metrics.http;
    for (std::size_t r = 0; r < route_count; ++r) {
        for (unsigned st : counted_statuses) {
            auto n = http.get(static_cast<Route>(r), st);
            if (n == 0)
                continue;
            out += "icsbridge_http_requests_total{route=\"" + std::string(route_name(static_cast<Route>(r))) +
                   "\",status=\"" + (st ? std::to_string(st) : std::string("other")) + "\"} " +
                   std::to_string(n) + "\n";
        }
    }
    out += "# HELP icsbridge_hooks_total Incoming webhooks, by outcome (refused: the 404 of an unknown "
           "hook URL; foreign_url: api_url not on the source's host).\n"
           "# TYPE icsbridge_hooks_total counter\n";
    static constexpr std::array<std::pair<HookOutcome, std::string_view>, hook_outcome_count> outcomes = {{
        {HookOutcome::accepted, "accepted"},
        {HookOutcome::refused, "refused"},
        {HookOutcome::malformed, "malformed"},
        {HookOutcome::foreign_url, "foreign_url"},
        {HookOutcome::too_large, "too_large"},
    }};
    for (auto const& [o, name] : outcomes)
        out += "icsbridge_hooks_total{outcome=\"" + std::string(name) + "\"} " +
               std::to_string(http.hooks(o)) + "\n";
    auto statuses = store.status();
    // Token feeds are not to be discovered: their series only for the admin.
    if (!details)
        std::erase_if(statuses, [](auto const& s) { return !s.is_public; });
    out += "# HELP icsbridge_refreshes_total Feed refreshes, by feed and result.\n"
           "# TYPE icsbridge_refreshes_total counter\n";
    for (auto const& s : statuses) {
        out += "icsbridge_refreshes_total{feed=\"" + label(s.name) + "\",result=\"ok\"} " +
               std::to_string(s.refreshes_ok) + "\n";
        out += "icsbridge_refreshes_total{feed=\"" + label(s.name) + "\",result=\"failed\"} " +
               std::to_string(s.refreshes_failed) + "\n";
    }
    // In a cluster a peer's publish counts too (its row's fetch time): every replica shows the last publish.
    out += "# HELP icsbridge_last_success_timestamp_seconds Unix time of the feed's last successful refresh "
           "(cluster: the last publish by any replica).\n"
           "# TYPE icsbridge_last_success_timestamp_seconds gauge\n";
    for (auto const& s : statuses)
        out += "icsbridge_last_success_timestamp_seconds{feed=\"" + label(s.name) + "\"} " +
               std::to_string(s.last_success ? s.last_success->time_since_epoch().count() : 0) + "\n";
    out += "# HELP icsbridge_snapshot_bytes Size of the feed's current snapshot.\n"
           "# TYPE icsbridge_snapshot_bytes gauge\n";
    for (auto const& s : statuses)
        out += "icsbridge_snapshot_bytes{feed=\"" + label(s.name) + "\"} " +
               std::to_string(s.snapshot ? s.snapshot->body.size() : 0) + "\n";
    out += "# HELP icsbridge_upstream_fetch_duration_seconds Time one refresh spent fetching from the "
           "upstream.\n"
           "# TYPE icsbridge_upstream_fetch_duration_seconds histogram\n";
    for (auto const& s : statuses)
        append_histogram(
            out,
            "icsbridge_upstream_fetch_duration_seconds",
            "feed=\"" + label(s.name) + "\"",
            s.duration_counts,
            s.duration_sum
        );
    out += "# HELP icsbridge_upstream_request_duration_seconds Upstream HTTP requests (each attempt, retries "
           "included), by source and status class (error: no response).\n"
           "# TYPE icsbridge_upstream_request_duration_seconds histogram\n";
    for (auto const& s : metrics.upstream.series())
        append_histogram(
            out,
            "icsbridge_upstream_request_duration_seconds",
            "source=\"" + label(s.source) + "\",code=\"" + s.code + "\"",
            s.counts,
            s.sum
        );
    if (auto const work = metrics.upstream.hook_work(); !work.empty()) {
        out += "# HELP icsbridge_hook_upstream_work_total Upstream work webhooks caused, by source: kind "
               "\"event\" is one event read (one call), \"refresh\" a whole refresh of a feed group.\n"
               "# TYPE icsbridge_hook_upstream_work_total counter\n";
        for (auto const& [key, n] : work)
            out += "icsbridge_hook_upstream_work_total{source=\"" + label(key.first) + "\",kind=\"" +
                   label(key.second) + "\"} " + std::to_string(n) + "\n";
    }
    append_view_cache_metrics(out, views);
    auto const budgets = metrics.upstream.budgets();
    if (!budgets.empty()) {
        out += "# HELP icsbridge_upstream_budget_calls Calls a source may start per budget period.\n"
               "# TYPE icsbridge_upstream_budget_calls gauge\n";
        for (auto const& b : budgets)
            out += "icsbridge_upstream_budget_calls{source=\"" + label(b.source) + "\",period_seconds=\"" +
                   std::to_string(b.period_seconds) + "\"} " + std::to_string(b.limit) + "\n";
        out += "# HELP icsbridge_upstream_budget_used Calls started in the last budget period (retries "
               "included).\n# TYPE icsbridge_upstream_budget_used gauge\n";
        for (auto const& b : budgets)
            out += "icsbridge_upstream_budget_used{source=\"" + label(b.source) + "\"} " +
                   std::to_string(b.used) + "\n";
        out += "# HELP icsbridge_upstream_budget_left Calls left in the current budget period.\n"
               "# TYPE icsbridge_upstream_budget_left gauge\n";
        for (auto const& b : budgets)
            out += "icsbridge_upstream_budget_left{source=\"" + label(b.source) + "\"} " +
                   std::to_string(b.left) + "\n";
        out +=
            "# HELP icsbridge_upstream_budget_wait_seconds How long a refresh waits for room in the budget "
            "(0: none waits).\n# TYPE icsbridge_upstream_budget_wait_seconds gauge\n";
        for (auto const& b : budgets)
            out += "icsbridge_upstream_budget_wait_seconds{source=\"" + label(b.source) + "\"} " +
                   std::to_string(b.waiting_seconds) + "\n";
    }
    if (auto c = store.cluster_connected()) {
        out += "# HELP icsbridge_cluster_database_up Whether the cluster database answers (0: this replica "
               "serves and refreshes alone).\n# TYPE icsbridge_cluster_database_up gauge\n"
               "icsbridge_cluster_database_up " +
               std::string(*c ? "1" : "0") + "\n";
        // One replica per feed says 1: the one that refreshes it (none for a moment during a failover).
        out += "# HELP icsbridge_cluster_lease_held Whether this replica holds the lease of the feed's "
               "refresh.\n# TYPE icsbridge_cluster_lease_held gauge\n";
        for (auto const& s : statuses)
            if (s.lease_held)
                out += "icsbridge_cluster_lease_held{feed=\"" + label(s.name) + "\"} " +
                       std::string(*s.lease_held ? "1" : "0") + "\n";
    }
    return out;
}

} // namespace icsbridge
