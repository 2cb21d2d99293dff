// File: target_status.cpp
// targets_json() and append_push_metrics(): one PushStatus snapshot each, formatted.
#include "server/target_status.hpp"

#include "net/http_date.hpp"

#include <boost/json.hpp>

namespace icsbridge {

namespace json = boost::json;

namespace {

/** A target name as a label value: names are [A-Za-z0-9._-] (the config refuses others), quoted as is. */
std::string series(std::string_view metric, std::string const& target, std::string_view extra = {}) {
    return std::string(metric) + "{target=\"" + target + "\"" + std::string(extra) + "} ";
}

} // namespace

json::value http_date_or_null(std::optional<sys_seconds> t) {
    return t ? json::value(json::string(format_http_date(*t))) : json::value(nullptr);
}

json::array targets_json(PushStatus const& push) {
    json::array out;
    for (auto const& s : push.snapshot())
        out.push_back(json::object{
            {"name", s.name},
            {"ok", s.last_success.has_value() && s.last_error.empty()},
            {"last_success", http_date_or_null(s.last_success)},
            {"last_failure", http_date_or_null(s.last_failure)},
            {"last_error", s.last_error.empty() ? json::value(nullptr) : json::value(s.last_error)},
            {"items", s.items},
            {"writes", json::object{{"create", s.created}, {"update", s.updated}, {"delete", s.deleted}}},
            {"conflicts", s.conflicts},
            {"requests", s.requests},
            {"reconciles", s.reconciles},
            {"queue", s.queue}});
    return out;
}

namespace {

/** One series of every target: its HELP and TYPE lines, then a sample per target from `value`. */
template <class Value>
void append_series(
    std::string& out,
    std::vector<TargetStatus> const& targets,
    std::string_view name,
    std::string_view type,
    std::string_view help,
    Value value
) {
    out += "# HELP " + std::string(name) + " " + std::string(help) + "\n# TYPE " + std::string(name) + " " +
           std::string(type) + "\n";
    for (auto const& s : targets)
        out += series(name, s.name) + value(s) + "\n";
}

std::string timestamp(std::optional<sys_seconds> t) {
    return std::to_string(t ? t->time_since_epoch().count() : 0);
}

} // namespace

void append_push_metrics(std::string& out, PushStatus const& push) {
    auto const targets = push.snapshot();
    if (targets.empty())
        return;
    out += "# HELP icsbridge_push_writes_total Writes into a push target's calendar, by kind.\n"
           "# TYPE icsbridge_push_writes_total counter\n";
    for (auto const& s : targets) {
        out += series("icsbridge_push_writes_total", s.name, ",kind=\"create\"") + std::to_string(s.created) +
               "\n";
        out += series("icsbridge_push_writes_total", s.name, ",kind=\"update\"") + std::to_string(s.updated) +
               "\n";
        out += series("icsbridge_push_writes_total", s.name, ",kind=\"delete\"") + std::to_string(s.deleted) +
               "\n";
    }
    auto const counter = [&](std::string_view name, std::string_view help, auto field) {
        append_series(out, targets, name, "counter", help, [&](auto const& s) {
            return std::to_string(s.*field);
        });
    };
    counter(
        "icsbridge_push_requests_total",
        "Requests sent to a push target, retries included.",
        &TargetStatus::requests
    );
    counter(
        "icsbridge_push_conflicts_total",
        "412 answers of a push target, each resolved by reading the item again.",
        &TargetStatus::conflicts
    );
    auto const gauge = [&](std::string_view name, std::string_view help, auto value) {
        append_series(out, targets, name, "gauge", help, value);
    };
    gauge(
        "icsbridge_push_items",
        "Our items in the target's calendar after the last reconcile.",
        [](auto const& s) { return std::to_string(s.items); }
    );
    gauge(
        "icsbridge_push_queue",
        "Writes planned and not yet made by the running reconcile.",
        [](auto const& s) { return std::to_string(s.queue); }
    );
    gauge("icsbridge_push_up", "1 when the last reconcile left the calendar in sync.", [](auto const& s) {
        return std::string(s.last_success && s.last_error.empty() ? "1" : "0");
    });
    gauge(
        "icsbridge_push_last_success_timestamp_seconds",
        "When the target was last in sync (0: not yet).",
        [](auto const& s) { return timestamp(s.last_success); }
    );
    // An alert on "failed since its last success" needs the failure's time too; /healthz has its reason.
    gauge(
        "icsbridge_push_last_failure_timestamp_seconds",
        "When a reconcile of the target last failed (0: never since start).",
        [](auto const& s) { return timestamp(s.last_failure); }
    );
}

void append_connection_metrics(std::string& out, ConnectionCounts const& c) {
    if (!c.enabled)
        return;
    out += "# HELP icsbridge_connections Subscribers' connected calendars ([connect]), by state.\n"
           "# TYPE icsbridge_connections gauge\n";
    out += "icsbridge_connections{state=\"in_sync\"} " + std::to_string(c.in_sync.load()) + "\n";
    out += "icsbridge_connections{state=\"failing\"} " + std::to_string(c.failing.load()) + "\n";
    out += "icsbridge_connections{state=\"stopped\"} " + std::to_string(c.stopped.load()) + "\n";
    auto const waiting = c.total - std::min<std::size_t>(c.total, c.in_sync + c.failing + c.stopped);
    out += "icsbridge_connections{state=\"setting_up\"} " + std::to_string(waiting) + "\n";
    out += "# HELP icsbridge_connection_requests_total API requests of every connection since start.\n"
           "# TYPE icsbridge_connection_requests_total counter\n"
           "icsbridge_connection_requests_total " +
           std::to_string(c.requests.load()) + "\n";
}

json::value connections_json(ConnectionCounts const& c) {
    if (!c.enabled)
        return nullptr;
    return json::object{
        {"total", c.total.load()},
        {"in_sync", c.in_sync.load()},
        {"failing", c.failing.load()},
        {"stopped", c.stopped.load()}};
}

json::value webpush_json(WebPushCounts const& c) {
    if (!c.enabled)
        return nullptr;
    return json::object{
        {"sent", c.sent.load()},
        {"failed", c.failed.load()},
        {"dropped", c.dropped.load()},
        {"removed", c.removed.load()}};
}

} // namespace icsbridge
