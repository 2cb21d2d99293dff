// File: exchange.cpp
// Write, read the header, read the body: one HTTP/1.1 exchange. The write and the header wait are bounded by
// expires_after; the body, read into storage sized from Content-Length, by a stall watch (one timer).
#include "net/exchange.hpp"

#include "net/gzip_decode.hpp"
#include "util/ascii.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <variant>

namespace icsbridge::net_detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using std::chrono::milliseconds;

namespace {

// Upstream APIs send small header blocks; Beast's 8 KiB default is tight for cookie-heavy CDNs.
constexpr std::uint32_t header_limit = 64 * 1024;

/** The one wording of a body over max_body, raw or once decoded (`when`). */
Error too_large(ClientOptions const& opts, Target const& t, std::string_view when) {
    return client_error(
        opts.service_name,
        errc::upstream_too_large,
        "response to " + t.method + " " + t.display + " is larger than the limit of " +
            format_size(opts.max_body) + std::string(when) + "; raise " + opts.max_body_key +
            " if the answer is legitimately this large"
    );
}

using HeaderParser = http::response_parser<http::empty_body>;

/** The status line and header fields the parser has read. */
void take_head(HeaderParser const& parser, Exchange& out) {
    auto const& res = parser.get();
    out.status = res.result_int();
    out.keep_alive = res.keep_alive() && !parser.need_eof();
    out.headers.reserve(static_cast<std::size_t>(std::distance(res.begin(), res.end())));
    for (auto const& f : res)
        out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    out.content_encoding = std::string(res[http::field::content_encoding]);
}

// Breaks a body read that has made no progress for a whole io_timeout. One timer per request, woken once
// per io_timeout, instead of one armed and cancelled around every read (a syscall pair per few kilobytes).
net::awaitable<void>
stall_watch(Connection& c, std::size_t const& progress, bool& stalled, milliseconds idle) {
    net::steady_timer timer(co_await net::this_coro::executor);
    std::size_t seen = progress;
    for (;;) {
        timer.expires_after(idle);
        auto [ec] = co_await timer.async_wait(use_tuple);
        if (ec)
            co_return; // the read finished first
        if (progress == seen) {
            stalled = true;
            c.close();
            co_return;
        }
        seen = progress;
    }
}

// A body of known length, read straight into storage of that size: no buffer growing while it arrives, no
// copy out of a parse buffer. The bytes the header read brought along are taken from the connection's
// buffer first.
template <class Stream>
net::awaitable<beast::error_code>
read_sized_body(Stream& stream, Connection& c, std::string& body, std::size_t length, std::size_t& progress) {
    body.resize(length);
    auto const early = std::min(length, c.buffer.size());
    net::buffer_copy(net::buffer(body.data(), early), c.buffer.data());
    c.buffer.consume(early);
    progress = early;
    while (progress < length) {
        auto [ec, n] = co_await stream.async_read_some(
            net::buffer(body.data() + progress, length - progress),
            use_tuple
        );
        progress += n;
        if (ec)
            co_return ec;
    }
    co_return beast::error_code{};
}

// A body without a length (chunked, or up to EOF): Beast's parser, within max_body.
template <class Stream>
net::awaitable<beast::error_code> read_parsed_body(
    Stream& stream,
    Connection& c,
    HeaderParser& head,
    Exchange& out,
    std::size_t max_body,
    std::size_t& progress
) {
    http::response_parser<http::string_body> parser(std::move(head));
    parser.body_limit(max_body);
    beast::error_code ec;
    while (!ec && !parser.is_done()) {
        auto [rec, n] = co_await http::async_read_some(stream, c.buffer, parser, use_tuple);
        progress += n;
        ec = rec;
    }
    if (ec == ssl::error::stream_truncated && parser.need_eof() && !parser.is_done()) {
        // A body delimited by EOF over TLS without close_notify: common among servers, and the
        // body has no length to check it against anyway.
        beast::error_code eof_ec;
        parser.put_eof(eof_ec);
        ec = eof_ec;
    }
    if (!ec) {
        out.keep_alive = parser.get().keep_alive() && !parser.need_eof();
        out.body = std::move(parser.get().body());
    }
    co_return ec;
}

// The body after the header: sized from Content-Length when there is one (within max_body), else parsed;
// either way under the stall watch rather than a deadline per read.
template <class Stream>
net::awaitable<beast::error_code>
read_body(Stream& stream, Connection& c, HeaderParser& head, Exchange& out, ClientOptions const& opts) {
    auto const length = head.content_length();
    c.lowest().expires_never();
    std::size_t progress = 0;
    bool stalled = false;
    using namespace net::experimental::awaitable_operators;
    std::variant<beast::error_code, std::monostate> ended;
    if (length && !head.chunked())
        ended = co_await (
            read_sized_body(stream, c, out.body, static_cast<std::size_t>(*length), progress) ||
            stall_watch(c, progress, stalled, opts.io_timeout)
        );
    else
        ended = co_await (
            read_parsed_body(stream, c, head, out, opts.max_body, progress) ||
            stall_watch(c, progress, stalled, opts.io_timeout)
        );
    if (stalled)
        co_return beast::error_code(beast::error::timeout);
    co_return std::get<0>(ended);
}

template <class Stream>
auto write_request(Stream& stream, Request const& req) {
    return http::async_write(stream, req, use_tuple);
}

// Bytes formatted beforehand: one write of one buffer, no serializer.
template <class Stream>
auto write_request(Stream& stream, std::string_view bytes) {
    return net::async_write(stream, net::buffer(bytes.data(), bytes.size()), use_tuple);
}

bool is_head(Request const& req) {
    return req.method() == http::verb::head;
}

bool is_head(std::string_view bytes) {
    return bytes.starts_with("HEAD ");
}

template <class Stream, class Req>
net::awaitable<Exchange>
exchange_on(Stream& stream, Connection& c, Req const& req, ClientOptions const& opts, AttemptState& st) {
    Exchange out;
    st.phase = Phase::sending;
    c.lowest().expires_after(opts.io_timeout);
    auto [wec, wn] = co_await write_request(stream, req);
    if (wec) {
        out.ec = wec;
        co_return out;
    }

    HeaderParser parser;
    parser.header_limit(header_limit);
    // A Content-Length over the limit fails here, before any of the body is read.
    parser.body_limit(opts.max_body);
    parser.skip(is_head(req));

    st.phase = Phase::waiting;
    c.lowest().expires_after(opts.io_timeout);
    auto [hec, hn] = co_await http::async_read_header(stream, c.buffer, parser, use_tuple);
    st.got_response_bytes = parser.got_some();
    if (hec) {
        out.ec = hec;
        co_return out;
    }
    take_head(parser, out);

    st.phase = Phase::reading_body;
    if (!parser.is_done())
        out.ec = co_await read_body(stream, c, parser, out, opts);
    c.lowest().expires_never();
    co_return out;
}

} // namespace

net::awaitable<Exchange>
exchange(Connection& c, Request const& req, ClientOptions const& opts, AttemptState& st) {
    // Not `cond ? co_await a : co_await b`: g++ 12 miscompiles co_await inside ?: (double free).
    if (c.tls)
        co_return co_await exchange_on(*c.tls, c, req, opts, st);
    co_return co_await exchange_on(*c.plain, c, req, opts, st);
}

net::awaitable<Exchange>
exchange(Connection& c, std::string_view bytes, ClientOptions const& opts, AttemptState& st) {
    if (c.tls)
        co_return co_await exchange_on(*c.tls, c, bytes, opts, st);
    co_return co_await exchange_on(*c.plain, c, bytes, opts, st);
}

bool is_connection_lost(beast::error_code ec) {
    return ec == http::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset ||
           ec == net::error::connection_aborted || ec == net::error::broken_pipe ||
           ec == ssl::error::stream_truncated;
}

Error exchange_error(ClientOptions const& opts, Target const& t, Phase phase, beast::error_code ec) {
    auto const& svc = opts.service_name;
    if (ec == http::error::body_limit)
        return too_large(opts, t, "");
    if (ec == beast::error::timeout)
        return timed_out(svc, opts.io_timeout, phase, t);
    if (is_connection_lost(ec) || ec.category() == net::error::get_system_category())
        return client_error(
            svc,
            errc::upstream_io,
            "connection lost " + phase_words(phase, t) + " (" + ec.message() + ")"
        );
    return client_error(
        svc,
        errc::upstream_io,
        "malformed HTTP response to " + t.method + " " + t.display + " (" + ec.message() + ")"
    );
}

Result<std::string> decode_body(ClientOptions const& opts, Target const& t, Exchange& ex) {
    auto const& coding = ex.content_encoding;
    if (coding.empty() || ascii_iequals(coding, "identity"))
        return std::move(ex.body); // most answers: no copy
    return decode_body(opts, t, coding, ex.body);
}

bool is_gzip(std::string_view coding) {
    return ascii_iequals(coding, "gzip") || ascii_iequals(coding, "x-gzip");
}

Result<std::string>
decode_body(ClientOptions const& opts, Target const& t, std::string_view coding, std::string_view body) {
    auto const& svc = opts.service_name;
    if (coding.empty() || ascii_iequals(coding, "identity"))
        return std::string(body);
    if (!is_gzip(coding))
        return client_error(
            svc,
            errc::upstream_io,
            "unsupported Content-Encoding \"" + std::string(coding) + "\" in the response to " + t.method +
                " " + t.display
        );
    auto g = gunzip(body, opts.max_body);
    if (g.status == GunzipStatus::too_large)
        return too_large(opts, t, " once decompressed");
    if (g.status == GunzipStatus::corrupt)
        return client_error(
            svc,
            errc::upstream_io,
            "corrupt gzip body in the response to " + t.method + " " + t.display + " (" + g.detail + ")"
        );
    return std::move(g.data);
}

} // namespace icsbridge::net_detail
