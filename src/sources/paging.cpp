// File: paging.cpp
// PageCursor: the paging guards of the events API client, free of I/O.
#include "sources/paging.hpp"

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

Error too_many_items(std::string const& feed, std::size_t max_items) {
    return fail(
        errc::upstream_too_large,
        "feed " + feed + " lists more than " + std::to_string(max_items) +
            " items (max_items = " + std::to_string(max_items) +
            "); the last good calendar is kept. Raise max_items or narrow the feed"
    );
}

} // namespace icsbridge
