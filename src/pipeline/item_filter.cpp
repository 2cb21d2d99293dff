// File: item_filter.cpp
// A feed's filter on the events and job posts its upstream returned; descriptions are matched as the
// calendar shows them (plain text, not HTML markup).
#include "pipeline/item_filter.hpp"

#include "model/feed_filter.hpp"
#include <icsbridge/ical.hpp>

#include <algorithm>
#include <array>
#include <iterator>

namespace icsbridge {

bool filter_keeps(FeedFilter const& f, Event const& e) {
    if (f.empty())
        return true;
    std::string const category = event_category_name(e.category_id);
    // As DESCRIPTION shows it: the upstream's plain text when given, else the HTML made readable.
    std::string const description =
        e.description_text.empty() ? html_to_text(e.description_html) : e.description_text;
    std::array<std::string_view, 1> const categories{category};
    std::array<std::string_view, 3> const texts{e.name, e.summary, description};
    return filter_keeps(f, categories, texts, e.online);
}

bool filter_keeps(FeedFilter const& f, JobPost const& p) {
    if (f.empty())
        return true;
    std::string const description = html_to_text(p.description_html);
    std::array<std::string_view, 2> const categories{p.category, p.type};
    std::array<std::string_view, 2> const texts{p.title, description};
    return filter_keeps(f, categories, texts, p.remote);
}

FeedItems apply_filter(FeedFilter const& f, FeedItems const& items) {
    FeedItems out;
    out.asked_at = items.asked_at;
    std::copy_if(
        items.events.begin(),
        items.events.end(),
        std::back_inserter(out.events),
        [&](Event const& e) { return filter_keeps(f, e); }
    );
    std::copy_if(items.jobs.begin(), items.jobs.end(), std::back_inserter(out.jobs), [&](JobPost const& p) {
        return filter_keeps(f, p);
    });
    return out;
}

} // namespace icsbridge
