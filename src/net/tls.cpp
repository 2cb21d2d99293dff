// File: tls.cpp
// OpenSSL client context and per-connection verification for the HTTP client.
#include "net/tls.hpp"

#include <icsbridge/net.hpp>

#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/verify_context.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

namespace icsbridge::net_detail {

namespace ssl = boost::asio::ssl;

Result<std::shared_ptr<ssl::context>>
make_client_context(std::string const& service, std::string const& ca_file) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
    ctx->set_options(
        ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
        ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1
    );
    boost::system::error_code ec;
    // The system store stays in use with a ca_file: the file adds anchors, it does not replace them.
    ctx->set_default_verify_paths(ec);
    if (ec)
        return fail(
            errc::upstream_tls,
            service + ": cannot load the system trust store (" + ec.message() + ")"
        );
    if (!ca_file.empty()) {
        ctx->load_verify_file(ca_file, ec);
        if (ec)
            return fail(
                errc::upstream_tls,
                service + ": cannot load ca_file " + ca_file + " (" + ec.message() +
                    "); it must hold PEM certificates"
            );
    }
    ctx->set_verify_mode(ssl::verify_peer);
    return ctx;
}

} // namespace icsbridge::net_detail

namespace icsbridge {

Result<std::shared_ptr<boost::asio::ssl::context>>
TlsContexts::get(std::string const& service, std::string const& ca_file) {
    std::lock_guard lock(mtx_);
    if (auto it = by_file_.find(ca_file); it != by_file_.end())
        return it->second;
    auto made = net_detail::make_client_context(service, ca_file);
    if (made)
        by_file_.emplace(ca_file, *made);
    return made;
}

std::size_t TlsContexts::made() const {
    std::lock_guard lock(mtx_);
    return by_file_.size();
}

} // namespace icsbridge

namespace icsbridge::net_detail {

bool prepare_client_stream(tls_stream& s, std::string const& host, bool host_is_name) {
    s.set_verify_mode(ssl::verify_peer);
    // host_name_verification leaves the OpenSSL error at X509_V_OK when only the name is wrong;
    // record a mismatch so the message can say so instead of a vague "verify failed".
    s.set_verify_callback([check = ssl::host_name_verification(host),
                           host_is_name](bool preverified, ssl::verify_context& vctx) mutable {
        bool ok = check(preverified, vctx);
        if (!ok && preverified)
            X509_STORE_CTX_set_error(
                vctx.native_handle(),
                host_is_name ? X509_V_ERR_HOSTNAME_MISMATCH : X509_V_ERR_IP_ADDRESS_MISMATCH
            );
        return ok;
    });
    if (host_is_name && !SSL_set_tlsext_host_name(s.native_handle(), host.c_str()))
        return false;
    return true;
}

std::string describe_handshake_failure(tls_stream& s, std::string const& host, boost::system::error_code ec) {
    long verify = SSL_get_verify_result(s.native_handle());
    if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH)
        return "TLS certificate presented by " + host + " is not valid for that name (" +
               X509_verify_cert_error_string(verify) + ")";
    if (verify != X509_V_OK)
        return "TLS certificate of " + host + " not trusted (" + X509_verify_cert_error_string(verify) +
               "); set ca_file for self-hosted upstreams";
    return "TLS handshake with " + host + " failed (" + ec.message() + ")";
}

} // namespace icsbridge::net_detail
