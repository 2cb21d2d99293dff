// File: oauth_token_rows.hpp
// Cluster mode: each OAuth target's stored sign-in (oauth/token_store.hpp's JSON) in the database, so
// every replica pushes with the refresh token `icsbridge connect` stored on one of them, and a token a
// provider rotated on one replica is the one the others use next. Its own connection; it migrates the
// schema on each new connection (connect runs without a cluster node to do it).
#pragma once

#include "cluster/pg.hpp"
#include <icsbridge/error.hpp>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace icsbridge::cluster {

class OAuthTokenRows {
  public:
    /** @param url the database (never shown: mask_database_url); @param node this replica's name */
    OAuthTokenRows(std::string url, std::string node);

    /** @brief The target's token JSON as last saved by any replica; nullopt when there is none. */
    Result<std::optional<std::string>> load(std::string const& target);
    /** @brief Replaces the target's row. */
    Result<void> save(std::string const& target, std::string const& token_json);

  private:
    Result<void> prepare();

    std::mutex mtx_;
    PgConnection db_;
    std::string node_;
    std::uint64_t migrated_on_ = 0; ///< the connection (connects()) the schema was last checked on
};

} // namespace icsbridge::cluster
