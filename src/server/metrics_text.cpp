// File: metrics_text.cpp
// /metrics in the Prometheus text format: requests and hooks, each feed's refreshes, upstream requests and
// the work hooks caused, the view cache, call budgets, and in a cluster the database and the leases.
#include "dav/push_registry.hpp"
#include "server/pages.hpp"
#include "server/target_status.hpp"

#include <charconv>

namespace icsbridge {

namespace {

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
    case Route::connect:
        return "connect";
    case Route::dav:
        return "dav";
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
        out.append(name).append("_bucket{").append(labels).append(labels.empty() ? "" : ",");
        out.append("le=\"").append(le).append("\"} ");
        out.append(std::to_string(cumulative)).append("\n");
    }
    auto const braced = labels.empty() ? std::string() : "{" + labels + "}";
    out.append(name).append("_sum").append(braced).append(" ").append(number(sum)).append("\n");
    out.append(name)
        .append("_count")
        .append(braced)
        .append(" ")
        .append(std::to_string(cumulative))
        .append("\n");
}

void append_http(std::string& out, HttpMetrics const& http) {
    out += "# HELP icsbridge_http_requests_total HTTP requests answered, by route and status.\n"
           "# TYPE icsbridge_http_requests_total counter\n";
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
}

void append_feeds(std::string& out, std::vector<FeedStatus> const& statuses) {
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
}

void append_upstream(std::string& out, UpstreamMetrics const& upstream) {
    out += "# HELP icsbridge_upstream_request_duration_seconds Upstream HTTP requests (each attempt, retries "
           "included), by source and status class (error: no response).\n"
           "# TYPE icsbridge_upstream_request_duration_seconds histogram\n";
    for (auto const& s : upstream.series())
        append_histogram(
            out,
            "icsbridge_upstream_request_duration_seconds",
            "source=\"" + label(s.source) + "\",code=\"" + s.code + "\"",
            s.counts,
            s.sum
        );
    if (auto const work = upstream.hook_work(); !work.empty()) {
        out += "# HELP icsbridge_hook_upstream_work_total Upstream work webhooks caused, by source: kind "
               "\"event\" is one event read (one call), \"refresh\" a whole refresh of a feed group.\n"
               "# TYPE icsbridge_hook_upstream_work_total counter\n";
        for (auto const& [key, n] : work)
            out += "icsbridge_hook_upstream_work_total{source=\"" + label(key.first) + "\",kind=\"" +
                   label(key.second) + "\"} " + std::to_string(n) + "\n";
    }
}

void append_budgets(std::string& out, std::vector<BudgetGauge> const& budgets) {
    if (budgets.empty())
        return;
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
    out += "# HELP icsbridge_upstream_budget_wait_seconds How long a refresh waits for room in the budget "
           "(0: none waits).\n# TYPE icsbridge_upstream_budget_wait_seconds gauge\n";
    for (auto const& b : budgets)
        out += "icsbridge_upstream_budget_wait_seconds{source=\"" + label(b.source) + "\"} " +
               std::to_string(b.waiting_seconds) + "\n";
}

void append_cluster(std::string& out, bool connected, std::vector<FeedStatus> const& statuses) {
    out += "# HELP icsbridge_cluster_database_up Whether the cluster database answers (0: this replica "
           "serves and refreshes alone).\n# TYPE icsbridge_cluster_database_up gauge\n"
           "icsbridge_cluster_database_up " +
           std::string(connected ? "1" : "0") + "\n";
    // One replica per feed says 1: the one that refreshes it (none for a moment during a failover).
    out += "# HELP icsbridge_cluster_lease_held Whether this replica holds the lease of the feed's "
           "refresh.\n# TYPE icsbridge_cluster_lease_held gauge\n";
    for (auto const& s : statuses)
        if (s.lease_held)
            out += "icsbridge_cluster_lease_held{feed=\"" + label(s.name) + "\"} " +
                   std::string(*s.lease_held ? "1" : "0") + "\n";
}

/** The registrations: in all, and per feed the request may see (a token feed's name only for the admin). */
void append_push_registrations(
    std::string& out, dav::PushRegistry const& push, std::vector<FeedStatus> const& shown
) {
    auto const counts = push.counts();
    std::size_t total = 0;
    for (auto const& [feed, n] : counts)
        total += n;
    out += "# HELP icsbridge_dav_push_registrations WebDAV-Push registrations kept (not expired).\n"
           "# TYPE icsbridge_dav_push_registrations gauge\n"
           "icsbridge_dav_push_registrations " +
           std::to_string(total) + "\n";
    out +=
        "# HELP icsbridge_dav_push_feed_registrations WebDAV-Push registrations on the feed's collection.\n"
        "# TYPE icsbridge_dav_push_feed_registrations gauge\n";
    for (auto const& s : shown) {
        auto const it = counts.find(s.name);
        out += "icsbridge_dav_push_feed_registrations{feed=\"" + label(s.name) + "\"} " +
               std::to_string(it == counts.end() ? 0 : it->second) + "\n";
    }
}

/** @brief WebDAV-Push delivery: counts and the latency histogram, never a registration. */
void append_webpush(std::string& out, WebPushCounts const& c) {
    if (!c.enabled)
        return;
    out +=
        "# HELP icsbridge_dav_push_messages_total WebDAV-Push messages, by outcome (sent: a push service "
        "took it; failed: an attempt it did not take; dropped: given up; removed: the registration ended by "
        "a 404/410).\n"
        "# TYPE icsbridge_dav_push_messages_total counter\n";
    for (auto const& [name, n] :
         {std::pair<std::string_view, std::uint64_t>{"sent", c.sent.load()},
          {"failed", c.failed.load()},
          {"dropped", c.dropped.load()},
          {"removed", c.removed.load()}})
        out += "icsbridge_dav_push_messages_total{outcome=\"" + std::string(name) + "\"} " +
               std::to_string(n) + "\n";
    out += "# HELP icsbridge_dav_push_delivery_seconds From a publication to the push service's 2xx for its "
           "message.\n"
           "# TYPE icsbridge_dav_push_delivery_seconds histogram\n";
    std::array<std::uint64_t, duration_buckets.size() + 1> counts{};
    for (std::size_t i = 0; i < counts.size(); ++i)
        counts[i] = c.latency[i].load();
    append_histogram(
        out,
        "icsbridge_dav_push_delivery_seconds",
        "",
        counts,
        static_cast<double>(c.latency_sum_us.load()) / 1e6
    );
}

} // namespace

std::string metrics_text(
    ServedFeeds const& store,
    ViewCacheStats const& views,
    Metrics const& metrics,
    bool details,
    dav::PushRegistry const* push
) {
    auto statuses = store.status();
    // Token feeds are not to be discovered: their series only for the admin.
    if (!details)
        std::erase_if(statuses, [](auto const& s) { return !s.is_public; });
    std::string out;
    append_http(out, metrics.http);
    append_feeds(out, statuses);
    append_upstream(out, metrics.upstream);
    append_view_cache_metrics(out, views);
    append_budgets(out, metrics.upstream.budgets());
    append_webpush(out, metrics.webpush);
    if (auto c = store.cluster_connected())
        append_cluster(out, *c, statuses);
    if (push)
        append_push_registrations(out, *push, statuses);
    if (details) { // a target names a person's calendar: the admin's to see
        append_push_metrics(out, metrics.push);
        append_connection_metrics(out, metrics.connections);
    }
    return out;
}

} // namespace icsbridge
