// File: page_trail.hpp
// A push listing that never ends is stopped (issue 35): Google's pageToken, Graph's @odata.nextLink and a
// CalDAV server's sync token of a truncated report each name the next page; a name seen before, or more
// pages than the listing could hold, means the service loops, and following it would spend the target's
// request quota for ever. Sans-io, as the upstream reader's PageCursor.
#pragma once

#include <icsbridge/error.hpp>

#include <cstddef>
#include <set>
#include <string>
#include <string_view>

namespace icsbridge::push {

/**
 * @brief The most items one listing of a target is taken to hold: a feed's max_items by default (100,000),
 * as many again of the person's own events beside ours.
 */
inline constexpr std::size_t listing_item_limit = 200000;

/** @brief Follows the pages of one listing, refusing one that loops. */
class PageTrail {
  public:
    /**
     * @param target    the target's name, for messages
     * @param listing   what is listed, for messages ("the calendar list", "the events")
     * @param page_size the items a page holds at most: more pages than item_limit / page_size + 1 is a loop
     */
    PageTrail(
        std::string target,
        std::string listing,
        std::size_t page_size,
        std::size_t item_limit = listing_item_limit
    );

    /** @brief The first page was asked by `token` (a kept sync token, a delta link): it is not asked again.
     */
    void first(std::string const& token) { seen_.insert(token); }

    /**
     * @brief The answer named `next` (a page token or link, never empty) as the next page: ok to ask it; an
     * error (errc::upstream_malformed, naming the target) when it was named before or the pages are too many.
     */
    Result<void> next(std::string const& next);

    /** @brief Pages asked so far, the first included. */
    std::size_t pages() const { return pages_; }
    /** @brief The most pages followed. */
    std::size_t most_pages() const { return most_pages_; }

  private:
    std::string target_;
    std::string listing_;
    std::size_t page_size_;
    std::size_t item_limit_;
    std::size_t most_pages_;
    std::size_t pages_ = 1;
    std::set<std::string, std::less<>> seen_;
};

} // namespace icsbridge::push
