// File: provider.hpp
// What differs between Google and Microsoft in the OAuth flow, as pure functions of the target's config:
// the scope asked, the authorization URL, and the words of the "not connected" errors.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>

#include <string>
#include <string_view>

namespace icsbridge::oauth {

/** @brief "google" or "microsoft" ("caldav" for a CalDAV target): as stored and printed. */
std::string_view provider_name(TargetType type);

/**
 * @brief The scopes a target asks for, space-separated: the narrowest that do its job.
 * Google, a calendar by name (icsbridge creates it): `https://www.googleapis.com/auth/calendar.app.created`;
 * Google, a calendar id or "primary" (an existing calendar):
 * `https://www.googleapis.com/auth/calendar.events`; Microsoft: `offline_access Calendars.ReadWrite`
 * (offline_access for a refresh token).
 */
std::string scope_for(TargetConfig const& t);

/**
 * @brief The URL the person opens: `t.auth_url` with response_type=code, client_id, redirect_uri, scope,
 * state, code_challenge and code_challenge_method=S256 (Google: also access_type=offline and
 * prompt=consent, without which a second connect gets no refresh token), percent-encoded by Boost.URL.
 */
std::string authorization_url(
    TargetConfig const& t, std::string_view redirect_uri, std::string_view state, std::string_view challenge
);

/** @brief A target as the errors name it: its name and the config file to reconnect it with. */
struct TargetRef {
    std::string name;
    std::string config_path;
};

/** @brief `icsbridge connect --config FILE NAME`, FILE quoted for a POSIX shell when it needs it. */
std::string reconnect_command(TargetRef const& t);

/** @brief errc::not_connected: "target NAME is not connected: run icsbridge connect --config FILE NAME". */
Error not_connected(TargetRef const& t);

/** @brief errc::not_connected: "target NAME is not connected (WHY): run icsbridge connect ...". */
Error not_connected(TargetRef const& t, std::string const& why);

/**
 * @brief errc::not_connected after `invalid_grant` on a refresh: "target NAME: the account's consent was
 * revoked or has expired (invalid_grant); reconnect: icsbridge connect --config FILE NAME".
 */
Error consent_ended(TargetRef const& t);

} // namespace icsbridge::oauth
