// File: target_items.cpp
// target_items(): view (as a subscriber's URL would get it), index, split per UID, then the union.
#include "push/target_items.hpp"

#include "push/resources.hpp"
#include "views/feed_index.hpp"
#include "views/view.hpp"

#include <boost/url/parse_query.hpp>

#include <set>

namespace icsbridge::push {

namespace {

/** The calendar pushed for one feed: the whole snapshot, or its view. */
Result<std::string> pushed_calendar(FeedCalendar const& f, std::chrono::sys_days today) {
    if (f.view.empty())
        return std::string(f.body);
    auto query = boost::urls::parse_query(f.view);
    if (!query)
        return fail(errc::config_invalid, "feed " + f.feed + ": push view \"" + f.view + "\" is no query");
    auto params = views::parse_view_params(*query, today);
    if (!params)
        return fail(errc::config_invalid, "feed " + f.feed + ": push view: " + params.error().message);
    auto index = views::index_calendar(f.body);
    if (!index)
        return fail(errc::snapshot_corrupt, "feed " + f.feed + ": its calendar cannot be read for a view");
    return views::build_view(f.body, *index, *params).body;
}

} // namespace

Result<TargetItems>
target_items(std::vector<FeedCalendar> const& feeds, bool todos, std::chrono::sys_days today) {
    TargetItems out;
    std::set<std::string> uids;
    for (auto const& f : feeds) {
        auto calendar = pushed_calendar(f, today);
        if (!calendar)
            return calendar.error();
        auto index = views::index_calendar(*calendar);
        if (!index)
            return fail(errc::snapshot_corrupt, "feed " + f.feed + ": its calendar cannot be cut into items");
        auto split = split_calendar(*calendar, *index, todos);
        out.skipped_todos += split.skipped_todos;
        for (auto& r : split.resources)
            if (uids.insert(r.uid).second)
                out.resources.push_back(std::move(r));
    }
    return out;
}

} // namespace icsbridge::push
