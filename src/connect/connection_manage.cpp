// File: connection_manage.cpp
// The person's page of one connection (/connections/ID?key=SECRET) and its Disconnect form: the key checked
// in constant time, the form's CSRF token and Origin checked, then the pushing stopped, the calendar
// deleted when asked, the grant revoked at the provider, and the record forgotten.
#include "connect/connect_http.hpp"
#include "connect/connect_pages.hpp"
#include "connect/connect_routes.hpp"
#include "connect/flow_state.hpp"
#include "oauth/token_endpoint.hpp"
#include "push/calendar_api.hpp"
#include "util/run_on.hpp"

#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace icsbridge::connect {

namespace net = boost::asio;
namespace urls = boost::urls;

namespace {

ServerResponse forbidden(std::string_view why) {
    return page(403, message_page("Refused", why));
}

/** The fields of an application/x-www-form-urlencoded body; empty when it is not one. */
urls::params_view form_of(std::string_view body, std::string& holder) {
    holder = "?" + std::string(body);
    auto u = urls::parse_relative_ref(holder);
    return u ? u->params() : urls::params_view();
}

ClientOptions revoke_client(TargetConfig const& t) {
    ClientOptions o;
    o.service_name = "revocation endpoint";
    o.ca_file = t.ca_file;
    o.max_concurrency = 1;
    return o;
}

} // namespace

net::awaitable<ServerResponse> ConnectRoutes::manage(Call const& c, std::string_view id) {
    auto const key = param(c.url.params(), "key");
    auto finding = connections_.find(std::string(id), key);
    auto found = co_await std::move(finding);
    if (!found)
        co_return page(
            503,
            message_page("Try again shortly", "The server cannot read connections just now.")
        );
    if (!*found)
        co_return nothing_here();
    auto const* feed = c.cfg.find_feed((*found)->feed);
    ConnectionPage p;
    p.connection = **found;
    p.feed_title = feed ? title_of(*feed) : (*found)->feed;
    p.csrf = csrf_token(connections_.key(), (*found)->id);
    // The form posts to this very address (key included): POST /connections/ID?key=K.
    p.action =
        std::string(manage_prefix) + (*found)->id + "?key=" + urls::encode(key, urls::unreserved_chars);
    p.now = c.now;
    co_return page(200, connection_page(p));
}

net::awaitable<ServerResponse> ConnectRoutes::disconnect(Call const& c, std::string_view id) {
    std::string holder;
    auto const form = form_of(c.req.body, holder);
    auto const key = param(c.url.params(), "key");
    auto finding = connections_.find(std::string(id), key);
    auto found = co_await std::move(finding);
    if (!found)
        co_return page(
            503,
            message_page("Try again shortly", "The server cannot read connections just now.")
        );
    if (!*found)
        co_return nothing_here();
    // A form another site made the browser send carries neither our CSRF token nor our Origin.
    if (!csrf_ok(connections_.key(), (*found)->id, param(form, "csrf")))
        co_return forbidden("This form was not sent from the connection's own page: nothing was changed.");
    if (!c.req.origin.empty() && c.req.origin != origin_of(c.cfg.server.public_url))
        co_return forbidden("This form was sent from another site: nothing was changed.");
    bool const delete_calendar = param(form, "delete_calendar") == "1";
    // On the connections' thread: the sign-in and the push state are read from the store (a database in a
    // cluster), which an HTTP thread never waits for.
    std::string calendar_words;
    auto undo = undo_at_provider(**found, delete_calendar, calendar_words);
    auto undone = co_await run_on(connections_.executor(), std::move(undo));
    if (!undone && undone.error().code == errc::usage)
        co_return page(
            502,
            message_page(
                "The calendar could not be deleted",
                undone.error().message + " Nothing else was changed."
            )
        );
    auto removing = connections_.remove(**found);
    if (auto removed = co_await std::move(removing); !removed)
        co_return page(
            503,
            message_page("Try again shortly", "The server cannot change connections just now.")
        );
    log_.info(
        "connect: a " + (*found)->provider + " calendar of feed " + (*found)->feed + " was disconnected"
    );
    auto const label = std::string(provider_label((*found)->provider));
    std::string text = "Updates have stopped. " + calendar_words;
    if (!undone)
        text += "icsbridge could not withdraw its access itself (" + undone.error().message + ").";
    else if ((*found)->provider == "microsoft")
        text += "Microsoft gives apps no way to give up their access: remove icsbridge under \"Apps and "
                "services\" at https://account.microsoft.com/privacy/app-access if you like.";
    else
        text += "icsbridge's access to your " + label + " was withdrawn.";
    co_return page(200, message_page("Disconnected", text));
}

namespace {

/** Why a calendar the person asked to delete stays; "" when it may go. */
std::string kept_because(Result<push::KeptState> const& state, bool shared) {
    if (!state || (*state)->collection.empty())
        return "no calendar was made for this connection yet";
    if (!(*state)->created)
        return "it was there before this connection, which deletes only a calendar it created";
    if (shared)
        return "another connection writes into it too";
    return {};
}

} // namespace

net::awaitable<Result<void>>
ConnectRoutes::undo_at_provider(Connection const& c, bool delete_calendar, std::string& calendar) {
    auto const label = std::string(provider_label(c.provider));
    auto const named = "The calendar \"" + c.calendar + "\"";
    calendar = named + " stays in your " + label + " as it is. ";
    auto target = connections_.target_of(c);
    if (!target)
        co_return fail(errc::upstream_status, "the server no longer offers this provider");
    auto ex = co_await net::this_coro::executor;
    connections_.stop_pushing(c);
    if (delete_calendar) {
        auto state = connections_.state_of(c).load();
        bool const shared =
            state && !(*state)->collection.empty() && connections_.shares_calendar(c, (*state)->collection);
        if (auto const why = kept_because(state, shared); !why.empty()) {
            calendar = named + " was not deleted: " + why + ". ";
        } else {
            auto api = push::calendar_api(ex, *target, log_, connections_.authorizer(ex, c));
            auto deleting = api->delete_calendar(**state);
            if (auto deleted = co_await std::move(deleting); !deleted)
                co_return fail(errc::usage, "The provider refused: " + deleted.error().message + ".");
            calendar = named + " was deleted from your " + label + ". ";
        }
    }
    auto refresh = connections_.refresh_token(c);
    if (!refresh)
        co_return refresh.error();
    HttpClient http(ex, revoke_client(*target), log_);
    auto revoking = oauth::revoke_token(http, *target, std::move(*refresh));
    co_return co_await std::move(revoking);
}

} // namespace icsbridge::connect
