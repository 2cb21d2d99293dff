// File: page_trail.cpp
// PageTrail: the tokens seen, the pages counted.
#include "push/page_trail.hpp"

#include <algorithm>

namespace icsbridge::push {

PageTrail::PageTrail(std::string target, std::string listing, std::size_t page_size, std::size_t item_limit)
    : target_(std::move(target))
    , listing_(std::move(listing))
    , page_size_(std::max<std::size_t>(page_size, 1))
    , item_limit_(item_limit)
    , most_pages_(item_limit / page_size_ + 1) {}

Result<void> PageTrail::next(std::string const& next) {
    // The token itself is never shown: a page link may carry a secret of the service's.
    if (!seen_.insert(next).second)
        return fail(
            errc::upstream_malformed,
            target_ + ": the service named a page of " + listing_ + " it had named before (after " +
                std::to_string(pages_) + (pages_ == 1 ? " page" : " pages") +
                "): the listing would never end, so it was stopped; trying again next period"
        );
    if (++pages_ > most_pages_)
        return fail(
            errc::upstream_malformed,
            target_ + ": " + listing_ + " goes on past " + std::to_string(most_pages_) + " pages of " +
                std::to_string(page_size_) + " (more than " + std::to_string(item_limit_) +
                " items): the listing would never end, so it was stopped; trying again next period"
        );
    return Result<void>{};
}

} // namespace icsbridge::push
