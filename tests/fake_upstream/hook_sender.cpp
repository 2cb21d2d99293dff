// File: hook_sender.cpp
// Sending a webhook like the events service: a plain JSON POST, no signature, one attempt.
#include "fake_upstream/hook_sender.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/url/parse.hpp>

namespace icsbridge::test {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

std::string hook_body(std::string const& api_base, std::string const& action, std::string const& event_id) {
    boost::json::object config{
        {"action", action},
        {"user_id", "1296715565"},
        {"webhook_id", "4411"},
        {"endpoint_url", "https://cal.example.org/hooks/…"}};
    return boost::json::serialize(boost::json::object{
        {"api_url", api_base + "/v3/events/" + event_id + "/"},
        {"config", std::move(config)}});
}

unsigned send_hook(std::string const& url, std::string const& body, std::chrono::milliseconds timeout) {
    auto u = boost::urls::parse_absolute_uri(url);
    if (!u || u->scheme() != "http")
        return 0;
    net::io_context ioc;
    beast::tcp_stream stream(ioc);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::request<http::string_body> req{http::verb::post, std::string(u->encoded_target()), 11};
    req.set(http::field::host, u->encoded_host_and_port());
    req.set(http::field::user_agent, "EventsService-Hookshot/1.0");
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
    unsigned status = 0;
    net::ip::tcp::resolver resolver(ioc);
    auto port = u->has_port() ? std::string(u->port()) : std::string("80");
    resolver.async_resolve(std::string(u->host()), port, [&](beast::error_code ec, auto results) {
        if (ec)
            return;
        stream.async_connect(results, [&](beast::error_code ec, auto const&) {
            if (ec)
                return;
            http::async_write(stream, req, [&](beast::error_code ec, std::size_t) {
                if (ec)
                    return;
                http::async_read(stream, buffer, res, [&](beast::error_code ec, std::size_t) {
                    if (!ec)
                        status = res.result_int();
                });
            });
        });
    });
    ioc.run_for(timeout);
    return status;
}

} // namespace icsbridge::test
