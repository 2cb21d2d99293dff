// File: connect_routes.hpp
// The self-serve connect routes (issue 27): /connect/google and /connect/microsoft start a sign-in from a
// feed's page, /connect/callback finishes it (the code traded, the connection stored and pushed), and
// /connections/ID?key=SECRET is the person's own page, with its Disconnect form.
#pragma once

#include "connect/connections.hpp"
#include "connect/flow_state.hpp"
#include "connect/sign_in_cap.hpp"
#include <icsbridge/server.hpp>

#include <boost/url/params_view.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace icsbridge::connect {

/** @brief Whether `token` opens `feed` (public, its `token`, or one of its `tokens`), in constant time. */
bool feed_admits(FeedConfig const& feed, std::string_view token);

/** @brief The page's query without `token`, `tz` and `feed`: the view the calendar mirrors. */
std::string view_of(boost::urls::params_view params);

/** @brief public_url + "/connect/callback": the redirect URI registered with the providers. */
std::string redirect_uri(Config const& cfg);

struct ConnectCall; // connect_http.hpp, which the handlers' files share

class ConnectRoutes final : public AsyncRoutes {
  public:
    /** @param connections must outlive this */
    explicit ConnectRoutes(Connections& connections, Logger log);

    bool owns(std::string_view path) const override;
    std::size_t body_limit(std::string_view path) const override;
    boost::asio::awaitable<ServerResponse>
    handle(ServerRequest const& req, std::shared_ptr<Config const> cfg, sys_seconds now) override;

  private:
    using Call = ConnectCall;
    ServerResponse start(Call const& c, std::string_view provider);
    boost::asio::awaitable<ServerResponse> finish(Call const& c);
    /** The code traded for the person's refresh token, the connection stored; their page, or why not. */
    boost::asio::awaitable<ServerResponse> connect_with(
        Call const& c, FlowState const& flow, TargetConfig const& target, std::string code, std::string back
    );
    boost::asio::awaitable<ServerResponse> manage(Call const& c, std::string_view id);
    boost::asio::awaitable<ServerResponse> disconnect(Call const& c, std::string_view id);
    /** Stops the pushing, deletes the calendar when asked and allowed, revokes the grant; `calendar` gets
     * the page's words for what became of the calendar (and why). */
    boost::asio::awaitable<Result<void>>
    undo_at_provider(Connection const& c, bool delete_calendar, std::string& calendar);

    Connections& connections_;
    Logger log_;
    // Each claim is kept until its state expires: counted as long, these bound what a flood of sign-ins
    // holds (the README's security notes give the caps).
    SignInCap begun_{SignInCaps{30, 10000, state_lifetime}};
    SignInCap claims_{SignInCaps{30, 10000, state_lifetime}};
};

} // namespace icsbridge::connect
