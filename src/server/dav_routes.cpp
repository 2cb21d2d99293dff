// File: dav_routes.cpp
// The CalDAV tree's thin route: which feeds the requester may see (the served table's lookup, as for a
// feed's .ics), their collections from the history, then dav::answer() and its answer as a response.
#include "server/route_ctx.hpp"
#include <icsbridge/dav.hpp>

#include <boost/url/parse.hpp>

#include <algorithm>

namespace icsbridge::server_detail {

namespace {

/** The path public_url carries ("" or "/calendars"): every href starts with it. */
std::string base_path(Config const& cfg) {
    auto const u = boost::urls::parse_uri(cfg.server.public_url);
    std::string p = u ? std::string(u->encoded_path()) : std::string();
    while (p.ends_with('/'))
        p.pop_back();
    return p;
}

/** What the feed's config makes (DAVx⁵ decides events or tasks at discovery, before any item). */
void add_components(Config const& cfg, FeedConfig const& f, std::vector<std::string>& out) {
    auto add = [&](std::string const& c) {
        if (std::find(out.begin(), out.end(), c) == out.end())
            out.push_back(c);
    };
    for (auto const& part : f.merge)
        if (FeedConfig const* p = cfg.find_feed(part); p && !p->is_merged())
            add_components(cfg, *p, out);
    if (f.is_merged())
        return;
    SourceConfig const* src = cfg.find_source(f.source);
    if (!src || src->type == SourceType::events || f.jobs_as != JobsAs::vtodo)
        add("VEVENT");
    if (src && src->type == SourceType::jobs && f.jobs_as != JobsAs::vevent)
        add("VTODO");
}

/** The feed as a collection for this request; nullopt when it may not see it (only public feeds, so far). */
std::optional<dav::FeedEntry> entry(Ctx const& c, FeedConfig const& f) {
    if (!f.is_public())
        return std::nullopt;
    FeedLookup found = c.store.lookup(f.name, "");
    if (!found.access.allowed)
        return std::nullopt;
    dav::FeedEntry e{f.name, f.title.empty() ? f.name : f.title, f.color, {}, nullptr};
    add_components(c.cfg, f, e.components);
    if (found.snapshot)
        e.collection = c.dav->collection(f.name, found.snapshot, c.now);
    return e;
}

/** Only the feeds the request is about: the home lists them all, a collection or item names one. */
dav::Tree tree_for(Ctx const& c, std::string_view path) {
    dav::Tree tree;
    tree.base = base_path(c.cfg);
    constexpr std::string_view feeds = "/dav/feeds/";
    if (path == "/dav/feeds" || path == feeds) {
        for (auto const& f : c.cfg.feeds)
            if (auto e = entry(c, f))
                tree.feeds.push_back(std::move(*e));
    } else if (path.starts_with(feeds)) {
        auto name = path.substr(feeds.size());
        name = name.substr(0, name.find('/'));
        if (FeedConfig const* f = c.cfg.find_feed(name))
            if (auto e = entry(c, *f))
                tree.feeds.push_back(std::move(*e));
    }
    return tree;
}

} // namespace

ServerResponse handle_dav(Ctx const& c, std::string_view path) {
    dav::Tree const tree = tree_for(c, path);
    dav::Request const
        req{c.req.method, path, c.req.depth, c.req.body, c.req.if_none_match, c.req.body_too_large};
    auto a = dav::answer(req, tree, *c.dav);
    ServerResponse r;
    r.status = a.status;
    r.headers = std::move(a.headers);
    r.headers.emplace_back("Cache-Control", "no-cache");
    r.text = std::move(a.body);
    return r;
}

} // namespace icsbridge::server_detail
