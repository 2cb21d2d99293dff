// File: agenda_page.hpp
// The agenda page of a feed (`/feeds/NAME.html`): its coming items grouped by day in one time zone,
// built from the snapshot's index (no script, every text escaped, nothing but what the calendar holds).
#pragma once

#include "views/feed_index.hpp"
#include <icsbridge/error.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

/** @brief What the page shows besides the items. */
struct AgendaPage {
    std::string title;       ///< the feed's calendar name
    std::string https_url;   ///< the feed's URL, with `?token=` when the request had one
    std::string tz;          ///< `?tz=` of the request; empty: `feed_zone`
    std::size_t limit = 300; ///< at most this many items (the soonest)
    std::optional<std::chrono::sys_seconds> changed; ///< when the calendar's data last changed upstream
    std::optional<std::chrono::sys_seconds> checked; ///< when the feed was last fetched
    /// [connect]: "Keep my … in sync" buttons, each {element id, label, href}; empty: none
    struct Button {
        std::string id, label, href;
    };
    std::vector<Button> connect;
    std::string feed_zone;   ///< the feed's `timezone`; empty: the zone most items are written in (else UTC)
    std::string dav_url{};   ///< the feed's CalDAV collection (dav::address()); empty: none
    std::string dav_user{};  ///< a token feed's: the subscriber whose login opens it; empty: a public one
    std::string index_url{}; ///< the index page the page links back to; empty: `/`
};

/**
 * @brief The HTML page: a link back to the index, the ways to add the feed grouped per app (what each does
 * and how fresh it keeps the calendar), then the items. Items that have not ended by `now` (to-dos: whose
 * due date is not past) are listed by start (to-dos: by due date) in the page's zone, cancelled ones struck
 * through.
 * @return errc::usage "invalid tz: ..." for a zone name the system does not know
 */
Result<std::string>
agenda_page(views::FeedIndex const& index, AgendaPage const& page, std::chrono::sys_seconds now);

} // namespace icsbridge
