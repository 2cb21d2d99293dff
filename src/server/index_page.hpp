// File: index_page.hpp
// The index page (`/`): every public feed with its state, subscribe links and a QR code; and the small
// helpers the generated pages share (webcal:// form of a URL, the page stylesheet).
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/store.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace icsbridge {

/** @brief The webcal:// form of an http(s) URL (calendar apps open their subscribe dialog for it). */
std::string webcal_url(std::string_view http_url);

/**
 * @brief Google Calendar's add-by-URL link for a feed URL (a token in it kept): the feed's google view
 * (`?for=google`), which Google takes whatever the size of the feed.
 */
std::string google_add_url(std::string_view http_url);

/**
 * @brief When a feed's data last changed upstream and when it was last fetched, as a person says it:
 * "changed 3 min ago, checked 20 s ago" (either part left out when unknown; empty when both are).
 */
std::string
freshness(std::optional<sys_seconds> changed, std::optional<sys_seconds> checked, sys_seconds now);

/** @brief One small stylesheet for the generated pages: system fonts, no external resources, phone first. */
extern std::string_view const page_style;

/**
 * @brief The public feeds, each with title, description, item count, last refresh, health, webcal:// and
 * https:// links, agenda link, a QR code of its URL and (with `[dav] enabled`) its CalDAV address; how to
 * subscribe per app. Never a token feed; every text is escaped.
 */
std::string index_page(Config const& cfg, ServedFeeds const& store, sys_seconds now);

} // namespace icsbridge
