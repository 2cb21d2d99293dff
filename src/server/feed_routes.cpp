// File: feed_routes.cpp
// The feed endpoint (token, 410 for a revoked one, views and Google's view, validators, gzip) and the
// generated pages (index, agenda) with the headers every page sends.
#include "server/agenda_page.hpp"
#include "server/conditional.hpp"
#include "server/index_page.hpp"
#include "server/pages.hpp"
#include "server/route_ctx.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/dav.hpp>
#include <icsbridge/revoked_tokens.hpp>

#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <boost/url/url.hpp>

namespace icsbridge::server_detail {

namespace {

/**
 * @brief A generated page: no script, no external resource, the inline stylesheet only (and the QR code's
 * inline SVG); not to be framed, sniffed or named in a Referer (a token in the page's URL must not leak).
 */
ServerResponse html_response(std::string html, std::string cache_control) {
    auto r = text_response(200, std::move(html), "text/html; charset=utf-8");
    r.headers.emplace_back("Cache-Control", std::move(cache_control));
    r.headers.emplace_back(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    );
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("Referrer-Policy", "no-referrer");
    return r;
}

/**
 * @brief A feed request refused: 410 Gone for a token a reload revoked (calendar apps then stop polling),
 * else the one 404. Only a request presenting the revoked token itself can tell.
 */
ServerResponse refused(Ctx const& c, std::string_view name, std::string const& token) {
    if (!c.revoked || !c.revoked->revoked(name, token, c.now))
        return not_found();
    auto r = text_response(410, "this subscription was revoked: remove it from your calendar app\n");
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
}

/** @brief [connect]'s buttons: each starts a sign-in for this feed, with the page's token and view. */
std::vector<AgendaPage::Button>
connect_buttons(Ctx const& c, FeedConfig const& feed, std::string const& token) {
    std::vector<AgendaPage::Button> out;
    if (!c.cfg.connect)
        return out;
    boost::urls::url query;
    query.params().append({"feed", feed.name});
    if (!token.empty())
        query.params().append({"token", token});
    for (auto const& p : c.url.params())
        if (p.key != "token" && p.key != "tz" && p.key != "feed")
            query.params().append({p.key, p.value});
    std::string const q = "?" + std::string(query.encoded_query());
    if (c.cfg.connect->google)
        out.push_back({"connect-google", "Keep my Google Calendar in sync", "/connect/google" + q});
    if (c.cfg.connect->microsoft)
        out.push_back({"connect-microsoft", "Keep my Outlook calendar in sync", "/connect/microsoft" + q});
    return out;
}

ServerResponse not_fetched_yet() {
    auto r = text_response(503, "this feed has not been fetched yet; try again shortly\n");
    r.headers.emplace_back("Retry-After", "60");
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
}

/**
 * @brief Google drops a calendar over about 1 MB without a word: its fetcher gets the google view of such a
 * feed's plain URL. Sets the link a google view's description gives to the full feed.
 * @return whether the answer to this URL depends on the User-Agent (for Vary)
 */
bool google_view_for_agent(Ctx const& c, std::string_view name, std::size_t size, views::ViewParams& view) {
    bool const by_agent = view.empty() && size > views::google_view_limit;
    if (by_agent && views::google_wants_smaller(c.req.user_agent, size)) {
        view.google = true;
        view.from = std::chrono::floor<std::chrono::days>(c.now);
        view.uses_today = true;
    }
    if (view.google)
        if (FeedConfig const* fc = c.cfg.find_feed(name))
            view.full_url = feed_url(c.cfg, *fc);
    return by_agent;
}

/** @brief Vary of a feed answer: gzip or not by Accept-Encoding; the plain URL of a feed too big for Google
 * answers Google's fetcher differently. */
std::string vary(bool gzip_on, bool by_agent) {
    return gzip_on && by_agent ? "Accept-Encoding, User-Agent" : (gzip_on ? "Accept-Encoding" : "User-Agent");
}

} // namespace

ServerResponse handle_feed(Ctx const& c, std::string_view name) {
    std::string const token = presented_token(c);
    // One lookup: access, snapshot and the feed's settings from the same moment, whatever a reload does.
    FeedLookup feed = c.store.lookup(name, token);
    if (!feed.access.allowed)
        return refused(c, name, token);
    // Checked before the snapshot: a wrong parameter is wrong whether or not the feed was fetched yet.
    auto view = views::parse_view_params(c.url.params(), std::chrono::floor<std::chrono::days>(c.now));
    if (!view)
        return error_response(view.error());
    auto snap = std::move(feed.snapshot);
    if (!snap)
        return not_fetched_yet();
    bool const asked = !view->empty();
    bool const by_agent = google_view_for_agent(c, name, snap->body.size(), *view);
    if (!view->empty()) {
        // From here on a view is served exactly like the feed: it is a snapshot of its own.
        auto built = c.views.get(name, snap, *view, c.store.gzip_enabled(), c.store.files().get());
        // A view Google's fetcher did not ask for falls back to the feed itself.
        if (built)
            snap = std::move(*built);
        else if (asked)
            return error_response(built.error());
    }
    feed.record_fetch(c.now);
    auto max_age = std::to_string(feed.settings->refresh.count());
    bool const is_public = feed.settings->is_public;

    ServerResponse r;
    r.headers.reserve(8); // all of them: growing the vector would cost more allocations than the strings
    r.snapshot = snap;
    // The representation is chosen first: gzip and identity bodies are different bytes, so each has its own
    // strong ETag (RFC 9110 8.8.3), and a validator is checked against the one this request would get.
    bool gzip_on = c.store.gzip_enabled() && !snap->gzip_body.empty();
    bool const gzip = gzip_on && accepts_gzip(c.req.accept_encoding);
    std::string etag = gzip ? gzip_etag(snap->etag) : snap->etag;
    bool const unchanged =
        not_modified(c.req.if_none_match, c.req.if_modified_since, etag, snap->last_modified, c.now);
    r.headers.emplace_back("ETag", std::move(etag));
    r.headers.emplace_back("Last-Modified", snap->last_modified_http);
    r.headers.emplace_back("Cache-Control", (is_public ? "public, max-age=" : "private, max-age=") + max_age);
    if (gzip_on || by_agent)
        r.headers.emplace_back("Vary", vary(gzip_on, by_agent));
    if (unchanged) {
        r.status = 304;
        r.snapshot.reset();
        return r;
    }
    // Whatever the client accepts: Google sends no Accept header at all.
    r.headers.emplace_back("Content-Type", "text/calendar; charset=utf-8");
    r.headers.emplace_back("Content-Disposition", "inline; filename=\"" + std::string(name) + ".ics\"");
    if (gzip) {
        r.gzip = true;
        r.headers.emplace_back("Content-Encoding", "gzip");
    }
    return r;
}

// The agenda page: the same token rule (and the same 404) as the feed it shows.
ServerResponse handle_agenda(Ctx const& c, std::string_view name) {
    std::string const token = presented_token(c);
    FeedConfig const* feed = c.cfg.find_feed(name);
    FeedLookup found = c.store.lookup(name, token);
    if (!feed || !found.access.allowed)
        return refused(c, name, token);
    auto snap = std::move(found.snapshot);
    if (!snap)
        return not_fetched_yet();
    auto index = c.views.index_of(name, *snap);
    if (!index)
        return error_response(index.error());
    AgendaPage page;
    page.title = feed->title.empty() ? feed->name : feed->title;
    // The subscribe links carry the token this request presented (the visitor has it); never another one.
    page.https_url = feed_url(c.cfg, *feed);
    if (!feed->is_public())
        page.https_url += "?token=" + boost::urls::encode(token, boost::urls::unreserved_chars);
    if (auto it = c.url.params().find("tz"); it != c.url.params().end())
        page.tz = (*it).value;
    page.feed_zone = feed->timezone;
    page.connect = connect_buttons(c, *feed, token);
    // A token feed's collection is its subscriber's, under their principal: the name this token belongs to.
    if (c.cfg.dav.enabled) {
        if (!feed->is_public()) {
            int const who = found.access.subscriber;
            bool const named =
                found.settings && who >= 0 && std::size_t(who) < found.settings->subscribers.size();
            page.dav_user = named ? found.settings->subscribers[std::size_t(who)] : "subscriber";
        }
        page.dav_url = dav::address(c.cfg.server.public_url, feed->name, page.dav_user);
    }
    page.index_url = c.cfg.server.public_url + "/";
    page.changed = snap->last_modified;
    for (auto const& st : c.store.status())
        if (st.name == name)
            page.checked = st.last_success;
    auto html = agenda_page(**index, page, c.now);
    if (!html)
        return error_response(html.error());
    return html_response(std::move(*html), feed->is_public() ? "no-cache" : "private, no-store");
}

ServerResponse handle_index(Ctx const& c, std::string_view) {
    return html_response(index_page(c.cfg, c.store, c.now), "no-cache");
}

} // namespace icsbridge::server_detail
