// File: tls_server.hpp
// A tiny scripted loopback server (plain HTTP or HTTPS with a self-signed certificate made at test
// time) on its own thread: each accepted connection runs a test-supplied coroutine, so tests can
// stall, trickle, reset or misbehave at exactly the byte they need.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace icsbridge::test {

/** @brief PEM files of a self-signed certificate valid for DNS:localhost and IP:127.0.0.1. */
struct SelfSignedCert {
    std::string cert_file;
    std::string key_file;
};

/** @brief Generates a fresh P-256 key and a self-signed certificate into `dir` (OpenSSL C API). */
SelfSignedCert make_self_signed_cert(std::string const& dir);

/** @brief One request head read by a script. */
struct ServerRequest {
    std::string method;
    std::string target;
    std::string head; ///< the raw head, request line and headers

    /** @brief Case-insensitive header value; empty if absent. */
    std::string header(std::string_view name) const;
};

/** @brief One accepted connection, as seen by a script. */
class ServerConn {
  public:
    struct Impl;
    explicit ServerConn(std::unique_ptr<Impl> impl);
    ~ServerConn();

    /** @brief Reads the next request head; nullopt when the client closed or the read failed. */
    boost::asio::awaitable<std::optional<ServerRequest>> read_request();
    /** @brief Writes raw bytes; false if the client is gone. */
    boost::asio::awaitable<bool> write(std::string data);
    /** @brief Waits, e.g. to stall or trickle. */
    boost::asio::awaitable<void> sleep(std::chrono::milliseconds d);
    /** @brief Closes the TCP connection (FIN; no TLS close_notify). */
    void close();
    /** @brief Aborts the connection with a TCP RST. */
    void reset();
    /** @brief 0 for the first connection the server accepted, 1 for the next, ... */
    int index() const;

  private:
    std::unique_ptr<Impl> impl_;
};

/** @brief "HTTP/1.1 STATUS Reason\r\nContent-Length: N\r\nEXTRA\r\nBODY"; extra lines end in CRLF. */
std::string http_response(unsigned status, std::string_view body, std::string_view extra_headers = {});

/** @brief A loopback server on 127.0.0.1 with an ephemeral port; stops (abandoning scripts) when destroyed.
 */
class ScriptedServer {
  public:
    using Script = std::function<boost::asio::awaitable<void>(ServerConn&)>;

    /** @brief Plain HTTP when `cert` is null, else HTTPS with that certificate. */
    explicit ScriptedServer(Script script, SelfSignedCert const* cert = nullptr);
    ~ScriptedServer();
    ScriptedServer(ScriptedServer const&) = delete;
    ScriptedServer& operator=(ScriptedServer const&) = delete;

    unsigned short port() const;
    /** @brief "http://127.0.0.1:PORT" + path, or "https://localhost:PORT" + path for TLS. */
    std::string url(std::string const& path) const;
    /** @brief Connections accepted so far (TLS: including failed handshakes). */
    int connections() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace icsbridge::test
