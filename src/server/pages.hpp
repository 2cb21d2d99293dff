// File: pages.hpp
// The generated pages: /healthz JSON, /metrics text (the index page is in index_page.hpp).
#pragma once

#include "views/view_cache.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/server.hpp>
#include <icsbridge/store.hpp>

#include <string>
#include <string_view>

namespace icsbridge {

/**
 * @brief Each feed's last success/error, staleness, item count, bytes, subscribers by name; "ok" overall
 * (every feed, token feeds included: one bit a load balancer needs). Without `details`, token feeds are
 * left out entirely (like their URLs, which answer 404), and `"details": false` says so. With `push` and
 * `details`, "push": the WebDAV-Push registrations, in all and per feed.
 */
std::string healthz_json(
    ServedFeeds const& store,
    Metrics const& metrics,
    sys_seconds now,
    bool details,
    dav::PushRegistry const* push = nullptr
);

/** @brief Prometheus text exposition format 0.0.4; the per-feed series of token feeds only with `details`.
 * With `push`: icsbridge_dav_push_registrations (in all, and per feed). */
std::string metrics_text(
    ServedFeeds const& store,
    ViewCacheStats const& views,
    Metrics const& metrics,
    bool details,
    dav::PushRegistry const* push = nullptr
);

} // namespace icsbridge
