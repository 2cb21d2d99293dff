// File: caldav_calendar.cpp
// find_calendar() walks the discovery chain one PROPFIND at a time, following the redirects servers send
// for /.well-known/caldav (and each redirect or href only where the target's credentials may go);
// list_ours() asks sync-collection first, follows a report the server cuts short from part to part (never
// round in a circle), and falls back to PROPFIND once a server shows it has no sync. Only resources whose
// name marks them ours (is_owned) are listed.
#include "push/caldav_calendar.hpp"

#include "push/dav_xml.hpp"
#include "push/page_trail.hpp"

#include <algorithm>
#include <cctype>

namespace icsbridge::push {

namespace net = boost::asio;

namespace {

/** A request with a Depth header (the header list built here, never as a temporary inside co_await). */
net::awaitable<Result<HttpResponse>>
with_depth(TargetClient& dav, std::string method, std::string url, std::string body, std::string depth) {
    Headers h;
    h.emplace_back("Depth", std::move(depth));
    auto req = dav.send(std::move(method), std::move(url), std::move(body), std::move(h));
    co_return co_await std::move(req);
}

bool is_redirect(unsigned s) {
    return s == 301 || s == 302 || s == 303 || s == 307 || s == 308;
}

/** The first <response> of a Depth: 0 PROPFIND on `url` (following up to 3 redirects), and where it was. */
struct Found {
    DavEntry entry;
    std::string url;
};

/** A 207 answer read as a multistatus; any other status, or a body that is none, as the error to report. */
Result<Multistatus> multistatus_of(
    TargetClient const& dav, std::string_view method, std::string const& url, HttpResponse const& r
) {
    if (r.status != 207)
        return refusal(dav.name(), method, url, r);
    auto ms = parse_multistatus(r.body);
    if (!ms)
        return fail(
            ms.error().code,
            dav.name() + ": " + std::string(method) + " " + redact_url(url) + ": " + ms.error().message
        );
    return ms;
}

/**
 * `ref` made absolute against `from`, whose answer named it (`what`: a redirect, an href), when the target's
 * credentials may go there; else the guard's refusal, saying where the URL came from.
 */
Result<std::string>
follow(TargetClient const& dav, std::string const& from, std::string_view ref, std::string_view what) {
    auto to = resolve_href(from, ref);
    if (auto allowed = dav.may_send_to(to, from); !allowed)
        return fail(
            allowed.error().code,
            allowed.error().message + " (" + std::string(what) + " in the answer from " + redact_url(from) +
                ")"
        );
    return to;
}

net::awaitable<Result<Found>> propfind_one(TargetClient& dav, std::string url) {
    for (int hops = 0;; ++hops) {
        auto r = co_await with_depth(dav, "PROPFIND", url, propfind_body(), "0");
        if (!r)
            co_return r.error();
        if (is_redirect(r->status) && hops < 3 && !r->header("Location").empty()) {
            auto next = follow(dav, url, r->header("Location"), "a redirect");
            if (!next)
                co_return next.error();
            url = std::move(*next);
            continue;
        }
        auto ms = multistatus_of(dav, "PROPFIND", url, *r);
        if (!ms)
            co_return ms.error();
        if (ms->responses.empty())
            co_return fail(
                errc::upstream_malformed,
                dav.name() + ": PROPFIND " + redact_url(url) + " listed nothing"
            );
        co_return Found{std::move(ms->responses.front()), url};
    }
}

bool takes_todos(DavEntry const& e) {
    return !e.components_given ||
           std::find(e.components.begin(), e.components.end(), "VTODO") != e.components.end();
}

/** A path segment for a calendar we create: the name's letters and digits, lower-cased. */
std::string slug(std::string_view name) {
    std::string out;
    for (unsigned char c : name) {
        if (std::isalnum(c))
            out += static_cast<char>(std::tolower(c));
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out.empty() ? "icsbridge" : out;
}

/** Where the account's calendars live: the principal's calendar-home-set (RFC 4791 6.2.1). */
net::awaitable<Result<std::string>> calendar_home(TargetClient& dav, std::string const& url) {
    auto at = co_await propfind_one(dav, url);
    // A server root that does not say who we are, or answers no PROPFIND at all (a web page): RFC 6764's
    // well-known entry point may. Not after a refused password or an unreachable server: that stands.
    bool const no_dav_here =
        !at && (at.error().code == errc::upstream_not_found || at.error().code == errc::upstream_status ||
                at.error().code == errc::upstream_malformed);
    if (no_dav_here || (at && at->entry.current_user_principal.empty())) {
        auto known = co_await propfind_one(dav, resolve_href(url, "/.well-known/caldav"));
        if (known || at)
            at = std::move(known);
    }
    if (!at)
        co_return at.error();
    if (at->entry.current_user_principal.empty())
        co_return fail(
            errc::upstream_malformed,
            dav.name() + ": " + redact_url(url) +
                " names no current-user-principal; give the calendar's own URL as url"
        );
    auto const principal = follow(dav, at->url, at->entry.current_user_principal, "the principal's href");
    if (!principal)
        co_return principal.error();
    auto home = co_await propfind_one(dav, *principal);
    if (!home)
        co_return home.error();
    if (home->entry.calendar_home_set.empty())
        co_return *principal;
    co_return follow(dav, home->url, home->entry.calendar_home_set, "the calendar home's href");
}

net::awaitable<Result<Collection>>
create_calendar(TargetClient& dav, std::string const& home, std::string const& name) {
    auto const url = resolve_href(home, slug(name) + "/");
    auto r = co_await dav.send("MKCALENDAR", url, mkcalendar_body(name));
    if (!r)
        co_return r.error();
    if (r->status != 201 && r->status != 200)
        co_return refusal(dav.name(), "MKCALENDAR", url, *r);
    dav.log().info("push " + dav.name() + ": created the calendar \"" + name + "\" at " + redact_url(url));
    co_return Collection{url, true, true};
}

} // namespace

net::awaitable<Result<Collection>> find_calendar(TargetClient& dav, TargetConfig const& target, bool create) {
    if (target.calendar.empty()) {
        auto at = co_await propfind_one(dav, target.url);
        if (!at)
            co_return at.error();
        if (!at->entry.is_calendar)
            co_return fail(
                errc::upstream_status,
                dav.name() + ": " + redact_url(target.url) +
                    " is not a calendar; give the calendar's own URL, or the server's with calendar = "
                    "\"NAME\""
            );
        co_return Collection{at->url, takes_todos(at->entry), false};
    }
    auto home = co_await calendar_home(dav, target.url);
    if (!home)
        co_return home.error();
    auto r = co_await with_depth(dav, "PROPFIND", *home, propfind_body(), "1");
    if (!r)
        co_return r.error();
    auto ms = multistatus_of(dav, "PROPFIND", *home, *r);
    if (!ms)
        co_return ms.error();
    for (auto const& e : ms->responses)
        if (e.is_calendar && (e.displayname == target.calendar || last_segment(e.href) == target.calendar)) {
            auto url = follow(dav, *home, e.href, "the calendar's href");
            if (!url)
                co_return url.error();
            co_return Collection{std::move(*url), takes_todos(e), false};
        }
    if (!create)
        co_return Collection{resolve_href(*home, slug(target.calendar) + "/"), true, false, true};
    co_return co_await create_calendar(dav, *home, target.calendar);
}

namespace {

/** The owned entries of a multistatus as a listing update. */
ListingUpdate to_update(Multistatus const& ms, bool full) {
    ListingUpdate u;
    u.full = full;
    u.sync_token = ms.sync_token;
    for (auto const& e : ms.responses) {
        auto const name = std::string(last_segment(e.href));
        if (!is_owned(name))
            continue;
        if (e.status == 404)
            u.removed.push_back(name);
        else
            u.changed[name] = e.etag;
    }
    return u;
}

/** A sync-collection answer the server cut short (RFC 6578 3.6: a 507 response for the collection). */
bool cut_short(Multistatus const& ms) {
    return std::any_of(ms.responses.begin(), ms.responses.end(), [](DavEntry const& e) {
        return e.status == 507;
    });
}

/** `part` (the changes since `into`'s token) added to `into`. */
void add_part(ListingUpdate& into, ListingUpdate part) {
    for (auto& [name, etag] : part.changed) {
        std::erase(into.removed, name);
        into.changed[name] = std::move(etag);
    }
    for (auto& name : part.removed) {
        into.changed.erase(name);
        into.removed.push_back(std::move(name));
    }
    into.sync_token = std::move(part.sync_token);
}

/** Servers cut a long report at a size of their own; this many a part is assumed for the page limit. */
constexpr std::size_t sync_part = 100;

/**
 * The rest of a sync-collection report cut short, asked from each part's token until one is whole. A token
 * named twice (the server asks us to start again where we were) or too many parts is an error: the listing
 * would never end.
 */
net::awaitable<Result<ListingUpdate>> rest_of_report(
    TargetClient& dav, std::string const& collection, std::string const& token, ListingUpdate update
) {
    PageTrail trail(dav.name(), "the sync-collection report", sync_part);
    if (!token.empty())
        trail.first(token);
    for (;;) {
        if (update.sync_token.empty())
            co_return fail(
                errc::upstream_malformed,
                dav.name() + ": REPORT " + redact_url(collection) + " was cut short without a sync token"
            );
        if (auto go_on = trail.next(update.sync_token); !go_on)
            co_return go_on.error();
        auto r = co_await with_depth(dav, "REPORT", collection, sync_collection_body(update.sync_token), "1");
        if (!r)
            co_return r.error();
        auto ms = multistatus_of(dav, "REPORT", collection, *r);
        if (!ms)
            co_return ms.error();
        add_part(update, to_update(*ms, false));
        if (!cut_short(*ms))
            co_return update;
    }
}

net::awaitable<Result<ListingUpdate>> propfind_listing(TargetClient& dav, std::string const& collection) {
    auto r = co_await with_depth(dav, "PROPFIND", collection, propfind_body(), "1");
    if (!r)
        co_return r.error();
    auto ms = multistatus_of(dav, "PROPFIND", collection, *r);
    if (!ms)
        co_return ms.error();
    ms->sync_token.clear();
    co_return to_update(*ms, true);
}

} // namespace

net::awaitable<Result<ListingUpdate>>
list_ours(TargetClient& dav, std::string const& collection, std::string const& token) {
    auto r = co_await with_depth(dav, "REPORT", collection, sync_collection_body(token), "1");
    if (!r)
        co_return r.error();
    if (r->status == 207) {
        auto ms = multistatus_of(dav, "REPORT", collection, *r);
        if (!ms)
            co_return ms.error();
        if (cut_short(*ms))
            co_return co_await rest_of_report(dav, collection, token, to_update(*ms, token.empty()));
        co_return to_update(*ms, token.empty());
    }
    if (r->status == 401 || r->status == 404)
        co_return refusal(dav.name(), "REPORT", collection, *r);
    // 403/409 with valid-sync-token: the server forgot our token (RFC 6578 3.2); list everything again.
    if (!token.empty() && (r->status == 403 || r->status == 409 || r->status == 410))
        co_return co_await list_ours(dav, collection, "");
    // No sync-collection here (400, 403, 405, 501): the collection's members and ETags, every time.
    if (r->status == 400 || r->status == 403 || r->status == 405 || r->status == 501)
        co_return co_await propfind_listing(dav, collection);
    co_return refusal(dav.name(), "REPORT", collection, *r);
}

void apply_update(ListingUpdate const& update, Listing& listing) {
    if (update.full)
        listing.clear();
    for (auto const& [name, etag] : update.changed)
        listing[name] = etag;
    for (auto const& name : update.removed)
        listing.erase(name);
}

net::awaitable<Result<std::optional<std::string>>> etag_now(TargetClient& dav, std::string const& url) {
    auto r = co_await with_depth(dav, "PROPFIND", url, propfind_body(), "0");
    if (!r)
        co_return r.error();
    if (r->status == 404)
        co_return std::optional<std::string>{};
    auto ms = multistatus_of(dav, "PROPFIND", url, *r);
    if (!ms)
        co_return ms.error();
    if (ms->responses.empty())
        co_return fail(
            errc::upstream_malformed,
            dav.name() + ": PROPFIND " + redact_url(url) + ": no answer for the item"
        );
    co_return std::optional<std::string>{ms->responses.front().etag};
}

} // namespace icsbridge::push
