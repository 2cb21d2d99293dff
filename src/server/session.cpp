// File: session.cpp
// One connection: read a request (a webhook's body too, under its limit), refuse what cannot be framed,
// route it with handle_request(), write the answer, log it, and keep the connection alive or close it.
#include "server/hooks.hpp"
#include "server/server_state.hpp"
#include "util/ascii.hpp"
#include "util/trim.hpp"
#include <icsbridge/body_stream.hpp>
#include <icsbridge/dav.hpp>

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

/// What a step of a session decided about its connection.
enum class Next {
    serve,       ///< go on: the next step, or the next request
    close,       ///< close now
    drain_close, ///< answered without reading the body: drain what the client still sends, then close
};

using Parser = http::request_parser<http::string_body>;

/**
 * @brief Waits for the first byte of the next request (unless the buffer already holds some). Between
 * requests the client gets the idle timeout to start the next one (a new connection: request_timeout);
 * until that byte the connection counts as idle for stop(). False: the connection ends.
 */
net::awaitable<bool>
await_request_start(ServerState& impl, SessionState& st, beast::flat_buffer& buffer, bool first) {
    if (buffer.size() != 0)
        co_return true;
    auto const& sc = impl.cfg->server;
    st.idle = true;
    if (impl.stopping)
        co_return false;
    st.expires_after(first ? sc.request_timeout : sc.idle_timeout);
    beast::error_code ec;
    std::size_t n = 0;
    if (!first) {
        // Right after a response the next request is rarely there yet: wait for it rather than start
        // with a read that fails (one system call less per keep-alive request).
        std::tie(ec) = co_await st.socket.async_wait(tcp::socket::wait_read, use_tuple);
        if (!ec)
            n = st.socket.read_some(buffer.prepare(4096), ec); // non-blocking
    }
    if (first || ec == net::error::would_block)
        std::tie(ec, n) = co_await st.socket.async_read_some(buffer.prepare(4096), use_tuple);
    st.idle = false;
    if (ec)
        co_return false;
    buffer.commit(n);
    co_return true;
}

/**
 * @brief Reads the request's header under request_timeout (from its first byte: a slow client is cut
 * off); answers what cannot be parsed or framed.
 */
net::awaitable<Next>
read_head(ServerState& impl, SessionState& st, beast::flat_buffer& buffer, Parser& parser) {
    parser.header_limit(header_limit);
    // read_request stops at the header; only a hook's body is read, under its own limit (read_allowed_body).
    parser.body_limit(boost::none);
    // Every request gets its own deadline, the second on a keep-alive connection too.
    st.expires_after(impl.cfg->server.request_timeout);
    if (auto ec = co_await read_request(st, buffer, parser)) {
        if (ec == http::error::body_limit || ec == http::error::unexpected_body)
            co_await send_error(st, 413, impl);
        else if (ec == http::error::header_limit)
            co_await send_error(st, 431, impl);
        else if (is_parse_error(ec) && ec != http::error::end_of_stream && ec != http::error::partial_message)
            co_await send_error(st, 400, impl);
        co_return Next::close;
    }
    // A coding other than chunked cannot be framed, so where this request ends, and whether what follows
    // is another one, is unknowable (request smuggling): refuse it and close (RFC 9112 6.1).
    if (!plain_chunked_or_absent(parser.get())) {
        co_await send_error(st, 400, impl);
        co_return Next::drain_close;
    }
    co_return Next::serve;
}

/** @brief The path of a request target, before any query: what the async routes are matched on. */
std::string_view path_of(std::string_view target) {
    return target.substr(0, target.find('?'));
}

struct BodyRead {
    Next next = Next::serve;
    bool too_large = false; ///< a hook's body over hook_body_limit, left unread
};

/**
 * @brief Only a webhook and a CalDAV PROPFIND or REPORT have a body, under their limits: reads it
 * (announced too large: leaves it unread for a 413). Any other body is refused: on GET/HEAD as too large;
 * other methods get their 405 from the router, then the connection closes, since the body was not read.
 */
net::awaitable<BodyRead>
read_allowed_body(ServerState& impl, SessionState& st, beast::flat_buffer& buffer, Parser& parser) {
    BodyRead out;
    auto const& req = parser.get();
    std::size_t limit = 0;
    if (req.method() == http::verb::post && req.target().starts_with("/hooks/"))
        limit = hook_body_limit;
    else if (req.method() == http::verb::post && impl.dav && dav::owns("POST", path_of(req.target())))
        limit = dav::max_push_register_body; // a WebDAV-Push registration
    else if (req.method() == http::verb::post && impl.async_routes)
        limit = impl.async_routes->body_limit(path_of(req.target()));
    else if ((req.method() == http::verb::propfind || req.method() == http::verb::report) && impl.dav && dav::owns(req.method_string(), path_of(req.target())))
        limit = dav::max_body;
    if (limit > 0 && !parser.is_done()) {
        auto announced = parser.content_length();
        out.too_large = announced && *announced > limit;
        if (!out.too_large) {
            parser.body_limit(limit);
            auto bec = co_await read_body(st, buffer, parser);
            out.too_large = bec == http::error::body_limit;
            if (bec && !out.too_large) {
                if (is_parse_error(bec) && bec != http::error::partial_message)
                    co_await send_error(st, 400, impl);
                out.next = Next::close;
                co_return out;
            }
        }
    }
    if (!parser.is_done() && (req.method() == http::verb::get || req.method() == http::verb::head)) {
        co_await send_error(st, 413, impl);
        out.next = Next::drain_close;
    }
    co_return out;
}

/** @brief The request as the router sees it: views into `req`, which outlives the answer. */
ServerRequest to_server_request(http::request<http::string_body> const& req, bool body_too_large) {
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
    sreq.origin = req[http::field::origin];
    sreq.accept = req[http::field::accept];
    sreq.depth = req["Depth"];
    sreq.body = req.body();
    sreq.body_too_large = body_too_large;
    return sreq;
}

/** @brief An accepted webhook: logged, and handed to whoever refreshes its source's feeds. */
void pass_on_hook(ServerState& impl, ServerResponse const& res) {
    if (res.hook_source.empty())
        return;
    impl.log.info("hook for source " + res.hook_source + " (" + res.hook_action + "): refreshing its feeds");
    if (impl.on_hook)
        impl.on_hook(res.hook_source, res.hook_event);
}

/** @brief The body's bytes: a streamed one counted as it was made. */
std::size_t sent_bytes(ServerResponse const& res) {
    return res.stream ? res.stream->produced() : res.body().size();
}

/** @brief The access-log line (secrets in the target redacted), built only when it will be written. */
void log_access(
    ServerState& impl, ServerRequest const& sreq, ServerResponse const& res, steady::time_point started
) {
    // This is the hot path: no string is built for a log that drops it.
    if (!impl.log.sink || impl.log.min > LogLevel::info)
        return;
    auto ms = std::chrono::duration<double, std::milli>(steady::now() - started).count();
    char took[32];
    std::snprintf(took, sizeof took, "%.1fms", ms);
    impl.log.info(
        std::string(sreq.method) + " " + redact_url(redact_hook_target(sreq.target)) + " " +
        std::to_string(res.status) + " " +
        std::to_string(res.head || res.status == 304 ? 0 : sent_bytes(res)) + " " + took + " \"" +
        loggable(sreq.user_agent, 200) + "\""
    );
}

/** @brief Routes the request, writes the answer, counts and logs it; whether the connection goes on. */
net::awaitable<Next> answer(
    ServerState& impl,
    SessionState& st,
    http::request<http::string_body> const& req,
    bool body_unread,
    bool body_too_large
) {
    auto started = steady::now();
    auto now = now_seconds();
    auto sreq = to_server_request(req, body_too_large);
    // The body is a view into the immutable snapshot, which `res` keeps alive until written.
    ServerResponse res;
    if (impl.async_routes && impl.async_routes->owns(path_of(sreq.target))) {
        sreq.client = impl.clients.client_of(st.peer, req["X-Forwarded-For"]);
        auto handling = impl.async_routes->handle(sreq, impl.live->get(), now);
        res = co_await std::move(handling);
        res.route = Route::connect;
        res.head = sreq.method == "HEAD";
    } else
        res = handle_request(
            sreq,
            impl.store,
            impl.views,
            impl.metrics,
            *impl.live->get(),
            now,
            impl.revoked.get(),
            impl.dav.get(),
            impl.push.get()
        );
    // A streamed body has no length: an HTTP/1.0 client, which knows no chunks, reads it up to the close.
    bool keep = req.keep_alive() && !impl.stopping && !body_unread && !(res.stream && req.version() < 11);
    auto wec = co_await send(st, req.version(), res, date_header(now), keep);
    impl.metrics.http.count(res.route, res.status);
    pass_on_hook(impl, res);
    log_access(impl, sreq, res, started);
    if (wec || !keep)
        co_return body_unread && !wec ? Next::drain_close : Next::close;
    co_return Next::serve;
}

} // namespace

net::awaitable<void> run_session(std::shared_ptr<ServerState> impl, std::shared_ptr<SessionState> st) {
    auto const& sc = impl->cfg->server;
    beast::flat_buffer buffer;
    beast::error_code nb;
    st->socket.non_blocking(true, nb); // synchronous reads return would_block instead of waiting
    st->write_stall = sc.idle_timeout;
    st->expires_after(sc.request_timeout);
    watch(st);
    auto next = Next::serve;
    for (bool first = true; next == Next::serve; first = false) {
        if (!co_await await_request_start(*impl, *st, buffer, first)) {
            next = Next::close;
            break;
        }
        Parser parser;
        next = co_await read_head(*impl, *st, buffer, parser);
        if (next != Next::serve)
            break;
        BodyRead body; // most requests have none: no step, no coroutine frame
        if (!parser.is_done()) {
            body = co_await read_allowed_body(*impl, *st, buffer, parser);
            next = body.next;
            if (next != Next::serve)
                break;
        }
        next = co_await answer(*impl, *st, parser.get(), !parser.is_done(), body.too_large);
    }
    if (next == Next::drain_close)
        co_await drain_before_close(*st, std::min<steady::duration>(sc.request_timeout, 5s));
    st->done = true;
    st->watchdog.cancel();
    beast::error_code ignored;
    st->socket.shutdown(tcp::socket::shutdown_send, ignored);
    st->socket.close(ignored);
}

} // namespace icsbridge::server_detail
