// File: error.hpp
// The one error type of icsbridge: an `errc` category plus a message a user can act on,
// and the `Result<T>` every module boundary returns.
#pragma once

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <iosfwd>
#include <string>
#include <string_view>
#include <system_error>

namespace icsbridge {

/** @brief What went wrong, by phase; each value maps to exactly one HTTP status and one exit code. */
enum class errc {
    ok = 0,
    usage,                 ///< bad command line (exit 2)
    config_invalid,        ///< config file unreadable or invalid (exit 2)
    feed_unknown,          ///< a feed/source name that the config does not define (exit 2)
    upstream_resolve,      ///< DNS lookup of the upstream host failed
    upstream_connect,      ///< TCP connect refused or unreachable
    upstream_tls,          ///< TLS handshake or certificate verification failed
    upstream_timeout,      ///< a deadline fired (connect, handshake, write, read or the whole request)
    upstream_io,           ///< connection reset / truncated body / protocol error
    upstream_too_large,    ///< the response exceeded the configured body limit
    upstream_auth,         ///< 401/403 or the API's auth error: token or api_key rejected
    upstream_not_found,    ///< 404 from the upstream (unknown id, endpoint retired)
    upstream_rate_limited, ///< 429 after all retries
    upstream_status,       ///< any other non-2xx status after retries
    upstream_malformed,    ///< body is not the JSON shape the API documents
    render_failed,         ///< libical refused to build the calendar
    io_error,              ///< local file system error (snapshot, export output)
    shutdown,              ///< cancelled because the process is stopping
    snapshot_corrupt,      ///< a kept snapshot (file or row) that does not check out: never served
    /// an OAuth target (google, microsoft) has no usable stored token: never connected, connected for another
    /// client or scope, or its consent was revoked or expired (invalid_grant). Not retried: the message names
    /// the `icsbridge connect` command that cures it.
    not_connected,
};

/** @brief Short stable name of an errc, e.g. "upstream_timeout" (used in /healthz and metrics). */
std::string_view to_string(errc e) noexcept;

/** @brief Writes to_string(e) (tests print codes this way). */
std::ostream& operator<<(std::ostream& os, errc e);

/** @brief Process exit status for an error: 2 for usage/config errors, 1 for everything else. */
int exit_code(errc e) noexcept;

/**
 * @brief The HTTP status an error is answered with (the server's error_response() is the one caller):
 * 400 for a bad request, 404 for an unknown feed, 502/504 for an upstream's failure, 503 while stopping
 * or when the kept snapshot does not check out, 500 for the rest.
 */
unsigned http_status(errc e) noexcept;

/**
 * @brief An error value: a code for programs and a one-line message for people.
 *
 * The message never contains a secret (token, api_key); code that builds one from a URL
 * must use the redacted form.
 */
struct Error {
    errc code = errc::ok;
    std::string message;

    Error() = default;
    Error(errc c, std::string msg)
        : code(c)
        , message(std::move(msg)) {}
};

/** @brief Lets `result<T, Error>::value()` throw (only used where an error is a bug). */
[[noreturn]] void throw_exception_from_error(Error const& e, boost::source_location const& loc);

/** @brief The return type of every module boundary. */
template <class T>
using Result = boost::system::result<T, Error>;

/** @brief Shorthand to return an error: `return fail(errc::config_invalid, "...")`. */
inline Error fail(errc c, std::string msg) {
    return Error{c, std::move(msg)};
}

} // namespace icsbridge
