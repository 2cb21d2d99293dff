// File: tls.hpp
// TLS client setup for upstream connections: trust store (system + optional ca_file), SNI, peer and
// host name verification, and the wording of certificate failures.
#pragma once

#include <icsbridge/error.hpp>

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <memory>
#include <string>

namespace icsbridge::net_detail {

using tls_stream = boost::asio::ssl::stream<boost::beast::tcp_stream>;

/**
 * @brief A TLS 1.2+ client context trusting the system store plus `ca_file` (PEM) when non-empty.
 * @return upstream_tls with a message naming `service` if `ca_file` cannot be loaded.
 */
Result<std::shared_ptr<boost::asio::ssl::context>>
make_client_context(std::string const& service, std::string const& ca_file);

/**
 * @brief Turns on SNI (only for names: RFC 6066 forbids IP literals) and verification of the chain
 * and of `host` (a name or an IP literal) on a fresh stream. Returns false if OpenSSL refused SNI.
 */
bool prepare_client_stream(tls_stream& s, std::string const& host, bool host_is_name);

/**
 * @brief Why a handshake failed, for a user: "TLS certificate of HOST not trusted (self-signed
 * certificate); set ca_file for self-hosted upstreams", or "TLS handshake with HOST failed (...)".
 */
std::string describe_handshake_failure(tls_stream& s, std::string const& host, boost::system::error_code ec);

} // namespace icsbridge::net_detail
