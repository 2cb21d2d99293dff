// File: feed_filter.cpp
// filter_keeps on any item's category names, texts and online flag. Matching is case-insensitive for ASCII
// letters (other characters compare as they are).
#include "model/feed_filter.hpp"

#include <algorithm>

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

} // namespace icsbridge
