// File: report.cpp
// The three REPORTs on a collection: calendar-multiget (by href), calendar-query (by filter) and
// sync-collection (RFC 6578: everything for an empty token, else what the history says changed).
#include "dav/answer_detail.hpp"
#include "dav/props.hpp"

namespace icsbridge::dav::detail {

namespace {

std::string_view last_segment(std::string_view href) {
    if (auto const q = href.find_first_of("?#"); q != std::string_view::npos)
        href = href.substr(0, q);
    auto const slash = href.rfind('/');
    return slash == std::string_view::npos ? href : href.substr(slash + 1);
}

/** The bytes a response with calendar-data will take, so the body is allocated once. */
std::size_t expected_size(Collection const& c, PropRequest const& props) {
    bool data = false;
    for (auto const& q : props.props)
        data = data || q.name == "calendar-data";
    std::size_t n = c.items.size() * 256;
    if (data)
        for (auto const& item : c.items)
            n += item.body.size() + item.body.size() / 16;
    return n;
}

Response sync(Report const& rep, Tree const& tree, FeedEntry const& feed, History const& history) {
    Collection const& c = *feed.collection;
    auto const href = collection_href(tree, feed);
    if (rep.sync_token.empty()) {
        MultistatusWriter w(expected_size(c, rep.props));
        for (auto const& item : c.items)
            write_node(w, {Node::Kind::item, href + item.name, &feed, &item}, rep.props, tree);
        return multistatus(w.finish(c.token()));
    }
    auto const changes = history.since(feed.name, c, rep.sync_token);
    if (!changes)
        return dav_error(403, "<D:valid-sync-token/>");
    MultistatusWriter w;
    for (auto const& name : changes->changed)
        write_node(w, {Node::Kind::item, href + name, &feed, c.find(name)}, rep.props, tree);
    for (auto const& name : changes->gone)
        w.status(href + name, 404);
    return multistatus(w.finish(c.token()));
}

} // namespace

Response report(Request const& req, Tree const& tree, FeedEntry const& feed, History const& history) {
    auto const rep = parse_report(req.body);
    if (!rep)
        return plain(400, rep.error().message);
    if (rep->kind == Report::Kind::unsupported)
        return dav_error(403, "<D:supported-report/>");
    if (!feed.collection) {
        auto r = plain(503, "this feed has not been fetched yet; try again shortly");
        r.headers.emplace_back("Retry-After", "60");
        return r;
    }
    if (rep->kind == Report::Kind::sync)
        return sync(*rep, tree, feed, history);
    Collection const& c = *feed.collection;
    auto const href = collection_href(tree, feed);
    MultistatusWriter w(expected_size(c, rep->props));
    if (rep->kind == Report::Kind::multiget) {
        for (auto const& h : rep->hrefs) {
            auto const name = last_segment(h);
            if (Item const* item = c.find(name))
                write_node(w, {Node::Kind::item, h, &feed, item}, rep->props, tree); // echoed as sent
            else
                w.status(h, 404);
        }
    } else {
        for (auto const& item : c.items)
            if (!rep->filter || matches(*rep->filter, item))
                write_node(w, {Node::Kind::item, href + item.name, &feed, &item}, rep->props, tree);
    }
    return multistatus(w.finish());
}

} // namespace icsbridge::dav::detail
