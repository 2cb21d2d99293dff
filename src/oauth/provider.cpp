// File: provider.cpp
// Scopes, the authorization URL (Boost.URL encodes the query) and the reconnect messages.
#include "oauth/provider.hpp"

#include <boost/url/url.hpp>

namespace icsbridge::oauth {

std::string_view provider_name(TargetType type) {
    switch (type) {
    case TargetType::google:
        return "google";
    case TargetType::microsoft:
        return "microsoft";
    case TargetType::caldav:
        break;
    }
    return "caldav";
}

std::string scope_for(TargetConfig const& t) {
    if (t.type == TargetType::microsoft)
        return "offline_access Calendars.ReadWrite";
    // calendar.app.created reaches only the calendars this app made: enough for one made by name, and
    // nothing else of the account. Writing into an existing calendar needs calendar.events.
    if (t.calendar_id.empty())
        return "https://www.googleapis.com/auth/calendar.app.created";
    return "https://www.googleapis.com/auth/calendar.events";
}

std::string authorization_url(
    TargetConfig const& t, std::string_view redirect_uri, std::string_view state, std::string_view challenge
) {
    boost::urls::url u(t.auth_url);
    auto params = u.params();
    params.append({"response_type", "code"});
    params.append({"client_id", t.client_id});
    params.append({"redirect_uri", redirect_uri});
    params.append({"scope", scope_for(t)});
    params.append({"state", state});
    params.append({"code_challenge", challenge});
    params.append({"code_challenge_method", "S256"});
    if (t.type == TargetType::google) {
        // Google gives a refresh token only with access_type=offline, and again on a later connect only
        // when the consent screen is shown again.
        params.append({"access_type", "offline"});
        params.append({"prompt", "consent"});
    }
    return std::string(u.buffer());
}

namespace {

/** `s` as one word of a POSIX shell command line. */
std::string shell_word(std::string const& s) {
    bool const plain =
        !s.empty() &&
        s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-+,:@%=") ==
            std::string::npos;
    if (plain)
        return s;
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

std::string reconnect_command(TargetRef const& t) {
    return "icsbridge connect --config " + shell_word(t.config_path) + " " + shell_word(t.name);
}

Error not_connected(TargetRef const& t) {
    return fail(errc::not_connected, "target " + t.name + " is not connected: run " + reconnect_command(t));
}

Error not_connected(TargetRef const& t, std::string const& why) {
    return fail(
        errc::not_connected,
        "target " + t.name + " is not connected (" + why + "): run " + reconnect_command(t)
    );
}

Error consent_ended(TargetRef const& t) {
    return fail(
        errc::not_connected,
        "target " + t.name +
            ": the account's consent was revoked or has expired (invalid_grant); reconnect: " +
            reconnect_command(t)
    );
}

} // namespace icsbridge::oauth
