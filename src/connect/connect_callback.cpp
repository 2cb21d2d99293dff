// File: connect_callback.cpp
// /connect/callback: the provider sends the person back with a code (or an error) and our state. The state
// must open under our key, be under 10 minutes old and unused; the feed must still admit its token; then the
// code is traded (PKCE) for a refresh token, sealed into a new connection, and the person lands on its page.
#include "connect/connect_http.hpp"
#include "connect/connect_pages.hpp"
#include "connect/connect_routes.hpp"
#include "connect/flow_state.hpp"
#include "oauth/provider.hpp"
#include "oauth/token_endpoint.hpp"

#include <boost/asio/this_coro.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse_query.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace icsbridge::connect {

namespace net = boost::asio;
namespace urls = boost::urls;

namespace {

ServerResponse refused_sign_in(std::string_view why) {
    return page(400, message_page("This sign-in cannot be used", why));
}

/** A token endpoint's refusal without the advice for `icsbridge connect`, which is not how this one was made.
 */
std::string operator_part(std::string const& message) {
    return message.substr(0, message.find("; run icsbridge connect"));
}

ClientOptions token_client(TargetConfig const& t) {
    ClientOptions o;
    o.service_name = std::string(oauth::provider_name(t.type)) + " token endpoint";
    o.ca_file = t.ca_file;
    o.max_concurrency = 1;
    return o;
}

/** Which of its feed's items a view keeps, in words a person reads in a calendar list ("next 20 days"); an
 * alarm or the detail changes no item's presence, and no name. */
std::string view_words(std::string const& view) {
    auto query = urls::parse_query(view);
    if (!query)
        return {};
    std::string out;
    auto add = [&out](std::string const& w) { out += (out.empty() ? "" : ", ") + w; };
    for (auto const& p : *query) {
        std::string const key = p.key.decode(), value = p.value.decode();
        if (key == "days")
            add("next " + value + " days");
        else if (key == "from")
            add("from " + value);
        else if (key == "to")
            add("to " + value);
        else if (key == "category")
            add(value);
    }
    return out;
}

/** The calendar a connection creates: the feed's title, and what its view keeps ("pub — next 20 days"). */
std::string calendar_name(std::string const& title, std::string const& view) {
    auto const words = view_words(view);
    return words.empty() ? title : title + " \u2014 " + words;
}

Connection
new_connection(FlowState const& flow, TargetConfig const& t, std::string const& secret, sys_seconds now) {
    Connection c;
    c.id = ConnectKey::random_id(16);
    c.provider = flow.provider;
    c.feed = flow.feed;
    c.view = flow.view;
    c.token_hash = flow.token.empty() ? std::string() : secret_hash(flow.token);
    c.key_hash = secret_hash(secret);
    c.client_id = t.client_id;
    c.scope = oauth::scope_for(t);
    c.calendar = calendar_name(t.calendar, flow.view);
    c.created_at = now;
    return c;
}

} // namespace

net::awaitable<ServerResponse> ConnectRoutes::finish(Call const& c) {
    auto const params = c.url.params();
    auto const sealed = param(params, "state");
    if (sealed.empty())
        co_return refused_sign_in("This address is for answers from a sign-in, and this is none.");
    auto flow = open_state(connections_.key(), sealed, c.now);
    if (!flow)
        co_return refused_sign_in(flow.error().message);
    auto const code = param(params, "code");
    auto const error = param(params, "error");
    // Nothing is recorded for an answer that can neither connect nor say why not (a refusal, "error=",
    // still uses up the state): claims are kept 10 minutes, so each must be one a sign-in could use.
    if (code.empty() && error.empty())
        co_return refused_sign_in(
            "The answer holds no code to sign in with: start again from the feed's page."
        );
    if (auto wait = claims_.take(c.req.client, c.now))
        co_return too_many_sign_ins(*wait);
    // Claimed before anything else is looked at: a replayed answer is refused whatever it holds.
    auto claiming = connections_.claim(flow->nonce, flow->expires);
    auto claimed = co_await std::move(claiming);
    if (!claimed)
        co_return page(503, message_page("Try again shortly", "The server cannot record sign-ins just now."));
    if (!*claimed)
        co_return refused_sign_in("This sign-in was used already: start again from the feed's page.");
    auto const* feed = c.cfg.find_feed(flow->feed);
    if (!feed || !feed_admits(*feed, flow->token))
        co_return nothing_here();
    auto const back = feed_page_url(c.cfg, *feed, flow->token);
    auto const label = std::string(provider_label(flow->provider));
    if (!error.empty())
        co_return page(
            200,
            message_page(
                "Nothing was connected",
                error == "access_denied"
                    ? "You did not allow access, so nothing changed in your " + label + "."
                    : label + " said \"" + error + "\": nothing was connected.",
                back,
                "Back to the feed"
            )
        );
    auto target = provider_target(c.cfg, flow->provider, *feed);
    if (!target)
        co_return refused_sign_in("This service no longer offers " + label + ": nothing was connected.");
    auto connecting = connect_with(c, *flow, *target, code, back);
    co_return co_await std::move(connecting);
}

net::awaitable<ServerResponse> ConnectRoutes::connect_with(
    Call const& c, FlowState const& flow, TargetConfig const& target, std::string code, std::string back
) {
    auto const label = std::string(provider_label(flow.provider));
    HttpClient http(co_await net::this_coro::executor, token_client(target), log_);
    auto trading = oauth::exchange_code(
        http,
        target,
        code,
        redirect_uri(c.cfg),
        flow.verifier,
        oauth::TargetRef{flow.provider, {}}
    );
    auto traded = co_await std::move(trading);
    if (!traded || traded->refresh_token.empty()) {
        log_.warn(
            "connect: a " + flow.provider + " sign-in for feed " + flow.feed + " failed: " +
            (traded ? std::string("no refresh token in the answer") : operator_part(traded.error().message))
        );
        co_return page(
            502,
            message_page(
                "The sign-in did not finish",
                label + " did not give access: start again.",
                back,
                "Back to the feed"
            )
        );
    }
    auto const secret = ConnectKey::random_id(32);
    auto connection = new_connection(flow, target, secret, c.now);
    auto const id = connection.id;
    auto adding = connections_.add(std::move(connection), traded->refresh_token);
    if (auto added = co_await std::move(adding); !added) {
        log_.warn("connect: a new connection could not be stored: " + added.error().message);
        co_return page(
            503,
            message_page("Try again shortly", "The server cannot store connections just now.")
        );
    }
    // Counts only: who connected is the person's business.
    log_.info("connect: a " + flow.provider + " calendar was connected to feed " + flow.feed);
    co_return redirect(
        303,
        c.cfg.server.public_url + std::string(manage_prefix) + id +
            "?key=" + urls::encode(secret, urls::unreserved_chars)
    );
}

} // namespace icsbridge::connect
