// File: answer_detail.hpp
// What answer.cpp and report.cpp share (private to src/dav/): the request path as a resource of the tree,
// and the plain answers.
#pragma once

#include <icsbridge/dav.hpp>

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

/** @brief REPORT on a collection: calendar-multiget, calendar-query, sync-collection. */
Response report(Request const& req, Tree const& tree, FeedEntry const& feed, History const& history);

} // namespace icsbridge::dav::detail
