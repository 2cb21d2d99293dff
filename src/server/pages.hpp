// File: pages.hpp
// The generated pages: /healthz JSON, /metrics text (the index page is in index_page.hpp).
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/store.hpp>

#include <string>
#include <string_view>

namespace icsbridge {

/** @brief HTML-escapes & < > " '. */
std::string html_escape(std::string_view s);

/** @brief Each feed's last success/error, staleness, item count, bytes, subscribers by name; "ok" overall. */
std::string healthz_json(FeedStore const& store, sys_seconds now);

/** @brief Prometheus text exposition format 0.0.4. */
std::string metrics_text(FeedStore const& store);

} // namespace icsbridge
