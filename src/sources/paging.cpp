// File: paging.cpp
// PageCursor: the paging guards of the events API client, free of I/O.
#include "sources/paging.hpp"

#include <algorithm>

namespace icsbridge {

PageRequest PageCursor::next() const {
    PageRequest r;
    if (continuation_)
        r.continuation = continuation_;
    else if (next_page_ > 0)
        r.page = next_page_;
    return r;
}

Result<bool> PageCursor::bad_page() const {
    // Old clients paged until BAD_PAGE, so past the end of a list of unknown length it is the end.
    // Inside a page count the upstream itself announced, it is a page we failed to read.
    if (next_page_ > 0 && (!page_count_ || next_page_ > *page_count_))
        return false;
    return fail(
        errc::upstream_malformed,
        "page " + std::to_string(next_page_) +
            (page_count_ ? " of " + std::to_string(*page_count_) : std::string()) +
            " answered BAD_PAGE; not every page was read, so the last good calendar is kept"
    );
}

Result<bool> PageCursor::arrived(Pagination const& p, std::size_t items, std::size_t fresh) {
    ++pages_;
    items_ += items;
    int const current = p.page_number.value_or(next_page_ > 0 ? next_page_ : 1);
    if (p.page_count && *p.page_count > 0)
        page_count_ = p.page_count;

    if (items == 0) {
        if (page_count_ && current < *page_count_)
            return fail(
                errc::upstream_malformed,
                "page " + std::to_string(current) + " of " + std::to_string(*page_count_) +
                    " listed nothing; not every page was read, so the last good calendar is kept"
            );
        if (items_ == 0 && p.object_count.value_or(0) > 0)
            return fail(
                errc::upstream_malformed,
                "the list announces " + std::to_string(*p.object_count) +
                    " items but carries none; the last good calendar is kept"
            );
        return false;
    }
    // Contents shift between requests, so a few repeated ids are normal; page after page of nothing new
    // is a server that ignores our paging parameters.
    stale_pages_ = fresh == 0 ? stale_pages_ + 1 : 0;
    if (stale_pages_ >= max_stale_pages)
        return fail(
            errc::upstream_malformed,
            std::to_string(stale_pages_) + " pages in a row repeated earlier items; stopped following pages"
        );
    if (p.has_more_items == false)
        return false;
    if (!p.continuation.empty()) {
        if (!tokens_.insert(p.continuation).second)
            return fail(
                errc::upstream_malformed,
                "the same continuation token came twice; stopped following pages"
            );
        continuation_ = p.continuation;
        return true;
    }
    continuation_.reset();
    if (current <= last_page_number_)
        return fail(
            errc::upstream_malformed,
            "page_number " + std::to_string(current) + " did not advance after page " +
                std::to_string(last_page_number_) + "; stopped following pages"
        );
    last_page_number_ = current;
    bool const more = page_count_ ? current < *page_count_ : p.has_more_items.value_or(false);
    if (!more)
        return false;
    next_page_ = current + 1;
    return true;
}

PageNumbers PageNumberMemory::known(std::string const& path) const {
    auto const key = endpoint_of(path);
    std::lock_guard lock(mtx_);
    auto it = by_endpoint_.find(key);
    return it == by_endpoint_.end() ? PageNumbers::untried : it->second;
}

void PageNumberMemory::remember(std::string const& path, PageNumbers what) {
    auto key = endpoint_of(path);
    std::lock_guard lock(mtx_);
    by_endpoint_[std::move(key)] = what;
}

std::string endpoint_of(std::string_view path) {
    std::string out;
    out.reserve(path.size());
    while (!path.empty()) {
        auto const slash = path.find('/');
        auto const seg = path.substr(0, slash);
        bool const numeric = !seg.empty() && seg.find_first_not_of("0123456789") == std::string_view::npos;
        out += numeric ? std::string_view("*") : seg;
        if (slash == std::string_view::npos)
            break;
        out += '/';
        path.remove_prefix(slash + 1);
    }
    return out;
}

ListRead read_after_first(Pagination const& first, PageNumbers known, bool may_stop_early) {
    bool const more = first.has_more_items.value_or(true) && first.page_count &&
                      *first.page_count > first.page_number.value_or(1);
    if (may_stop_early || !more)
        return ListRead::one_at_a_time;
    // Without tokens page numbers are the only way on; with them, numbers only where they work.
    if (!first.continuation.empty() && known == PageNumbers::refused)
        return ListRead::one_at_a_time;
    return ListRead::by_number;
}

int numbered_window(PageNumbers known, bool has_tokens, int max_concurrency) {
    if (has_tokens && known == PageNumbers::untried)
        return std::max(1, max_concurrency);
    return std::max(2, 2 * max_concurrency);
}

NumberedVerdict judge_numbered(int asked, unsigned status, Pagination const* got, Pagination const& first) {
    if (first.continuation.empty())
        return NumberedVerdict::use;
    if (status == 400)
        return NumberedVerdict::refused;
    if (!got) // an error status, or a body that did not parse: the error path reports it
        return NumberedVerdict::use;
    if (got->page_number != asked)
        return NumberedVerdict::refused;
    // Items moved between page 1 and this page (an event added or ended meanwhile): pages by number no
    // longer line up, while a continuation token is a cursor that does not move with them.
    if ((first.object_count && got->object_count && *first.object_count != *got->object_count) ||
        (first.page_count && got->page_count && *first.page_count != *got->page_count))
        return NumberedVerdict::reread;
    return NumberedVerdict::use;
}

Error too_many_items(std::string const& feed, std::size_t max_items) {
    return fail(
        errc::upstream_too_large,
        "feed " + feed + " lists more than " + std::to_string(max_items) +
            " items (max_items = " + std::to_string(max_items) +
            "); the last good calendar is kept. Raise max_items or narrow the feed"
    );
}

} // namespace icsbridge
