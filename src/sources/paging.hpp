// File: paging.hpp
// How a list is followed page by page (events API `page`/`continuation`, UPSTREAM.md 1.8), as a pure state
// machine: no sockets, so every guard (loops, gaps, silent truncation, max_items) is tested on its own.
#pragma once

#include "sources/events_json.hpp"
#include <icsbridge/error.hpp>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace icsbridge {

/** @brief What the client must add to its base query for the next request. */
struct PageRequest {
    std::optional<int> page;                 ///< `page=N` (none for the first request)
    std::optional<std::string> continuation; ///< `continuation=TOKEN`
};

/**
 * @brief Follows one paged list. The caller asks `next()`, sends it, and reports the answer with
 * `arrived()` (or `bad_page()` for a 400 BAD_PAGE); each returns whether to go on, or an error whose text
 * completes "malformed response from PATH: ...".
 *
 * A refresh that did not read every announced page fails: an error page inside a known page count, an
 * empty page before the last, or a list that announces items and lists none. A loop (a repeated
 * continuation, a page number that does not advance, pages that only repeat what came before) stops with
 * an error instead of spinning.
 */
class PageCursor {
  public:
    PageRequest next() const;

    /**
     * @param items  how many entries the page held
     * @param fresh  how many of them had an id not seen on an earlier page
     * @return true to request another page, false when the list is complete
     */
    Result<bool> arrived(Pagination const& p, std::size_t items, std::size_t fresh);

    /** @brief The answer to a page request was 400 BAD_PAGE: the end of an unknown-length list, else an
     * error. */
    Result<bool> bad_page() const;

    int pages() const { return pages_; }

    /** @brief The page count the upstream announced, once it has. */
    std::optional<int> page_count() const { return page_count_; }

  private:
    static constexpr int max_stale_pages = 3;

    std::set<std::string> tokens_;
    std::optional<std::string> continuation_;
    int next_page_ = 0; // 0: the first request, sent without a page parameter
    int last_page_number_ = 0;
    std::optional<int> page_count_;
    int pages_ = 0;
    int stale_pages_ = 0;
    std::size_t items_ = 0;
};

/** @brief "the feed lists more than N items (max_items = N of feed NAME)": the refresh fails whole. */
Error too_many_items(std::string const& feed, std::size_t max_items);

} // namespace icsbridge
