// File: target.hpp
// Where one request goes: an absolute http(s) URL parsed once into what resolving, connecting, the
// Host header, the request line, the connection pool and the log messages each need.
#pragma once

#include <icsbridge/error.hpp>

#include <string>
#include <string_view>

namespace icsbridge::net_detail {

/** @brief Where one request goes, parsed once. */
struct Target {
    bool tls = false;
    bool host_is_name = true;
    std::string host; ///< for resolving, SNI and verification (no brackets)
    std::string port;
    std::string host_header;
    std::string target;         ///< origin-form: path and query
    std::string display;        ///< scheme://host[:port]/path?query, secrets redacted, no userinfo
    std::string key;            ///< pool key: scheme://host:port
    std::string method = "GET"; ///< of the request it is for: messages say "PUT https://…"
};

/**
 * @brief Parses an absolute http or https URL.
 * @return the Target, or config_invalid with a message naming `service` and the redacted URL.
 */
Result<Target> parse_target(std::string const& service, std::string_view url);

} // namespace icsbridge::net_detail
