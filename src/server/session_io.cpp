// File: session_io.cpp
// Moving a session's bytes: the watchdog, reading a request header, writing a response with a deadline
// that follows progress, sendfile() for large bodies (from shmem, up to 8 MiB), and the lingering close.
// Responses are serialized here into one reused buffer and sent with the body (a view into the immutable
// snapshot) as one gather-write: Beast's fields and serializer cost more than the rest together.
#include "server/session_io.hpp"

#include "net/http_date.hpp"
#include <icsbridge/body_stream.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/status.hpp>

#include <sys/sendfile.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <string_view>
#include <vector>

namespace icsbridge::server_detail {

namespace {

void append_number(std::string& out, std::size_t n) {
    char digits[24];
    auto r = std::to_chars(digits, digits + sizeof digits, n);
    out.append(digits, r.ptr);
}

/**
 * @brief The status line and header block, field for field what Beast's serializer wrote for the
 * same message: the handler's headers, Date, Content-Length (not for 304), then Connection as
 * `keep_alive()` sets it (close for a 1.1 connection ending, keep-alive for a 1.0 one kept open).
 */
void serialize_head(
    std::string& out,
    unsigned version,
    ServerResponse const& res,
    std::string_view date,
    std::size_t body_size,
    bool keep
) {
    out.clear();
    out += "HTTP/";
    out += static_cast<char>('0' + version / 10 % 10);
    out += '.';
    out += static_cast<char>('0' + version % 10);
    out += ' ';
    append_number(out, res.status);
    out += ' ';
    out += http::obsolete_reason(static_cast<http::status>(res.status));
    out += "\r\n";
    for (auto const& [name, value] : res.headers) {
        out += name;
        out += ": ";
        out += value;
        out += "\r\n";
    }
    out += "Date: ";
    out += date;
    out += "\r\n";
    if (res.stream && res.status != 304) {
        if (version >= 11)
            out += "Transfer-Encoding: chunked\r\n"; // HTTP/1.0: the body ends where the connection does
    } else if (res.status != 304) {
        out += "Content-Length: ";
        append_number(out, body_size);
        out += "\r\n";
    }
    if (version >= 11 && !keep)
        out += "Connection: close\r\n";
    else if (version < 11 && keep)
        out += "Connection: keep-alive\r\n";
    out += "\r\n";
}

/**
 * @brief Sends `size` bytes of `fd` from its start with sendfile(): the kernel hands the file's pages to
 * the socket instead of copying them from our memory, as nginx does for static files.
 */
net::awaitable<beast::error_code> send_file(SessionState& st, int fd, std::size_t size) {
    off_t offset = 0;
    while (size > 0) {
        auto n = ::sendfile(st.socket.native_handle(), fd, &offset, size);
        if (n > 0) {
            size -= static_cast<std::size_t>(n);
            st.expires_after(st.write_stall); // progress: the client is reading
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            auto [ec] = co_await st.socket.async_wait(tcp::socket::wait_write, use_tuple);
            if (ec)
                co_return ec;
            continue;
        }
        co_return beast::error_code(n < 0 ? errno : EIO, boost::system::system_category());
    }
    co_return beast::error_code{};
}

/**
 * @brief Writes all of `bufs`. One write_some per round hands the kernel everything left in one system call
 * (Asio's async_write would cap each at 64 KiB), and lets each round of progress move the deadline.
 */
template <class Buffers>
net::awaitable<beast::error_code> write_all(SessionState& st, Buffers const& bufs) {
    beast::buffers_suffix<Buffers> rest(bufs);
    while (net::buffer_size(rest) > 0) {
        auto [ec, n] = co_await st.socket.async_write_some(rest, use_tuple);
        if (ec)
            co_return ec;
        rest.consume(n);
        st.expires_after(st.write_stall);
    }
    co_return beast::error_code{};
}

/**
 * @brief The head, then the stream's parts as they come, each part one chunk (RFC 9112 7.1) written with a
 * gather write of its pieces: the stream's views go out as they are, never copied into one buffer.
 */
net::awaitable<beast::error_code> send_stream(SessionState& st, BodyStream& body, bool chunked) {
    std::vector<std::string_view> parts;
    std::vector<net::const_buffer> bufs{net::buffer(st.head)};
    std::string size_line;
    for (;;) {
        body.next(parts);
        std::size_t n = 0;
        for (auto p : parts)
            n += p.size();
        if (n > 0 && chunked) {
            char digits[24];
            auto r = std::to_chars(digits, digits + sizeof digits, n, 16);
            size_line.assign(digits, r.ptr).append("\r\n");
            bufs.emplace_back(net::buffer(size_line));
        }
        for (auto p : parts)
            if (!p.empty())
                bufs.push_back(net::buffer(p.data(), p.size()));
        if (n > 0 && chunked)
            bufs.push_back(net::buffer("\r\n", 2));
        if (body.done())
            break; // the last part goes out with the end of the body: one write for a short answer
        if (auto ec = co_await write_all(st, bufs))
            co_return ec;
        bufs.clear();
    }
    if (chunked)
        bufs.push_back(net::buffer("0\r\n\r\n", 5));
    co_return co_await write_all(st, bufs);
}

} // namespace

/** @brief Closes the socket once the deadline has passed (pending operations then fail). */
void watch(std::shared_ptr<SessionState> st) {
    st->armed = st->deadline;
    st->watchdog.expires_at(st->deadline);
    st->watchdog.async_wait([st](boost::system::error_code) mutable {
        if (st->done)
            return;
        if (steady::now() >= st->deadline) {
            beast::error_code ignored;
            st->socket.close(ignored);
            return;
        }
        watch(std::move(st));
    });
}

/** @brief The Date header, formatted once per second per thread. */
std::string const& date_header(std::chrono::sys_seconds now) {
    thread_local std::chrono::sys_seconds cached{};
    thread_local std::string text;
    if (now != cached || text.empty()) {
        cached = now;
        text = format_http_date(now);
    }
    return text;
}

net::awaitable<beast::error_code>
send(SessionState& st, unsigned version, ServerResponse const& res, std::string_view date, bool keep) {
    auto body = res.body();
    serialize_head(st.head, version, res, date, body.size(), keep);
    if (res.head || res.status == 304)
        body = {};
    st.expires_after(st.write_stall);
    // A large body goes out with sendfile() from the snapshot's sealed memfd: copying it into the socket was
    // the largest single cost of such a request. The head is held back (MSG_MORE) to share a segment.
    SealedFile const* file = nullptr;
    if (!body.empty() && res.snapshot)
        file = res.gzip ? res.snapshot->gzip_file.get() : res.snapshot->body.file();
    if (file != nullptr && body.size() <= file->sendfile_max()) {
        beast::error_code ec;
        auto sent = st.socket.send(net::buffer(st.head), MSG_MORE, ec); // non-blocking
        if (ec && ec != net::error::would_block)
            co_return ec;
        if (sent < st.head.size()) {
            auto [wec, n] = co_await net::async_write(st.socket, net::buffer(st.head) + sent, use_tuple);
            if (wec)
                co_return wec;
        }
        co_return co_await send_file(st, file->fd(), body.size());
    }
    if (res.stream && !res.head && res.status != 304)
        co_return co_await send_stream(st, *res.stream, version >= 11);
    std::array<net::const_buffer, 2> bufs{net::buffer(st.head), net::buffer(body.data(), body.size())};
    co_return co_await write_all(st, bufs);
}

namespace {

/**
 * @brief Feeds `parser` from the buffer and the socket until `enough(parser)` (what http::async_read does,
 * without a composed operation and its extra post per request). Errors as Beast reports them:
 * end_of_stream when the peer closed before a byte of the request, partial_message in the middle of it.
 */
template <class Enough>
net::awaitable<beast::error_code> read_until(
    SessionState& st,
    beast::flat_buffer& buffer,
    http::request_parser<http::string_body>& parser,
    Enough enough
) {
    beast::error_code ec;
    for (;;) {
        // put() stops at the end of the header and of each chunk (the parser is not eager): feed it again
        // while it makes progress, or a buffered rest (the next chunk, the terminating one) would wait for
        // bytes that never come.
        while (buffer.size() > 0) {
            auto used = parser.put(buffer.data(), ec);
            buffer.consume(used);
            if (ec && ec != http::error::need_more)
                co_return ec;
            if (enough(parser))
                co_return beast::error_code{};
            bool const starved = ec == http::error::need_more || used == 0;
            ec = {};
            if (starved)
                break;
        }
        auto size = beast::read_size(buffer, 65536);
        if (size == 0)
            co_return beast::error_code(http::error::buffer_overflow);
        auto [rec, n] = co_await st.socket.async_read_some(buffer.prepare(size), use_tuple);
        buffer.commit(n);
        if (rec == net::error::eof) {
            if (!parser.got_some())
                co_return beast::error_code(http::error::end_of_stream);
            parser.put_eof(ec);
            if (!ec && enough(parser))
                co_return beast::error_code{};
            co_return ec ? ec : beast::error_code(http::error::partial_message);
        }
        if (rec)
            co_return rec;
    }
}

} // namespace

net::awaitable<beast::error_code>
read_request(SessionState& st, beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser) {
    // The header only: a body is read by read_body() for the one endpoint that takes one, refused otherwise.
    co_return co_await read_until(st, buffer, parser, [](auto const& p) { return p.is_header_done(); });
}

net::awaitable<beast::error_code>
read_body(SessionState& st, beast::flat_buffer& buffer, http::request_parser<http::string_body>& parser) {
    if (parser.is_done())
        co_return beast::error_code{};
    co_return co_await read_until(st, buffer, parser, [](auto const& p) { return p.is_done(); });
}

net::awaitable<void> drain_before_close(SessionState& st, steady::duration limit) {
    // Enough for any body a calendar client sends by mistake; past it, a reset is the client's problem.
    constexpr std::size_t cap = std::size_t{4} * 1024 * 1024;
    beast::error_code ec;
    st.socket.shutdown(tcp::socket::shutdown_send, ec);
    st.expires_after(limit);
    std::array<char, std::size_t{16} * 1024> scratch;
    for (std::size_t total = 0; total < cap;) {
        auto [rec, n] = co_await st.socket.async_read_some(net::buffer(scratch), use_tuple);
        if (rec)
            break;
        total += n;
    }
}

} // namespace icsbridge::server_detail
