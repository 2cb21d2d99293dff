// File: loopback.cpp
// LoopbackRedirect over Beast: an acceptor on 127.0.0.1:0, one request read per connection (header only,
// 8 KiB at most), pages written with Connection: close.
#include "oauth/loopback.hpp"

#include "util/use_tuple.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <chrono>
#include <optional>
#include <utility>

namespace icsbridge::oauth {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr std::chrono::seconds read_deadline{10};
constexpr std::chrono::seconds write_deadline{10};

RedirectVerdict closed_verdict() {
    RedirectVerdict v;
    v.kind = RedirectVerdict::Kind::closed;
    return v;
}

std::string page_for(RedirectVerdict const& v) {
    using Kind = RedirectVerdict::Kind;
    if (v.kind == Kind::wrong_state)
        return redirect_page(
            "Not this sign-in",
            "This answer does not belong to the sign-in icsbridge connect is waiting for (its state "
            "differs). "
            "Start from the URL icsbridge connect printed."
        );
    if (v.status == 404)
        return redirect_page("Not found", "icsbridge connect only waits for the sign-in's answer here.");
    return redirect_page(
        "Waiting for the sign-in",
        "icsbridge connect waits here for the answer of the sign-in page it printed the URL of."
    );
}

} // namespace

struct LoopbackRedirect::Impl {
    explicit Impl(net::any_io_executor ex)
        : acceptor(ex) {}

    tcp::acceptor acceptor;
    std::optional<beast::tcp_stream> held;    ///< the connection of the sign-in's answer
    std::optional<beast::tcp_stream> current; ///< the connection being read (closed by close())
    bool closed = false;

    /** Reads one request from `current`; nullopt if it failed or took too long. */
    net::awaitable<std::optional<http::request<http::empty_body>>> read_one() {
        beast::flat_buffer buf;
        http::request_parser<http::empty_body> parser;
        parser.header_limit(8192);
        parser.body_limit(0);
        current->expires_after(read_deadline);
        auto [ec, n] = co_await http::async_read(*current, buf, parser, use_tuple);
        (void)n;
        if (ec)
            co_return std::nullopt;
        co_return parser.release();
    }

    static net::awaitable<void> send(beast::tcp_stream& stream, unsigned status, std::string html) {
        http::response<http::string_body> res{static_cast<http::status>(status), 11};
        res.set(http::field::content_type, "text/html; charset=utf-8");
        res.set(http::field::cache_control, "no-store");
        res.set("Referrer-Policy", "no-referrer");
        res.keep_alive(false);
        res.body() = std::move(html);
        res.prepare_payload();
        stream.expires_after(write_deadline);
        auto [ec, n] = co_await http::async_write(stream, res, use_tuple);
        (void)ec;
        (void)n;
        beast::error_code ignored;
        stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
        stream.close();
    }
};

LoopbackRedirect::LoopbackRedirect(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

LoopbackRedirect::~LoopbackRedirect() = default;

Result<std::unique_ptr<LoopbackRedirect>> LoopbackRedirect::open(net::any_io_executor ex) {
    auto impl = std::make_unique<Impl>(ex);
    beast::error_code ec;
    tcp::endpoint const ep(net::ip::make_address_v4("127.0.0.1"), 0);
    impl->acceptor.open(ep.protocol(), ec);
    if (!ec)
        impl->acceptor.bind(ep, ec);
    if (!ec)
        impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec)
        return fail(errc::io_error, "cannot listen on 127.0.0.1 for the sign-in's answer: " + ec.message());
    return std::unique_ptr<LoopbackRedirect>(new LoopbackRedirect(std::move(impl)));
}

std::uint16_t LoopbackRedirect::port() const {
    beast::error_code ec;
    return impl_->acceptor.local_endpoint(ec).port();
}

std::string LoopbackRedirect::redirect_uri() const {
    return "http://127.0.0.1:" + std::to_string(port()) + "/";
}

net::awaitable<RedirectVerdict>
LoopbackRedirect::wait(std::string state, std::function<void(RedirectVerdict const&)> on_ignored) {
    Impl& d = *impl_;
    for (;;) {
        if (d.closed)
            co_return closed_verdict();
        auto [ec, socket] = co_await d.acceptor.async_accept(use_tuple);
        if (ec || d.closed) {
            if (d.closed || !d.acceptor.is_open())
                co_return closed_verdict();
            continue; // a connection reset before it was accepted
        }
        d.current.emplace(std::move(socket));
        auto req = co_await d.read_one();
        if (!req || d.closed) {
            d.current.reset();
            continue;
        }
        auto v =
            classify_redirect(std::string_view(req->method_string()), std::string_view(req->target()), state);
        if (v.kind == RedirectVerdict::Kind::code || v.kind == RedirectVerdict::Kind::denied) {
            d.held.emplace(std::move(*d.current));
            d.current.reset();
            co_return v;
        }
        if (on_ignored)
            on_ignored(v);
        auto sent = Impl::send(*d.current, v.status, page_for(v));
        co_await std::move(sent);
        d.current.reset();
    }
}

net::awaitable<void> LoopbackRedirect::answer(unsigned status, std::string html) {
    Impl& d = *impl_;
    if (!d.held)
        co_return;
    auto sent = Impl::send(*d.held, status, std::move(html));
    co_await std::move(sent);
    d.held.reset();
}

void LoopbackRedirect::close() {
    Impl& d = *impl_;
    d.closed = true;
    beast::error_code ec;
    d.acceptor.close(ec);
    if (d.current)
        d.current->close();
    if (d.held)
        d.held->close();
}

} // namespace icsbridge::oauth
