// File: connect_command.hpp
// `icsbridge connect`: the OAuth 2.0 sign-in of a google or microsoft target (RFC 8252 loopback redirect,
// PKCE, state), once, storing its refresh token.
#pragma once

#include "cli/args.hpp"
#include <icsbridge/config.hpp>

namespace icsbridge::cli {

/**
 * @brief 0: connected (the token stored); 1: the sign-in was refused, nobody came back in time, or the
 * token endpoint or the storage failed (one line on stderr); 2: an unknown or a caldav target.
 */
int connect_command(Config const& cfg, Args const& args);

} // namespace icsbridge::cli
