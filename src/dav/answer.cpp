// File: answer.cpp
// answer(): the request's path named as a resource of the tree, the method checked against what a
// read-only tree allows, then PROPFIND (Depth), GET/HEAD (If-None-Match) and OPTIONS; REPORTs in report.cpp.
#include "dav/answer_detail.hpp"
#include "dav/props.hpp"
#include "dav/push_detail.hpp"
#include "util/xml.hpp"

namespace icsbridge::dav {

using namespace xml; // the WebDAV bodies are read and written with these

namespace detail {

Response dav_error(unsigned status, std::string_view condition) {
    Response r;
    r.status = status;
    r.headers.emplace_back("Content-Type", "application/xml; charset=utf-8");
    r.body = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:error xmlns:D=\"DAV:\" "
             "xmlns:C=\"urn:ietf:params:xml:ns:caldav\">" +
             std::string(condition) + "</D:error>\n";
    return r;
}

Response plain(unsigned status, std::string_view text) {
    Response r;
    r.status = status;
    r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    r.body = std::string(text) + "\n";
    return r;
}

Response multistatus(std::string body) {
    Response r;
    r.status = 207;
    r.headers.emplace_back("Content-Type", "application/xml; charset=utf-8");
    r.body = std::move(body);
    return r;
}

Path parse_path(std::string_view p) {
    Path out;
    constexpr std::string_view users = "/dav/users/";
    if (p.starts_with(users)) {
        // A subscriber's tree: the same shape as the public one, one level down.
        p.remove_prefix(users.size());
        auto const slash = p.find('/');
        out.user = p.substr(0, slash);
        if (out.user.empty())
            return {};
        p = slash == std::string_view::npos ? std::string_view("/") : p.substr(slash);
    } else if (p == "/dav" || p.starts_with("/dav/")) {
        p.remove_prefix(4);
    } else {
        return out;
    }
    if (p.empty() || p == "/") {
        out.kind = Path::Kind::principal;
        return out;
    }
    constexpr std::string_view feeds = "/feeds";
    if (!p.starts_with(feeds))
        return {};
    p.remove_prefix(feeds.size());
    if (p.empty() || p == "/") {
        out.kind = Path::Kind::home;
        return out;
    }
    if (p.front() != '/')
        return {};
    p.remove_prefix(1);
    auto const slash = p.find('/');
    out.feed = p.substr(0, slash);
    if (out.feed.empty())
        return {};
    if (slash == std::string_view::npos || slash + 1 == p.size()) {
        out.kind = Path::Kind::collection;
        return out;
    }
    out.file = p.substr(slash + 1);
    out.kind = out.file.find('/') == std::string_view::npos ? Path::Kind::item : Path::Kind::none;
    return out;
}

} // namespace detail

namespace {

using namespace detail;

constexpr std::string_view allowed = "OPTIONS, GET, HEAD, PROPFIND, REPORT";

bool is_write(std::string_view m) {
    for (std::string_view w :
         {"PUT",
          "DELETE",
          "MKCALENDAR",
          "MKCOL",
          "PROPPATCH",
          "MOVE",
          "COPY",
          "LOCK",
          "UNLOCK",
          "POST",
          "ACL"})
        if (m == w)
            return true;
    return false;
}

Response options(Tree const& tree) {
    Response r;
    r.status = 200;
    r.headers.emplace_back("DAV", tree.push ? "1, 3, calendar-access, webdav-push" : "1, 3, calendar-access");
    r.headers.emplace_back("Allow", std::string(allowed));
    return r;
}

/**
 * The one answer for whatever the login does not open: a subscriber's tree, a feed that is not public, a
 * feed that does not exist (no hint which). A token a reload took away gets 410 Gone, as its `.ics` does.
 */
Response challenge(Tree const& tree) {
    if (tree.revoked) {
        auto r = plain(410, "this subscription was revoked: remove it from your calendar app");
        r.headers.emplace_back("Cache-Control", "no-store");
        return r;
    }
    auto r = plain(401, "this calendar needs a subscriber's credentials");
    r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"icsbridge\"");
    return r;
}

Response redirect(Tree const& tree) {
    Response r;
    r.status = 308;
    r.headers.emplace_back("Location", principal_href(tree));
    return r;
}

bool etag_listed(std::string_view header, std::string_view etag) {
    return header.find('*') != std::string_view::npos || header.find(etag) != std::string_view::npos;
}

Response get(Request const& req, Item const& item) {
    Response r;
    r.headers.emplace_back("ETag", item.etag);
    if (req.if_none_match && etag_listed(*req.if_none_match, item.etag)) {
        r.status = 304;
        return r;
    }
    r.headers.emplace_back(
        "Content-Type",
        item.todo ? "text/calendar; charset=utf-8; component=vtodo"
                  : "text/calendar; charset=utf-8; component=vevent"
    );
    r.body = item.body();
    return r;
}

/** Depth as 0, 1 or 2 (infinity, also when absent); nullopt when malformed. */
std::optional<int> depth_of(std::string_view d) {
    if (d.empty() || d == "infinity")
        return 2;
    if (d == "0" || d == "1")
        return d[0] - '0';
    return std::nullopt;
}

Response propfind(Request const& req, Path const& path, Tree const& tree, FeedEntry const* feed) {
    auto const props = parse_propfind(req.body);
    auto const depth = depth_of(req.depth);
    if (!props || !depth)
        return plain(400, !props ? props.error().message : "Depth must be 0, 1 or infinity");
    bool const flat = path.kind == Path::Kind::collection || path.kind == Path::Kind::item;
    if (*depth == 2 && !flat)
        return dav_error(403, "<D:propfind-finite-depth/>");
    MultistatusWriter w;
    if (path.kind == Path::Kind::principal) {
        write_node(w, {Node::Kind::principal, principal_href(tree)}, *props, tree);
        if (*depth > 0)
            write_node(w, {Node::Kind::home, home_href(tree)}, *props, tree);
    } else if (path.kind == Path::Kind::home) {
        write_node(w, {Node::Kind::home, home_href(tree)}, *props, tree);
        for (auto const& f : tree.feeds)
            if (*depth > 0)
                write_node(w, {Node::Kind::collection, collection_href(tree, f), &f}, *props, tree);
    } else if (path.kind == Path::Kind::collection) {
        if (*depth > 0 && feed->collection)
            return items_listing(
                std::make_shared<ItemsOf const>(tree, *feed, *props),
                std::nullopt,
                {},
                true
            );
        write_node(w, {Node::Kind::collection, collection_href(tree, *feed), feed}, *props, tree);
    } else {
        Item const* item = feed->collection ? feed->collection->find(path.file) : nullptr;
        if (!item)
            return plain(404, "no such calendar object");
        write_node(
            w,
            {Node::Kind::item, collection_href(tree, *feed) + item->name, feed, item},
            *props,
            tree
        );
    }
    w.finish();
    return multistatus(w.take());
}

} // namespace

bool owns(std::string_view method, std::string_view path) {
    return path == "/.well-known/caldav" || path == "/dav" || path.starts_with("/dav/") ||
           (path == "/" && method == "PROPFIND");
}

Response answer(Request const& req, Tree const& tree, History const& history) {
    if (req.path == "/.well-known/caldav" || req.path == "/")
        return redirect(tree);
    if (req.path == "/dav/push" || req.path.starts_with("/dav/push/"))
        return push_resource_request(req, tree);
    Path const path = parse_path(req.path);
    if (path.kind == Path::Kind::none || path.user != tree.owner)
        return plain(404, "not found");
    // A subscriber's tree shows nothing, not even OPTIONS, before the login: apps send it only when asked.
    if (!tree.owner.empty() && tree.user != tree.owner)
        return challenge(tree);
    if (req.method == "OPTIONS")
        return options(tree);
    if (req.method == "POST" && path.kind == Path::Kind::collection) {
        FeedEntry const* feed = tree.find(path.feed);
        return feed ? register_push(req, tree, *feed) : challenge(tree); // as reading it would answer
    }
    if (is_write(req.method))
        return dav_error(
            403,
            "<D:need-privileges><D:resource><D:href>" + xml_escape(tree.base + std::string(req.path)) +
                "</D:href><D:privilege><D:write/></D:privilege></D:resource></D:need-privileges>"
        );
    FeedEntry const* feed = nullptr;
    if (path.kind == Path::Kind::collection || path.kind == Path::Kind::item) {
        feed = tree.find(path.feed);
        if (!feed)
            return challenge(tree); // the same for a private feed and none at all
    }
    if (req.body_too_large)
        return plain(413, "the request body is over 2 MiB");
    if (req.method == "PROPFIND")
        return propfind(req, path, tree, feed);
    if (req.method == "REPORT")
        return path.kind == Path::Kind::collection ? report(req, tree, *feed, history)
                                                   : dav_error(403, "<D:supported-report/>");
    if (req.method == "GET" || req.method == "HEAD") {
        Item const* item =
            path.kind == Path::Kind::item && feed->collection ? feed->collection->find(path.file) : nullptr;
        if (item)
            return get(req, *item);
        if (path.kind == Path::Kind::item)
            return plain(404, "no such calendar object");
    }
    auto r = plain(405, "method not allowed");
    r.headers.emplace_back("Allow", std::string(allowed));
    return r;
}

PathNames names_in(std::string_view path) {
    Path const p = parse_path(path);
    return {p.user, p.feed, p.kind == Path::Kind::home};
}

FeedEntry const* Tree::find(std::string_view name) const {
    for (auto const& f : feeds)
        if (f.name == name)
            return &f;
    return nullptr;
}

} // namespace icsbridge::dav
