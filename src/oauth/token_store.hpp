// File: token_store.hpp
// What `icsbridge connect` keeps of a sign-in: the refresh token, for whom and what it was granted. A JSON
// file `{storage.dir}/oauth/TARGET.json` (0600, replaced atomically), or a database row in cluster mode:
// where it lives is a Persistence<std::optional<StoredToken>, StoredToken>, a load/save pair like
// Persistence<push::TargetState>. Never an access token.
#pragma once

#include "oauth/provider.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/persistence.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::oauth {

/** @brief One target's stored sign-in. The refresh token is a secret: never print or log it. */
struct StoredToken {
    std::string provider;      ///< "google" | "microsoft"
    std::string client_id;     ///< the client it was issued to: another client_id cannot use it
    std::string scope;         ///< the scopes asked when connecting (scope_for() then)
    std::string refresh_token; ///< the latest (Microsoft rotates it on refreshes)
    std::chrono::sys_seconds connected_at{};
    /// When the token endpoint refused this refresh token (invalid_grant: consent revoked or expired). Kept
    /// so that `check` and the next run say so instead of "connected"; a new `connect` clears it.
    std::optional<std::chrono::sys_seconds> refused_at{};
    friend bool operator==(StoredToken const&, StoredToken const&) = default;
};

/** @brief `t` as RFC 3339 UTC to the second, "2026-11-27T10:00:00Z": how stored records write times. */
std::string rfc3339(std::chrono::sys_seconds t);
/** @brief The time rfc3339() wrote; nullopt for any other text (a month 13, a zone, a fraction). */
std::optional<std::chrono::sys_seconds> parse_rfc3339(std::string const& s);

/** @brief storage_dir + "/oauth/" + target + ".json". */
std::string token_path(std::string const& storage_dir, std::string_view target);

/** @brief {"version":1,"provider","client_id","scope","refresh_token","connected_at" (RFC 3339 UTC)}, and
 * "refused_at" when set. */
std::string to_json(StoredToken const& t);
/** @brief errc::io_error naming what is malformed (never the token). */
Result<StoredToken> token_from_json(std::string_view text);

/** @brief The token kept at `path`; nullopt when there is no file. */
Result<std::optional<StoredToken>> load_token(std::string const& path);
/** @brief Writes it atomically with mode 0600, creating the directory (0700) when missing. */
Result<void> save_token(std::string const& path, StoredToken const& t);

/** @brief The token file of `target` under `storage_dir`. */
Persistence<std::optional<StoredToken>, StoredToken>
token_file(std::string const& storage_dir, std::string const& target);

/**
 * @brief Whether a stored token serves the target as configured now.
 * @return the token; else errc::not_connected with the reconnect command: none stored, or stored for
 * another provider, client_id, or scope (the config changed since connect: a calendar by name became an
 * existing one, say), or without a refresh token, or refused by the provider (refused_at).
 */
Result<StoredToken>
usable_token(std::optional<StoredToken> const& stored, TargetConfig const& t, TargetRef const& ref);

} // namespace icsbridge::oauth
