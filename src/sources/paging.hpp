// File: paging.hpp
// How a list is followed page by page (events API `page`/`continuation`, UPSTREAM.md 1.8), as a pure state
// machine: no sockets, so every guard (loops, gaps, silent truncation, max_items) is tested on its own.
#pragma once

#include "sources/events_json.hpp"
#include <icsbridge/error.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
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

/** @brief What an endpoint has shown about `page=N`, where it also hands out continuation tokens. */
enum class PageNumbers { untried, accepted, refused };

/**
 * @brief What each endpoint of one source did with `page=N` (tried once, then remembered for the life of the
 * source, i.e. until a reload). Thread-safe: feeds of one source may refresh at once.
 */
class PageNumberMemory {
  public:
    PageNumbers known(std::string const& path) const;
    void remember(std::string const& path, PageNumbers what);

  private:
    mutable std::mutex mtx_;
    std::map<std::string, PageNumbers, std::less<>> by_endpoint_;
};

/** @brief The endpoint a path names: numeric segments (ids) become "*", so an organization's lists, or every
 * event's ticket classes, share one entry. */
std::string endpoint_of(std::string_view path);

/** @brief How the pages after the first are read. */
enum class ListRead {
    one_at_a_time, ///< each request after the previous answer (by continuation, or by page number)
    by_number,     ///< pages 2..N by number, a window of them in flight, used in page order
};

/**
 * @brief How to read the rest of a list once page 1 is in: by number when page 1 announces more pages than
 * one and the endpoint takes page numbers (or is untried), one at a time when the list may stop early
 * (`may_stop_early`), has no page count, or gives continuation tokens on an endpoint that refused numbers.
 */
ListRead read_after_first(Pagination const& first, PageNumbers known, bool may_stop_early);

/**
 * @brief Numbered requests to keep ahead of the page being used: 2 x max_concurrency (the client keeps
 * max_concurrency on the wire, the rest wait their turn), but only max_concurrency while page numbers are
 * untried on an endpoint that also gives tokens: page 2's answer is the test, and if it fails the others
 * are cancelled, so a refusal costs at most max_concurrency - 1 requests, once per endpoint, while a single
 * probe would cost every first read (every `export`) a round trip.
 */
int numbered_window(PageNumbers known, bool has_tokens, int max_concurrency);

/** @brief What to do with the answer to `page=N` in a numbered read of a list that also gives tokens. */
enum class NumberedVerdict {
    use,     ///< the page asked for, from the same list as page 1
    refused, ///< a 400, or another page than the one asked: continue by continuation token
    reread,  ///< the list changed since page 1 (object_count, page_count): read it again, one at a time
};

/**
 * @brief Judges the answer to `page=asked` (`status`, and its pagination when it parsed) against page 1.
 * Lists without continuation tokens have no other way to page: every answer is `use`d there, and the
 * cursor's guards judge it.
 */
NumberedVerdict judge_numbered(int asked, unsigned status, Pagination const* got, Pagination const& first);

/** @brief "the feed lists more than N items (max_items = N of feed NAME)": the refresh fails whole. */
Error too_many_items(std::string const& feed, std::size_t max_items);

} // namespace icsbridge
