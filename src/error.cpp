// File: error.cpp
// The errc names and the single mappings from errc to exit status and to HTTP status. (Errors travel as Error
// values, never as std::error_code, so there is no error_category to keep in step.)
#include <icsbridge/error.hpp>

#include <ostream>
#include <stdexcept>

namespace icsbridge {

std::string_view to_string(errc e) noexcept {
    switch (e) {
    case errc::ok:
        return "ok";
    case errc::usage:
        return "usage";
    case errc::config_invalid:
        return "config_invalid";
    case errc::feed_unknown:
        return "feed_unknown";
    case errc::upstream_resolve:
        return "upstream_resolve";
    case errc::upstream_connect:
        return "upstream_connect";
    case errc::upstream_tls:
        return "upstream_tls";
    case errc::upstream_timeout:
        return "upstream_timeout";
    case errc::upstream_io:
        return "upstream_io";
    case errc::upstream_too_large:
        return "upstream_too_large";
    case errc::upstream_auth:
        return "upstream_auth";
    case errc::upstream_not_found:
        return "upstream_not_found";
    case errc::upstream_rate_limited:
        return "upstream_rate_limited";
    case errc::upstream_status:
        return "upstream_status";
    case errc::upstream_malformed:
        return "upstream_malformed";
    case errc::render_failed:
        return "render_failed";
    case errc::io_error:
        return "io_error";
    case errc::shutdown:
        return "shutdown";
    case errc::snapshot_corrupt:
        return "snapshot_corrupt";
    case errc::not_connected:
        return "not_connected";
    }
    return "unknown";
}

std::ostream& operator<<(std::ostream& os, errc e) {
    return os << to_string(e);
}

int exit_code(errc e) noexcept {
    switch (e) {
    case errc::ok:
        return 0;
    case errc::usage:
    case errc::config_invalid:
    case errc::feed_unknown:
        return 2;
    default:
        return 1;
    }
}

unsigned http_status(errc e) noexcept {
    switch (e) {
    case errc::ok:
        return 200;
    case errc::usage:
        return 400;
    case errc::feed_unknown:
        return 404;
    case errc::upstream_timeout:
        return 504;
    case errc::upstream_resolve:
    case errc::upstream_connect:
    case errc::upstream_tls:
    case errc::upstream_io:
    case errc::upstream_too_large:
    case errc::upstream_auth:
    case errc::upstream_not_found:
    case errc::upstream_rate_limited:
    case errc::upstream_status:
    case errc::upstream_malformed:
    case errc::not_connected:
        return 502;
    case errc::shutdown:
    case errc::snapshot_corrupt:
        return 503;
    case errc::config_invalid:
    case errc::render_failed:
    case errc::io_error:
        return 500;
    }
    return 500;
}

void throw_exception_from_error(Error const& e, boost::source_location const&) {
    throw std::runtime_error(e.message);
}

} // namespace icsbridge
