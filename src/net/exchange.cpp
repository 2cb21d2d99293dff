// File: exchange.cpp
// Write, read the header, read the body: one HTTP/1.1 exchange with expires_after on each step.
#include "net/exchange.hpp"

#include "net/gzip_decode.hpp"
#include "util/ascii.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <cstdint>

namespace icsbridge::net_detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;

namespace {

constexpr auto tuple_awaitable = net::as_tuple(net::use_awaitable);

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

template <class Stream>
net::awaitable<Exchange>
exchange_on(Stream& stream, Connection& c, Request const& req, ClientOptions const& opts, AttemptState& st) {
    Exchange out;
    st.phase = Phase::sending;
    c.lowest().expires_after(opts.io_timeout);
    auto [wec, wn] = co_await http::async_write(stream, req, tuple_awaitable);
    if (wec) {
        out.ec = wec;
        co_return out;
    }

    http::response_parser<http::string_body> parser;
    parser.header_limit(header_limit);
    // The raw (maybe gzipped) body is capped too; the decoded size is capped again when inflating.
    parser.body_limit(opts.max_body);

    st.phase = Phase::waiting;
    c.lowest().expires_after(opts.io_timeout);
    auto [hec, hn] = co_await http::async_read_header(stream, c.buffer, parser, tuple_awaitable);
    st.got_response_bytes = parser.got_some();
    if (hec) {
        out.ec = hec;
        co_return out;
    }

    st.phase = Phase::reading_body;
    c.lowest().expires_after(opts.io_timeout);
    auto [bec, bn] = co_await http::async_read(stream, c.buffer, parser, tuple_awaitable);
    if (bec == ssl::error::stream_truncated && parser.need_eof() && !parser.is_done()) {
        // A body delimited by EOF over TLS without close_notify: common among servers, and the
        // body has no length to check it against anyway.
        beast::error_code eof_ec;
        parser.put_eof(eof_ec);
        bec = eof_ec;
    }
    if (bec) {
        out.ec = bec;
        co_return out;
    }
    c.lowest().expires_never();

    auto res = parser.release();
    out.status = res.result_int();
    out.keep_alive = res.keep_alive() && !parser.need_eof();
    for (auto const& f : res)
        out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    out.content_encoding = std::string(res[http::field::content_encoding]);
    out.body = std::move(res.body());
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
    auto const& svc = opts.service_name;
    auto const& coding = ex.content_encoding;
    if (coding.empty() || ascii_iequals(coding, "identity"))
        return std::move(ex.body);
    if (!ascii_iequals(coding, "gzip") && !ascii_iequals(coding, "x-gzip"))
        return client_error(
            svc,
            errc::upstream_io,
            "unsupported Content-Encoding \"" + coding + "\" in the response to " + t.method + " " + t.display
        );
    auto g = gunzip(ex.body, opts.max_body);
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
