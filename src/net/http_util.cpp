// File: http_util.cpp
// Phases, the timeout message, the service prefix and sizes, worded for the HTTP client's errors.
#include "net/http_util.hpp"

#include <icsbridge/duration.hpp>

namespace icsbridge::net_detail {

std::string phase_words(Phase p, Target const& t) {
    switch (p) {
    case Phase::resolving:
        return "resolving " + t.host + " for " + t.method + " " + t.display;
    case Phase::connecting:
        return "connecting to " + t.host + ":" + t.port + " for " + t.method + " " + t.display;
    case Phase::handshaking:
        return "in the TLS handshake with " + t.host + " for " + t.method + " " + t.display;
    case Phase::sending:
        return "sending " + t.method + " " + t.display;
    case Phase::waiting:
        return "waiting for a response to " + t.method + " " + t.display;
    case Phase::reading_body:
    case Phase::decoding:
        return "reading the response body of " + t.method + " " + t.display;
    }
    return t.method + " " + t.display;
}

Error timed_out(std::string const& service, std::chrono::milliseconds limit, Phase p, Target const& t) {
    return client_error(
        service,
        errc::upstream_timeout,
        "timed out after " + format_duration(limit) + " " + phase_words(p, t)
    );
}

Error client_error(std::string const& service, errc code, std::string what) {
    return Error{code, service + ": " + std::move(what)};
}

std::string format_size(std::size_t bytes) {
    constexpr std::size_t mib = std::size_t{1024} * 1024;
    if (bytes >= mib && bytes % mib == 0)
        return std::to_string(bytes / mib) + " MiB";
    if (bytes >= 1024 && bytes % 1024 == 0)
        return std::to_string(bytes / 1024) + " KiB";
    return std::to_string(bytes) + " bytes";
}

} // namespace icsbridge::net_detail
