// File: target.cpp
// URL → Target with Boost.URL: scheme, host (IPv6 unbracketed), default ports, origin-form target.
#include "net/target.hpp"

#include <icsbridge/log.hpp>

#include <boost/url/parse.hpp>

namespace icsbridge::net_detail {

Result<Target> parse_target(std::string const& service, std::string_view url) {
    auto u = boost::urls::parse_uri(url);
    if (!u)
        return fail(
            errc::config_invalid,
            service + ": invalid URL " + redact_url(url) + " (" + u.error().message() + ")"
        );
    Target t;
    auto scheme = u->scheme_id();
    if (scheme != boost::urls::scheme::http && scheme != boost::urls::scheme::https)
        return fail(
            errc::config_invalid,
            service + ": unsupported URL scheme in " + redact_url(url) + " (use http or https)"
        );
    t.tls = scheme == boost::urls::scheme::https;
    if (u->host_type() == boost::urls::host_type::ipv6)
        t.host = u->encoded_host_address().decode();
    else
        t.host = u->host_address();
    if (t.host.empty())
        return fail(errc::config_invalid, service + ": URL without a host: " + redact_url(url));
    t.host_is_name = u->host_type() == boost::urls::host_type::name;
    t.port = u->has_port() ? std::string(u->port()) : (t.tls ? "443" : "80");
    // Boost.URL 1.81's encoded_host_and_port() drops the port, so put it back by hand.
    std::string host_in_url = std::string(u->encoded_host());
    if (u->has_port())
        host_in_url += ":" + std::string(u->port());
    t.host_header = host_in_url;
    t.target = u->encoded_target();
    if (t.target.empty() || t.target.front() != '/')
        t.target.insert(0, "/");
    t.display = redact_url(std::string(u->scheme()) + "://" + host_in_url + t.target);
    t.key = std::string(u->scheme()) + "://" + t.host + ":" + t.port;
    return t;
}

} // namespace icsbridge::net_detail
