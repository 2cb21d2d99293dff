// File: reload_plan.cpp
// Comparing two configs for a reload.
#include "app/reload_plan.hpp"

namespace icsbridge {

namespace {

/** @brief The feed with what does not reach its calendar blanked out. */
FeedConfig calendar_part(FeedConfig f) {
    f.token.clear();
    f.tokens.clear();
    f.line = 0;
    // The agenda page reads its zone per request: no calendar changes with it.
    f.timezone.clear();
    f.timezone_line = f.timezone_column = 0;
    return f;
}

bool same_source(Config const& a, Config const& b, std::string const& name) {
    auto const* sa = a.find_source(name);
    auto const* sb = b.find_source(name);
    return sa && sb ? *sa == *sb : sa == sb;
}

} // namespace

ReloadPlan plan_reload(Config const& old, Config const& next) {
    ReloadPlan plan;
    auto const& so = old.server;
    auto const& sn = next.server;
    if (so.host != sn.host || so.port != sn.port)
        plan.restart_needed.emplace_back("listen");
    if (so.threads != sn.threads)
        plan.restart_needed.emplace_back("threads");
    if (so.gzip != sn.gzip)
        plan.restart_needed.emplace_back("gzip");
    if (so.max_connections != sn.max_connections)
        plan.restart_needed.emplace_back("max_connections");
    if (so.max_connections_per_client != sn.max_connections_per_client ||
        so.trusted_proxies != sn.trusted_proxies)
        plan.restart_needed.emplace_back("max_connections_per_client/trusted_proxies");
    if (so.request_timeout != sn.request_timeout || so.idle_timeout != sn.idle_timeout)
        plan.restart_needed.emplace_back("request_timeout/idle_timeout");
    if (old.storage.dir != next.storage.dir)
        plan.restart_needed.emplace_back("storage.dir");
    if (old.dav != next.dav)
        plan.restart_needed.emplace_back("[dav]");
    if (old.cluster != next.cluster)
        plan.restart_needed.emplace_back("[cluster]");
    plan.sources_changed = old.sources != next.sources;

    for (auto const& f : next.feeds) {
        auto const* before = old.find_feed(f.name);
        if (!before)
            plan.added.push_back(f.name);
        else if (calendar_part(*before) == calendar_part(f) && same_source(old, next, f.source) && so.public_url == sn.public_url)
            plan.kept.push_back(f.name);
        else
            plan.changed.push_back(f.name);
    }
    for (auto const& f : old.feeds)
        if (!next.find_feed(f.name))
            plan.removed.push_back(f.name);
    return plan;
}

} // namespace icsbridge
