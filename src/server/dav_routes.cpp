// File: dav_routes.cpp
// The CalDAV tree's thin route: who the requester is (a Basic login: a subscriber's name and one of their
// tokens, checked by the served table's lookup as for a feed's .ics), which feeds they may see, their
// collections from the history, then dav::answer() and its answer as a response.
#include "server/route_ctx.hpp"
#include <icsbridge/dav.hpp>
#include <icsbridge/revoked_tokens.hpp>

#include <boost/algorithm/string/predicate.hpp>
#include <boost/url/parse.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <map>
#include <optional>

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

/** An `Authorization: Basic` login (RFC 7617); nullopt for none, another scheme or a malformed one. */
struct Login {
    std::string user;
    std::string password; ///< a token, maybe: never logged or echoed
};

std::optional<Login> basic_login(std::string_view header) {
    constexpr std::string_view scheme = "Basic ";
    if (header.size() <= scheme.size() || !boost::algorithm::iequals(header.substr(0, scheme.size()), scheme))
        return std::nullopt;
    std::string_view b64 = header.substr(scheme.size());
    while (!b64.empty() && b64.front() == ' ')
        b64.remove_prefix(1);
    while (!b64.empty() && b64.back() == ' ')
        b64.remove_suffix(1);
    if (b64.empty() || b64.size() % 4 != 0 || b64.size() > 8192)
        return std::nullopt;
    std::string plain(b64.size() / 4 * 3, '\0');
    int const n = EVP_DecodeBlock(
        reinterpret_cast<unsigned char*>(plain.data()),
        reinterpret_cast<unsigned char const*>(b64.data()),
        static_cast<int>(b64.size())
    );
    if (n < 0)
        return std::nullopt;
    // EVP_DecodeBlock counts the zero bytes of the padding too.
    auto len = static_cast<std::size_t>(n) - (b64.ends_with("==") ? 2 : (b64.ends_with('=') ? 1 : 0));
    plain.resize(len);
    auto const colon = plain.find(':');
    if (colon == std::string::npos)
        return std::nullopt;
    return Login{plain.substr(0, colon), plain.substr(colon + 1)};
}

/** A feed's single `token` belongs to this user name; `tokens` name their subscribers themselves. */
constexpr std::string_view single_token_user = "subscriber";

bool names_subscriber(Config const& cfg, std::string const& user) {
    for (auto const& f : cfg.feeds)
        if ((user == single_token_user && !f.token.empty()) || f.tokens.contains(user))
            return true;
    return false;
}

/** Whether a lookup with the login's password let it in as `user` (a public feed lets everyone in). */
bool opened_as(FeedLookup const& l, std::string_view user) {
    if (!l.access.allowed || !l.settings || l.settings->is_public)
        return false;
    if (l.access.subscriber < 0)
        return user == single_token_user;
    auto const i = static_cast<std::size_t>(l.access.subscriber);
    return i < l.settings->subscribers.size() && l.settings->subscribers[i] == user;
}

/** Who the request proved to be: a subscriber and the token feeds their password opens, or nobody. */
struct Requester {
    std::string user; ///< empty: anonymous
    std::map<std::string, FeedLookup, std::less<>> opened;
};

Requester requester(Ctx const& c, std::optional<Login> const& login) {
    Requester r;
    // A login that names no subscriber is anonymous: public feeds only (apps insist on some user name).
    if (!login || !names_subscriber(c.cfg, login->user))
        return r;
    for (auto const& f : c.cfg.feeds) {
        if (f.is_public())
            continue;
        // Every token feed is asked, each comparing every digest in constant time: neither the time nor
        // the answer tells which feed or how much of the password was right.
        FeedLookup l = c.store.lookup(f.name, login->password);
        if (opened_as(l, login->user))
            r.opened.emplace(f.name, std::move(l));
    }
    if (!r.opened.empty())
        r.user = login->user;
    return r;
}

/** The feed as a collection, from a lookup that let the requester in. */
dav::FeedEntry entry(Ctx const& c, FeedConfig const& f, FeedLookup const& found) {
    dav::FeedEntry e{f.name, f.title.empty() ? f.name : f.title, f.color, {}, nullptr, !f.is_public()};
    add_components(c.cfg, f, e.components);
    if (found.snapshot)
        e.collection = c.dav->collection(f.name, found.snapshot, c.now);
    return e;
}

/** The feed as this requester sees it: a public one, or a token feed their password opens; else nullopt. */
std::optional<dav::FeedEntry> visible(Ctx const& c, Requester const& who, FeedConfig const& f, bool fetch) {
    if (auto it = who.opened.find(f.name); it != who.opened.end()) {
        if (fetch)
            it->second.record_fetch(c.now); // a subscriber's sync counts as their fetch, as for the .ics
        return entry(c, f, it->second);
    }
    if (!f.is_public())
        return std::nullopt;
    FeedLookup const found = c.store.lookup(f.name, "");
    if (!found.access.allowed)
        return std::nullopt;
    return entry(c, f, found);
}

/**
 * Only the feeds the request is about: a home lists them all (the public one only the public feeds, a
 * subscriber's also the token feeds their password opens), a collection or item names one, which any
 * tree shows to whoever may read it.
 */
dav::Tree tree_for(Ctx const& c, std::string_view path) {
    dav::Tree tree;
    tree.base = base_path(c.cfg);
    auto const names = dav::names_in(path);
    tree.owner = std::string(names.owner);
    auto const login = basic_login(c.req.authorization);
    Requester const who = requester(c, login);
    tree.user = who.user;
    if (!who.user.empty())
        tree.password = login->password; // a push registration keeps a salted digest of it
    if (c.push && c.cfg.dav.push) {
        tree.push = c.push;
        tree.push_allow_private = c.cfg.dav.push_allow_private;
    }
    tree.now = c.now;
    // "" stands for every feed: a token no feed accepts any more (see RevokedTokens::revoke_dropped).
    tree.revoked = login && c.revoked &&
                   (c.revoked->revoked("", login->password, c.now) ||
                    (!names.feed.empty() && c.revoked->revoked(names.feed, login->password, c.now)));
    if (!tree.owner.empty() && tree.owner != tree.user)
        return tree; // challenged: nothing of it is shown
    if (names.home) {
        for (auto const& f : c.cfg.feeds)
            if (f.is_public() || !tree.owner.empty())
                if (auto e = visible(c, who, f, false))
                    tree.feeds.push_back(std::move(*e));
    } else if (!names.feed.empty()) {
        if (FeedConfig const* f = c.cfg.find_feed(names.feed))
            if (auto e = visible(c, who, *f, true))
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
    r.stream = std::move(a.stream); // a listing of many items: made as the socket takes it
    return r;
}

} // namespace icsbridge::server_detail
