// File: connection.hpp
// What icsbridge keeps of a subscriber's self-serve connection (issue 27): the record, its JSON (the file
// body on disk and the row body in cluster mode) and the id check that guards file names and URLs.
#pragma once

#include <icsbridge/error.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::connect {

/**
 * @brief What one subscriber connected. Holds no secret in the clear: the management key and the feed
 * token only as hashes (connection_hash()), the refresh token sealed.
 */
struct Connection {
    std::string id;           ///< base64url, 22 chars (16 random bytes): in URLs /connections/ID
    std::string provider;     ///< "google" | "microsoft"
    std::string feed;         ///< the feed's name
    std::string view;         ///< the view query of the page, e.g. "days=90&alarm=none" (may be empty)
    std::string token_hash;   ///< connection_hash() of the feed subscriber token used (empty: public feed)
    std::string key_hash;     ///< connection_hash() of the management secret (never stored itself)
    std::string client_id;    ///< the OAuth client the grant was made to
    std::string scope;        ///< scopes granted
    std::string sealed_token; ///< the refresh token, sealed (opaque ASCII text)
    std::string calendar;     ///< the calendar's display name (the feed's title)
    std::chrono::sys_seconds created_at{};
    // What the person's page shows, written by the replica that pushes it (so any replica can show it):
    std::optional<std::chrono::sys_seconds> last_success;
    std::optional<std::chrono::sys_seconds> last_failure;
    std::string last_error; ///< never a secret
    std::size_t items = 0;
    bool stopped = false; ///< no longer pushed (reconnect needed, feed token revoked); why in last_error
    friend bool operator==(Connection const&, Connection const&) = default;
};

/**
 * @brief The record as one JSON object: {"version":1,"id",...,"created_at","last_success","last_failure",
 * "last_error","items","stopped"}; times RFC 3339 UTC ("2026-11-22T10:00:00Z"), an absent one null.
 */
std::string to_json(Connection const& c);

/**
 * @brief The record to_json() wrote (keys in any order).
 * @return errc::io_error naming the field that is missing or wrong (never a value): not JSON, another
 * version, an id that is not valid_connection_id(), a provider other than google or microsoft, a hash that
 * is not 64 lowercase hex digits, a time that is not RFC 3339 UTC.
 */
Result<Connection> connection_from_json(std::string_view text);

/** @brief Exactly 22 base64url characters (A-Z a-z 0-9 - _): what may name a file or reach SQL. */
bool valid_connection_id(std::string_view id);

/** @brief The lowercase hex SHA-256 of a secret, as token_hash and key_hash keep it. */
std::string connection_hash(std::string_view secret);

/** @brief Copies the status fields (last_success, last_failure, last_error, items, stopped) of `from`. */
void copy_status(Connection const& from, Connection& to);

} // namespace icsbridge::connect
