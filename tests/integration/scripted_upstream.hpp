// File: scripted_upstream.hpp
// A tiny loopback HTTP server whose answers a test scripts request by request (for the paging guards,
// auth failures and other misbehaviour the fixture-driven fake upstream does not produce).
#pragma once

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/url/parse.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace icsbridge::test {

struct ScriptedRequest {
    std::string target;                                     ///< as sent, percent-encoded
    std::string path;                                       ///< decoded
    std::vector<std::pair<std::string, std::string>> query; ///< decoded, in order
    std::string authorization;
    std::string content_type;
    std::string method;
    std::string body;

    std::string param(std::string const& key) const {
        for (auto const& [k, v] : query)
            if (k == key)
                return v;
        return {};
    }
    bool has_param(std::string const& key) const {
        return std::any_of(query.begin(), query.end(), [&](auto const& kv) { return kv.first == key; });
    }
};

struct ScriptedReply {
    unsigned status = 200;
    std::string body;
    std::chrono::milliseconds delay{0}; ///< wait before answering (to overlap requests)
    std::vector<std::pair<std::string, std::string>>
        headers{}; ///< more header fields (Content-Encoding, ...)
};

/** @brief Serves `handler(request)` on 127.0.0.1 from its own thread until destroyed. */
class ScriptedUpstream {
  public:
    using Handler = std::function<ScriptedReply(ScriptedRequest const&)>;

    explicit ScriptedUpstream(Handler handler)
        : handler_(std::move(handler))
        , acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
        boost::asio::co_spawn(ioc_, accept_loop(), boost::asio::detached);
        thread_ = std::thread([this] { ioc_.run(); });
    }
    ~ScriptedUpstream() {
        ioc_.stop();
        thread_.join();
    }
    ScriptedUpstream(ScriptedUpstream const&) = delete;
    ScriptedUpstream& operator=(ScriptedUpstream const&) = delete;

    std::string base_url() const {
        return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
    }

    std::vector<ScriptedRequest> requests() const {
        std::lock_guard lock(mtx_);
        return requests_;
    }
    /** @brief Most requests that were being answered at the same time. */
    int max_in_flight() const {
        std::lock_guard lock(mtx_);
        return max_in_flight_;
    }

  private:
    boost::asio::awaitable<void> accept_loop() {
        for (;;) {
            auto socket = co_await acceptor_.async_accept(boost::asio::use_awaitable);
            boost::asio::co_spawn(ioc_, session(std::move(socket)), boost::asio::detached);
        }
    }

    boost::asio::awaitable<void> session(boost::asio::ip::tcp::socket socket) {
        namespace http = boost::beast::http;
        boost::beast::tcp_stream stream(std::move(socket));
        boost::beast::flat_buffer buf;
        try {
            for (;;) {
                stream.expires_after(std::chrono::seconds(30));
                http::request<http::string_body> req;
                co_await http::async_read(stream, buf, req, boost::asio::use_awaitable);
                auto reply = record_and_answer(req);
                if (reply.delay.count() > 0) {
                    boost::asio::steady_timer t(ioc_, reply.delay);
                    co_await t.async_wait(boost::asio::use_awaitable);
                }
                http::response<http::string_body> res{static_cast<http::status>(reply.status), 11};
                res.set(http::field::content_type, "application/json");
                for (auto const& [name, value] : reply.headers)
                    res.set(name, value);
                res.body() = reply.body;
                res.keep_alive(req.keep_alive());
                res.prepare_payload();
                stream.expires_after(std::chrono::seconds(30));
                co_await http::async_write(stream, res, boost::asio::use_awaitable);
                {
                    std::lock_guard lock(mtx_);
                    --in_flight_;
                }
                if (!res.keep_alive())
                    break;
            }
        } catch (std::exception const&) {
            // The client closed the connection (or the test ended): nothing to report.
        }
    }

    template <class Request>
    ScriptedReply record_and_answer(Request const& req) {
        ScriptedRequest r;
        r.target = std::string(req.target());
        r.authorization = std::string(req["Authorization"]);
        r.content_type = std::string(req["Content-Type"]);
        r.method = std::string(req.method_string());
        r.body = req.body();
        if (auto u = boost::urls::parse_origin_form(r.target)) {
            r.path = std::string(u->path());
            for (auto const& p : u->params())
                r.query.emplace_back(p.key, p.value);
        }
        std::lock_guard lock(mtx_);
        requests_.push_back(r);
        max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
        return handler_(r);
    }

    Handler handler_;
    boost::asio::io_context ioc_;
    boost::asio::ip::tcp::acceptor acceptor_;
    std::thread thread_;
    mutable std::mutex mtx_;
    std::vector<ScriptedRequest> requests_;
    int in_flight_ = 0;
    int max_in_flight_ = 0;
};

} // namespace icsbridge::test
