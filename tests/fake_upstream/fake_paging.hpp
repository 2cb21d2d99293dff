// File: fake_paging.hpp
// How the fake upstream pages an events list, like the real API (UPSTREAM.md 1.8): every page carries
// `page_number`, `page_count`, `object_count`, `has_more_items` and, while more follow, a `continuation`
// token; a request may ask by `page=N` or by token. Scriptable: page numbers refused or ignored, and items
// appearing or vanishing at the head of the list while it is read. Pure: no sockets, no JSON rendering.
#pragma once

#include <boost/json/object.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge::test::fake {

/** @brief What the fake does with `page=N`. */
enum class PageNumbers {
    accept, ///< answers page N (the real API)
    refuse, ///< 400 BAD_PAGE for any page=N (an endpoint that pages by token only)
    ignore, ///< answers page 1 as if no page had been asked (a server that drops unknown parameters)
};

/** @brief "accept" / "refuse" / "ignore"; nullopt for anything else. */
std::optional<PageNumbers> parse_page_numbers(std::string_view name);
std::string_view page_numbers_name(PageNumbers mode);

/**
 * @brief Items moving while a list is read. Before the shift the list's items [0, add) are not listed yet;
 * after it they are (added at the head), and items [add, add + remove) are gone (ended meanwhile). So page N
 * by number holds other items than before, while a continuation token, a cursor on an item, stays valid.
 */
struct ListShift {
    std::size_t add = 0;
    std::size_t remove = 0;
    int after_pages = -1; ///< list pages answered before the shift; -1: never
};

/** @brief The list positions (full list, as filtered for the question) hidden from one answer. */
struct Hidden {
    std::size_t from = 0, to = 0;
};

/** @brief What the shift hides from an answer, `shifted` or not yet. */
Hidden hidden_by(ListShift const& shift, bool shifted);

struct PagingRules {
    PageNumbers page_numbers = PageNumbers::accept;
    Hidden hidden;
};

/** @brief One page: the full-list positions to serve, in order, and the `pagination` object. */
struct PageSlice {
    std::vector<std::size_t> items;
    boost::json::object pagination;
};

/** @brief An error answer in the API's shape (400 BAD_PAGE, BAD_CONTINUATION_TOKEN). */
struct PageError {
    std::string error;
    std::string description;
};

struct PageAnswer {
    std::optional<PageSlice> slice; ///< empty: `error`
    PageError error;
};

/**
 * @brief The page a request asks for (`page`, `continuation` or neither) of a list of `list_size` items with
 * `page_size` items per page, under `rules`.
 */
PageAnswer page_of_list(
    std::size_t list_size,
    int page_size,
    std::string const* page,
    std::string const* continuation,
    PagingRules const& rules
);

/** @brief The opaque token that resumes a list at full-list position `index`, and its inverse. */
std::string make_continuation(std::size_t index);
std::optional<std::size_t> parse_continuation(std::string const& token);

} // namespace icsbridge::test::fake
