// File: revoked_tokens.hpp
// Subscriber tokens a reload took away, kept a week so their calendar apps get 410 Gone (and stop polling)
// instead of a 404 they retry forever. Only salted SHA-256 digests are kept, in STORAGE_DIR/revoked-tokens.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>

#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace icsbridge {

using sys_seconds = std::chrono::sys_seconds;

/** @brief How long a revoked token answers 410 before it is as unknown as any other (404). */
inline constexpr std::chrono::days revoked_token_days{7};

class RevokedTokens {
  public:
    /** @brief Reads `dir`/revoked-tokens, keeping the entries younger than a week; absent: none. */
    RevokedTokens(std::string dir, sys_seconds now);

    /**
     * @brief Revokes at `now` every token a feed of `old` accepted and the same feed of `next` does not (a
     * feed gone from `next` loses all of them), forgets a token `next` accepts again, and saves the list. A
     * token that no feed of `next` accepts is also revoked from the feed "" (no feed has that name): the
     * CalDAV principal, which belongs to no feed, asks for it.
     * @return how many were revoked, or errc::io_error when the list could not be saved (it still applies
     * until the process ends)
     */
    Result<std::size_t> revoke_dropped(Config const& old, Config const& next, sys_seconds now);

    /** @brief Whether `token` was revoked from `feed` within the last week. Thread-safe. */
    bool revoked(std::string_view feed, std::string_view token, sys_seconds now) const;

    /** @brief The file the list is kept in. */
    std::string path() const;

  private:
    using Digest = std::array<unsigned char, 32>;
    static Digest digest(std::string_view feed, std::string_view token);
    Result<void> save_locked(sys_seconds now) const;

    std::string dir_;
    mutable std::mutex mtx_;
    std::map<Digest, sys_seconds> revoked_; ///< guarded by mtx_; digest -> when it was revoked
};

} // namespace icsbridge
