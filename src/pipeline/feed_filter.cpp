// File: feed_filter.cpp
// filter_keeps / apply_filter. Matching is case-insensitive for ASCII letters (other characters compare
// as they are); descriptions are matched as the calendar shows them (plain text, not HTML markup).
#include "pipeline/feed_filter.hpp"

#include <algorithm>
#include <array>

namespace icsbridge {

namespace {

char fold(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool contains(std::string_view hay, std::string_view needle) {
    return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
               return fold(a) == fold(b);
           }) != hay.end();
}

bool equal(std::string_view a, std::string_view b) {
    return a.size() == b.size() && contains(a, b);
}

} // namespace

bool filter_keeps(
    FeedFilter const& f,
    std::span<std::string_view const> categories,
    std::span<std::string_view const> texts,
    bool online
) {
    if (f.online && *f.online != online)
        return false;
    auto any_text = [&](std::vector<std::string> const& words) {
        return std::any_of(words.begin(), words.end(), [&](std::string const& w) {
            return std::any_of(texts.begin(), texts.end(), [&](std::string_view t) {
                return contains(t, w);
            });
        });
    };
    if (!f.categories.empty() &&
        !std::any_of(f.categories.begin(), f.categories.end(), [&](std::string const& c) {
            return std::any_of(categories.begin(), categories.end(), [&](std::string_view x) {
                return !x.empty() && equal(x, c);
            });
        }))
        return false;
    if (!f.keywords.empty() && !any_text(f.keywords))
        return false;
    return !any_text(f.exclude_keywords);
}

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
