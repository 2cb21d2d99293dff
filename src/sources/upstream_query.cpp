// File: upstream_query.cpp
// UpstreamQuery: the question a feed asks its upstream, and the key that says two questions are the same.
#include <icsbridge/sources.hpp>

namespace icsbridge {

UpstreamQuery query_of(FeedConfig const& feed) {
    UpstreamQuery q;
    q.name = feed.name;
    q.source = feed.source;
    q.select = feed.select;
    q.organization_id = feed.organization_id;
    q.params = feed.params;
    q.window = feed.window;
    q.ticket_classes = feed.ticket_classes;
    q.keep_past = feed.keep_past;
    q.max_items = feed.max_items;
    return q;
}

std::string UpstreamQuery::key() const {
    // Separators that cannot occur in the parts keep distinct questions from colliding. keep_past and
    // max_items are left out: a shared fetch reads as far back and as many as its most demanding feed
    // asks, and each feed keeps its own share afterwards.
    std::string key = source + '\x1f' + select + '\x1f' + organization_id + '\x1f' +
                      (window ? std::to_string(window->count()) : std::string("-")) + '\x1f' +
                      (ticket_classes ? "tc" : "-");
    for (auto const& [k, v] : params)
        key += '\x1f' + k + '\x1e' + v;
    return key;
}

} // namespace icsbridge
