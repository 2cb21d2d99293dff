// File: hostile_server.hpp
// The real server on a loopback socket with a capturing log, and a blocking client free to misbehave:
// shared by the hostile-request and hardening integration tests.
#pragma once

#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/unit_test.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace icsbridge::test {

namespace hostile {
namespace net = boost::asio;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;
} // namespace hostile

using namespace hostile;

inline std::vector<std::string> const secrets = {"s3cret-token-value", "alice-secret-1", "bob-secret-2"};

/** @brief The real server with a capturing log, a 4 MB public feed and the token feeds of server_fixtures. */
struct HostileServer {
    Config cfg;
    ServedFeeds store;
    ViewCache views;
    Metrics metrics;
    test::StringLogger logs;
    net::io_context ioc;
    Server server;
    std::uint16_t port = 0;
    std::thread thread;

    explicit HostileServer(
        std::chrono::seconds request_timeout = 2s, Config base = test::server_test_config()
    )
        : cfg(config(request_timeout, std::move(base)))
        , store(cfg)
        , server(ioc.get_executor(), cfg, store, views, metrics, logs.logger()) {
        auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
        test::publish(store, "pub", test::calendar_body(25000), 25000, now - 1h);
        test::publish(store, "secret", test::calendar_body(2, "s"), 2, now - 1h);
        test::publish(store, "team", test::calendar_body(1, "t"), 1, now - 1h);
        port = server.listen().value();
        net::co_spawn(ioc, server.run(), net::detached);
        thread = std::thread([this] { ioc.run(); });
    }
    ~HostileServer() {
        server.stop();
        thread.join();
        std::string const log = logs.joined();
        for (auto const& s : secrets)
            BOOST_TEST(log.find(s) == std::string::npos, "a feed token is in the log");
    }

    static Config config(std::chrono::seconds request_timeout, Config c) {
        c.server.host = "127.0.0.1";
        c.server.port = 0;
        c.server.threads = 2;
        c.server.request_timeout = request_timeout;
        c.server.max_connections = 2000;
        return c;
    }
};

/** @brief A blocking loopback client with 10 s socket timeouts, free to misbehave. */
class Client {
  public:
    /** @param from the loopback address to connect from (any of 127.0.0.0/8): another client to the server */
    explicit Client(std::uint16_t port, char const* from = "127.0.0.1")
        : sock_(ioc_) {
        sock_.open(tcp::v4());
        sock_.bind({net::ip::make_address(from), 0});
        sock_.connect({net::ip::make_address("127.0.0.1"), port});
        timeval tv{10, 0}; // a server that stops reading must not block our writes forever
        ::setsockopt(sock_.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }

    /** @brief False once the server has closed (or reset) the connection. */
    bool send(std::string_view bytes) {
        boost::system::error_code ec;
        net::write(sock_, net::buffer(bytes.data(), bytes.size()), ec);
        return !ec;
    }

    /** @brief Everything until the server closes, or `at_least` bytes, or 10 s pass. (Asio's blocking reads
     * ignore SO_RCVTIMEO, hence poll.) */
    std::string read_to_end(std::size_t at_least = std::string::npos) {
        std::string out;
        char buf[64 * 1024];
        auto const deadline = std::chrono::steady_clock::now() + 10s;
        while (out.size() < at_least) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now()
            );
            pollfd p{sock_.native_handle(), POLLIN, 0};
            if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0)
                break;
            auto n = ::recv(sock_.native_handle(), buf, sizeof buf, 0);
            if (n <= 0)
                break;
            out.append(buf, static_cast<std::size_t>(n));
        }
        return out;
    }

    tcp::socket& socket() { return sock_; }

  private:
    net::io_context ioc_;
    tcp::socket sock_;
};

/** @brief Sends `bytes` on a fresh connection and returns all the server sent back before closing. */
inline std::string round_trip(std::uint16_t port, std::string_view bytes) {
    Client c(port);
    c.send(bytes);
    return c.read_to_end();
}

/** @brief A 4xx status line, or nothing at all (the server closed without answering). */
inline bool refused(std::string const& response) {
    return response.empty() ||
           (response.starts_with("HTTP/1.1 4") && response.find("\r\n\r\n") != std::string::npos);
}

/** @brief The server still serves a normal request on a new connection. */
inline void still_serves(HostileServer& s) {
    auto out = round_trip(s.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    BOOST_TEST(out.starts_with("HTTP/1.1 200 OK"), "after a hostile request: " << out.substr(0, 40));
}

inline std::size_t count(std::string const& hay, std::string const& needle) {
    std::size_t n = 0;
    for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1))
        ++n;
    return n;
}

} // namespace icsbridge::test
