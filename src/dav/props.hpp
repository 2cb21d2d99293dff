// File: props.hpp
// The resources of the tree (principal, home, collection, item) and their properties, written as
// multistatus responses. Private to src/dav/.
#pragma once

#include "dav/dav_detail.hpp"

#include <string>

namespace icsbridge::dav::detail {

/** @brief One resource of the tree, as a response names it. */
struct Node {
    enum class Kind { principal, home, collection, item };
    Kind kind = Kind::principal;
    std::string href;
    FeedEntry const* feed = nullptr; ///< collection, item
    Item const* item = nullptr;      ///< item
};

/** @brief The hrefs of the tree (the public one, or `owner`'s) under `base`. */
std::string principal_href(Tree const& tree);
/** @brief The logged-in subscriber's principal (current-user-principal); the public one for anonymous. */
std::string current_principal_href(Tree const& tree);
std::string home_href(Tree const& tree);
std::string collection_href(Tree const& tree, FeedEntry const& feed);

/** @brief One response for `node` with the properties `req` asks for (200 found, 404 not). */
void write_node(MultistatusWriter& w, Node const& node, PropRequest const& req, Tree const& tree);

} // namespace icsbridge::dav::detail
