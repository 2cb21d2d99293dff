// File: tls_server.cpp
// The scripted loopback server and the self-signed certificate generator used by network tests.
#include "support/tls_server.hpp"

#include "util/ascii.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <stdexcept>
#include <thread>

namespace icsbridge::test {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

namespace {

constexpr auto tuple_awaitable = net::as_tuple(net::use_awaitable);

template <class T, void (*Free)(T*)>
struct OsslDeleter {
    void operator()(T* p) const { Free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, OsslDeleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, OsslDeleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, OsslDeleter<BIO, BIO_free_all>>;

void add_ext(X509* x, int nid, char const* value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (!ext)
        throw std::runtime_error("X509V3_EXT_conf_nid failed");
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
}

std::string reason_phrase(unsigned status) {
    switch (status) {
    case 200:
        return "OK";
    case 401:
        return "Unauthorized";
    case 404:
        return "Not Found";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    default:
        return "Status";
    }
}

} // namespace

SelfSignedCert make_self_signed_cert(std::string const& dir) {
    PkeyPtr key(EVP_EC_gen("P-256"));
    X509Ptr x(X509_new());
    if (!key || !x)
        throw std::runtime_error("cannot create a key or certificate");
    X509_set_version(x.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x.get()), 1);
    X509_gmtime_adj(X509_getm_notBefore(x.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x.get()), 24 * 3600);
    X509_set_pubkey(x.get(), key.get());
    X509_NAME* name = X509_get_subject_name(x.get());
    X509_NAME_add_entry_by_txt(
        name,
        "CN",
        MBSTRING_ASC,
        reinterpret_cast<unsigned char const*>("localhost"),
        -1,
        -1,
        0
    );
    X509_set_issuer_name(x.get(), name);
    // Like `openssl req -x509`: a CA-capable self-signed certificate, usable directly as a trust anchor.
    add_ext(x.get(), NID_basic_constraints, "critical,CA:TRUE");
    add_ext(x.get(), NID_subject_key_identifier, "hash");
    add_ext(x.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
    if (!X509_sign(x.get(), key.get(), EVP_sha256()))
        throw std::runtime_error("cannot sign the certificate");

    SelfSignedCert out{dir + "/cert.pem", dir + "/key.pem"};
    BioPtr cert_bio(BIO_new_file(out.cert_file.c_str(), "w"));
    BioPtr key_bio(BIO_new_file(out.key_file.c_str(), "w"));
    if (!cert_bio || !key_bio || !PEM_write_bio_X509(cert_bio.get(), x.get()) ||
        !PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr))
        throw std::runtime_error("cannot write the certificate files into " + dir);
    return out;
}

std::string ServerRequest::header(std::string_view name) const {
    std::string_view rest = head;
    while (!rest.empty()) {
        auto eol = rest.find("\r\n");
        auto line = rest.substr(0, eol);
        rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 2);
        auto colon = line.find(':');
        if (colon == std::string_view::npos || !icsbridge::ascii_iequals(line.substr(0, colon), name))
            continue;
        auto value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ')
            value.remove_prefix(1);
        return std::string(value);
    }
    return {};
}

std::string http_response(unsigned status, std::string_view body, std::string_view extra_headers) {
    std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    out += extra_headers;
    out += "\r\n";
    out += body;
    return out;
}

struct ServerConn::Impl {
    tcp::socket socket;
    std::unique_ptr<ssl::stream<tcp::socket&>> tls;
    std::string buffer;
    int index = 0;
};

ServerConn::ServerConn(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
ServerConn::~ServerConn() = default;

net::awaitable<std::optional<ServerRequest>> ServerConn::read_request() {
    auto buf = net::dynamic_buffer(impl_->buffer);
    // Not `cond ? co_await a : co_await b`: g++ 12 miscompiles co_await inside ?:.
    std::tuple<boost::system::error_code, std::size_t> got;
    if (impl_->tls)
        got = co_await net::async_read_until(*impl_->tls, buf, "\r\n\r\n", tuple_awaitable);
    else
        got = co_await net::async_read_until(impl_->socket, buf, "\r\n\r\n", tuple_awaitable);
    auto [ec, n] = got;
    if (ec)
        co_return std::nullopt;
    ServerRequest req;
    req.head = impl_->buffer.substr(0, n);
    impl_->buffer.erase(0, n);
    auto sp1 = req.head.find(' ');
    auto sp2 = req.head.find(' ', sp1 + 1);
    req.method = req.head.substr(0, sp1);
    req.target = req.head.substr(sp1 + 1, sp2 - sp1 - 1);
    co_return req;
}

net::awaitable<bool> ServerConn::write(std::string data) {
    std::tuple<boost::system::error_code, std::size_t> sent;
    if (impl_->tls)
        sent = co_await net::async_write(*impl_->tls, net::buffer(data), tuple_awaitable);
    else
        sent = co_await net::async_write(impl_->socket, net::buffer(data), tuple_awaitable);
    co_return !std::get<0>(sent);
}

net::awaitable<void> ServerConn::sleep(std::chrono::milliseconds d) {
    net::steady_timer t(impl_->socket.get_executor(), d);
    co_await t.async_wait(tuple_awaitable);
}

void ServerConn::close() {
    boost::system::error_code ec;
    impl_->socket.shutdown(tcp::socket::shutdown_both, ec);
    impl_->socket.close(ec);
}

void ServerConn::reset() {
    boost::system::error_code ec;
    // Linger 0 turns close() into an RST, which is what a crashed or killed upstream looks like.
    impl_->socket.set_option(net::socket_base::linger(true, 0), ec);
    impl_->socket.close(ec);
}

int ServerConn::index() const {
    return impl_->index;
}

struct ScriptedServer::Impl {
    // Declared before the io_context so that they outlive the coroutine frames it destroys.
    Script script;
    std::optional<ssl::context> tls;
    std::atomic<int> accepted{0};
    net::io_context ioc;
    tcp::acceptor acceptor{ioc};
    std::thread thread;

    net::awaitable<void> session(tcp::socket socket, int index) {
        auto impl =
            std::make_unique<ServerConn::Impl>(ServerConn::Impl{std::move(socket), nullptr, {}, index});
        if (tls) {
            impl->tls = std::make_unique<ssl::stream<tcp::socket&>>(impl->socket, *tls);
            auto [ec] = co_await impl->tls->async_handshake(ssl::stream_base::server, tuple_awaitable);
            if (ec)
                co_return;
        }
        ServerConn conn(std::move(impl));
        co_await script(conn);
    }

    net::awaitable<void> accept_loop() {
        for (;;) {
            auto [ec, socket] = co_await acceptor.async_accept(tuple_awaitable);
            if (ec)
                co_return;
            int index = accepted++;
            net::co_spawn(ioc, session(std::move(socket), index), net::detached);
        }
    }
};

ScriptedServer::ScriptedServer(Script script, SelfSignedCert const* cert)
    : impl_(std::make_unique<Impl>()) {
    impl_->script = std::move(script);
    if (cert) {
        impl_->tls.emplace(ssl::context::tls_server);
        impl_->tls->use_certificate_chain_file(cert->cert_file);
        impl_->tls->use_private_key_file(cert->key_file, ssl::context::pem);
    }
    tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 0);
    impl_->acceptor.open(ep.protocol());
    impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
    impl_->acceptor.bind(ep);
    impl_->acceptor.listen();
    net::co_spawn(impl_->ioc, impl_->accept_loop(), net::detached);
    impl_->thread = std::thread([this] { impl_->ioc.run(); });
}

ScriptedServer::~ScriptedServer() {
    impl_->ioc.stop();
    impl_->thread.join();
}

unsigned short ScriptedServer::port() const {
    return impl_->acceptor.local_endpoint().port();
}

std::string ScriptedServer::url(std::string const& path) const {
    return std::string(impl_->tls ? "https://localhost:" : "http://127.0.0.1:") + std::to_string(port()) +
           path;
}

int ScriptedServer::connections() const {
    return impl_->accepted.load();
}

} // namespace icsbridge::test
