// File: token_persistence.hpp
// Where the OAuth targets' stored sign-ins live for a config: the token file under storage.dir, and in
// cluster mode the database row (read first; the file is the copy for when the database is away), wired
// here like the push state (make_backends chooses) because it joins the oauth and cluster rooms; and the
// push adapters' Authorizers made of them.
#pragma once

#include "cluster/oauth_token_rows.hpp"
#include "oauth/token_store.hpp"
#include "push/calendar_api.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>

#include <functional>
#include <memory>
#include <string>

namespace icsbridge::cli {

/**
 * @brief The persistence of the OAuth targets' sign-ins: the file under `dir`. With `rows` (cluster mode,
 * make_backends): load reads the row (the file when there is no row, or the database is away: logged as a
 * warning), save writes the file and the row (a row that cannot be written is a warning: the token is
 * still in use from memory and file). The one database connection of `rows` serves every target.
 */
PersistenceFor<std::optional<oauth::StoredToken>, oauth::StoredToken>
token_persistence(std::string const& dir, std::shared_ptr<cluster::OAuthTokenRows> rows, Logger const& log);

/** @brief Stores a sign-in `connect` just made for `target`. */
using SignInStore = std::function<Result<void>(std::string const& target, oauth::StoredToken const& t)>;

/**
 * @brief What `connect` stores: the file under `dir`, and with `rows` (cluster mode, make_backends) the row,
 * where either failing is an error (errc::io_error): another replica must not go on with an older sign-in
 * unnoticed.
 */
SignInStore sign_in_store(std::string const& dir, std::shared_ptr<cluster::OAuthTokenRows> rows);

/**
 * @brief The push adapters' Authorizer of each google and microsoft target: an oauth::TokenSource over
 * `keeping`, with an HttpClient of its own for the token endpoint (the target's ca_file), held alive by the
 * Authorizer. Errors name `icsbridge connect --config CONFIG_PATH TARGET`.
 */
push::Authorizers oauth_authorizers(
    PersistenceFor<std::optional<oauth::StoredToken>, oauth::StoredToken> keeping,
    std::string const& config_path,
    Logger const& log
);

} // namespace icsbridge::cli
