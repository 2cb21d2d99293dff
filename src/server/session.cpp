// File: session.cpp
// One connection: read a request (a webhook's body too, under its limit), refuse what cannot be framed,
// route it with handle_request(), write the answer, log it, and keep the connection alive or close it.
#include "server/hooks.hpp"
#include "server/server_state.hpp"
#include "util/ascii.hpp"
#include "util/trim.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <tuple>

// GCC 12 inlines Asio's coroutine frame allocator into this non-inline coroutine and then reports its
// matching operator delete as mismatched (a known false positive of -Wmismatched-new-delete with
// coroutines; clang and the sanitizers see nothing wrong).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace icsbridge::server_detail {

namespace {

using namespace std::chrono_literals;

constexpr std::size_t header_limit = std::size_t{16} * 1024;

/**
 * @brief True unless the request has a Transfer-Encoding other than exactly `chunked` (`identity`,
 * `gzip, chunked`, `chunked, chunked`, or an empty one): those are refused, never guessed at.
 */
bool plain_chunked_or_absent(http::request<http::string_body> const& req) {
    int codings = 0;
    bool chunked_only = true;
    auto [first, last] = req.equal_range(http::field::transfer_encoding);
    for (auto field = first; field != last; ++field) {
        std::string_view list = field->value();
        while (!list.empty()) {
            auto comma = list.find(',');
            auto coding = trim_ows(list.substr(0, comma));
            list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
            if (coding.empty())
                continue;
            ++codings;
            chunked_only = chunked_only && ascii_iequals(coding, "chunked");
        }
        if (codings == 0)
            return false; // "Transfer-Encoding:" with no coding
    }
    return codings <= 1 && chunked_only;
}

bool is_parse_error(beast::error_code const& ec) {
    return ec.category() == make_error_code(http::error::bad_target).category();
}

sys_seconds now_seconds() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

net::awaitable<void> send_error(SessionState& st, unsigned status, ServerState& impl) {
    ServerResponse res;
    res.status = status;
    res.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    res.text = std::string(http::obsolete_reason(static_cast<http::status>(status))) + "\n";
    co_await send(st, 11, res, date_header(now_seconds()), false);
    impl.metrics.http.count(Route::other, status);
}

} // namespace

net::awaitable<void> run_session(std::shared_ptr<ServerState> impl, std::shared_ptr<SessionState> st) {
    auto const& sc = impl->cfg->server;
    beast::flat_buffer buffer;
    beast::error_code nb;
    st->socket.non_blocking(true, nb); // synchronous reads return would_block instead of waiting
    st->write_stall = sc.idle_timeout;
    st->expires_after(sc.request_timeout);
    bool linger = false; // answered without reading a body: drain before closing
    watch(st);
    for (bool first = true;; first = false) {
        // Between requests the client gets the idle timeout to start the next one (a new connection:
        // request_timeout); once a byte has arrived it gets request_timeout for the whole request, so a
        // slow client is cut off. Until that first byte the connection counts as idle for stop().
        if (buffer.size() == 0) {
            st->idle = true;
            if (impl->stopping)
                break;
            st->expires_after(first ? sc.request_timeout : sc.idle_timeout);
            beast::error_code ec;
            std::size_t n = 0;
            if (!first) {
                // Right after a response the next request is rarely there yet: wait for it rather than
                // start with a read that fails (one system call less per keep-alive request).
                std::tie(ec) = co_await st->socket.async_wait(tcp::socket::wait_read, use_tuple);
                if (!ec)
                    n = st->socket.read_some(buffer.prepare(4096), ec); // non-blocking
            }
            if (first || ec == net::error::would_block)
                std::tie(ec, n) = co_await st->socket.async_read_some(buffer.prepare(4096), use_tuple);
            st->idle = false;
            if (ec)
                break;
            buffer.commit(n);
        }
        http::request_parser<http::string_body> parser;
        parser.header_limit(header_limit);
        // read_request stops at the header; only a hook's body is read, under its own limit (below).
        parser.body_limit(boost::none);
        // Every request gets its own deadline, the second on a keep-alive connection too.
        st->expires_after(sc.request_timeout);
        if (auto ec = co_await read_request(*st, buffer, parser)) {
            if (ec == http::error::body_limit || ec == http::error::unexpected_body)
                co_await send_error(*st, 413, *impl);
            else if (ec == http::error::header_limit)
                co_await send_error(*st, 431, *impl);
            else if (is_parse_error(ec) && ec != http::error::end_of_stream && ec != http::error::partial_message)
                co_await send_error(*st, 400, *impl);
            break;
        }
        auto const& req = parser.get();
        // A coding other than chunked cannot be framed, so where this request ends, and whether what follows
        // is another one, is unknowable (request smuggling): refuse it and close (RFC 9112 6.1).
        if (!plain_chunked_or_absent(req)) {
            co_await send_error(*st, 400, *impl);
            linger = true;
            break;
        }
        // Only a webhook has a body, and only a small one: read it (announced too large: leave it unread and
        // answer 413). Any other body is refused: on GET/HEAD as too large; other methods get their 405 from
        // the router below, then the connection closes, since the body was not read.
        bool body_too_large = false;
        if (req.method() == http::verb::post && req.target().starts_with("/hooks/") && !parser.is_done()) {
            auto announced = parser.content_length();
            body_too_large = announced && *announced > hook_body_limit;
            if (!body_too_large) {
                parser.body_limit(hook_body_limit);
                auto bec = co_await read_body(*st, buffer, parser);
                body_too_large = bec == http::error::body_limit;
                if (bec && !body_too_large) {
                    if (is_parse_error(bec) && bec != http::error::partial_message)
                        co_await send_error(*st, 400, *impl);
                    break;
                }
            }
        }
        bool const body_unread = !parser.is_done();
        if (body_unread && (req.method() == http::verb::get || req.method() == http::verb::head)) {
            co_await send_error(*st, 413, *impl);
            linger = true;
            break;
        }
        auto started = steady::now();
        auto now = now_seconds();
        ServerRequest sreq;
        sreq.method = req.method_string();
        sreq.target = req.target();
        if (auto it = req.find(http::field::if_none_match); it != req.end())
            sreq.if_none_match = it->value();
        if (auto it = req.find(http::field::if_modified_since); it != req.end())
            sreq.if_modified_since = it->value();
        sreq.accept_encoding = req[http::field::accept_encoding];
        sreq.authorization = req[http::field::authorization];
        sreq.user_agent = req[http::field::user_agent];
        sreq.body = req.body();
        sreq.body_too_large = body_too_large;
        // The body is a view into the immutable snapshot, which `res` keeps alive until written.
        ServerResponse res = handle_request(
            sreq,
            impl->store,
            impl->views,
            impl->metrics,
            *impl->live->get(),
            now,
            impl->revoked.get()
        );
        bool keep = req.keep_alive() && !impl->stopping && !body_unread;
        auto wec = co_await send(*st, req.version(), res, date_header(now), keep);
        impl->metrics.http.count(res.route, res.status);
        if (!res.hook_source.empty()) {
            impl->log.info(
                "hook for source " + res.hook_source + " (" + res.hook_action + "): refreshing its feeds"
            );
            if (impl->on_hook)
                impl->on_hook(res.hook_source, res.hook_event);
        }
        // Build the access-log line only when it will be written: this is the hot path.
        if (impl->log.sink && impl->log.min <= LogLevel::info) {
            auto ms = std::chrono::duration<double, std::milli>(steady::now() - started).count();
            char took[32];
            std::snprintf(took, sizeof took, "%.1fms", ms);
            impl->log.info(
                std::string(sreq.method) + " " + redact_url(redact_hook_target(sreq.target)) + " " +
                std::to_string(res.status) + " " +
                std::to_string(res.head || res.status == 304 ? 0 : res.body().size()) + " " + took + " \"" +
                loggable(req[http::field::user_agent], 200) + "\""
            );
        }
        if (wec || !keep) {
            linger = body_unread && !wec;
            break;
        }
    }
    if (linger)
        co_await drain_before_close(*st, std::min<steady::duration>(sc.request_timeout, 5s));
    st->done = true;
    st->watchdog.cancel();
    beast::error_code ignored;
    st->socket.shutdown(tcp::socket::shutdown_send, ignored);
    st->socket.close(ignored);
}

} // namespace icsbridge::server_detail
