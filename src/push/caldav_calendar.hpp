// File: caldav_calendar.hpp
// Finding the calendar a target writes into (RFC 4791 and RFC 6764: current-user-principal,
// calendar-home-set, the calendar by display name, MKCALENDAR when missing) and listing our resources in
// it (sync-collection, RFC 6578; a Depth: 1 PROPFIND where the server has no sync).
#pragma once

#include "push/plan.hpp"
#include "push/target_client.hpp"

#include <boost/asio/awaitable.hpp>

#include <string>
#include <vector>

namespace icsbridge::push {

/** @brief The calendar collection writes go to, and what it takes. */
struct Collection {
    std::string url;   ///< absolute, ends with '/'
    bool todos = true; ///< the collection takes VTODO (supported-calendar-component-set)
    bool created = false;
    bool missing = false; ///< not there and, as asked, not created: `url` is where it would be
};

/**
 * @brief The calendar for `target`: `url` itself, or the one named `calendar`, created when missing unless
 * `create` is false (a dry run: then Collection::missing).
 */
boost::asio::awaitable<Result<Collection>>
find_calendar(TargetClient& dav, TargetConfig const& target, bool create = true);

/** @brief Our resources in the collection: all of them, or what changed since a sync token. */
struct ListingUpdate {
    bool full = false;                ///< `changed` is the whole listing (else changes to apply)
    Listing changed;                  ///< owned resource name -> ETag
    std::vector<std::string> removed; ///< owned names gone since the token
    std::string sync_token;           ///< empty: the server keeps none (list in full next time)
};

/**
 * @brief Lists what changed since `token` (empty: everything). A token the server no longer knows gives a
 * full listing. errc::upstream_not_found when the collection is gone.
 */
boost::asio::awaitable<Result<ListingUpdate>>
list_ours(TargetClient& dav, std::string const& collection, std::string const& token);

/** @brief `listing` with `update` applied. */
void apply_update(ListingUpdate const& update, Listing& listing);

/** @brief The ETag of one resource now; nullopt when it is gone. */
boost::asio::awaitable<Result<std::optional<std::string>>>
etag_now(TargetClient& dav, std::string const& url);

} // namespace icsbridge::push
