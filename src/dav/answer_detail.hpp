// File: answer_detail.hpp
// What answer.cpp and report.cpp share (private to src/dav/): the request path as a resource of the tree,
// and the plain answers.
#pragma once

#include "dav/dav_detail.hpp"
#include <icsbridge/dav.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::dav::detail {

/** @brief A request path under /dav/. */
struct Path {
    enum class Kind { none, principal, home, collection, item };
    Kind kind = Kind::none;
    std::string_view user; ///< /dav/users/USER/…: the subscriber's tree; empty: the public one
    std::string_view feed; ///< collection, item
    std::string_view file; ///< item
};

Path parse_path(std::string_view path);

/** @brief A DAV:error body naming a precondition (`condition` is its XML). */
Response dav_error(unsigned status, std::string_view condition);
Response plain(unsigned status, std::string_view text);
/** @brief 207 with `body`. */
Response multistatus(std::string body);

/** @brief Writes a listing's next response (maybe none); false once none is left. */
using Step = std::function<bool(MultistatusWriter&)>;

/**
 * @brief A 207 of the responses `step` writes (at most `count`), closed with `sync_token` when given: one
 * string when they are few, else a body made a batch at a time as the socket takes it.
 */
Response listing(Step step, std::size_t count, std::string sync_token = {});

/**
 * @brief What a listing of a collection's items keeps while it is sent (the request and its tree are gone by
 * then): the requester's tree without its feeds, the feed, the properties asked for.
 */
struct ItemsOf {
    ItemsOf(Tree const& t, FeedEntry f, PropRequest p);
    Tree tree;
    FeedEntry feed; ///< with a collection
    PropRequest props;
    std::string href; ///< the collection's

    Collection const& collection() const { return *feed.collection; }
    /** @brief The response of `item` at `item_href`. */
    void write(MultistatusWriter& w, Item const& item, std::string item_href) const;
};

/**
 * @brief The items `filter` lets through (all without one), in calendar order; with `with_collection`, the
 * collection's own response first (PROPFIND Depth 1).
 */
Response items_listing(
    std::shared_ptr<ItemsOf const> of,
    std::optional<CompFilter> filter,
    std::string sync_token,
    bool with_collection
);

/** @brief REPORT on a collection: calendar-multiget, calendar-query, sync-collection. */
Response report(Request const& req, Tree const& tree, FeedEntry const& feed, History const& history);

} // namespace icsbridge::dav::detail
