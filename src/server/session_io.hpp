// File: session_io.hpp
// The byte-moving half of a server session: its socket and watchdog deadline, reading one request's
// header, writing a response (gather-write or sendfile) with a deadline that moves with progress, and a
// lingering close. listener.cpp drives these; nothing here decides what a response says.
#pragma once

#include "util/use_tuple.hpp"
#include <icsbridge/server.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace icsbridge::server_detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using steady = std::chrono::steady_clock;

struct SessionState {
    explicit SessionState(boost::asio::ip::tcp::socket s)
        : socket(std::move(s))
        , watchdog(socket.get_executor()) {}
    boost::asio::ip::tcp::socket socket;
    // One timer per connection that wakes up once per timeout period, instead of arming and cancelling a
    // timer around every read and write (beast::tcp_stream): moving the deadline is a plain store.
    boost::asio::steady_timer watchdog;
    steady::time_point deadline;
    steady::time_point armed = steady::time_point::max();   ///< what the watchdog sleeps until
    steady::duration write_stall{std::chrono::seconds(60)}; ///< longest a write may make no progress
    bool idle = false;                                      ///< waiting for the next request
    bool done = false;                                      ///< the session has ended; the watchdog stops
    std::string head;              ///< the response header block, reused so its capacity is kept
    boost::asio::ip::address peer; ///< the socket's remote address, as accepted
    // All of the above is only touched on the session's strand.

    /**
     * @brief Moves the deadline. Later is a plain store (the watchdog looks again when it wakes); earlier
     * wakes the watchdog, or a request_timeout set after an idle_timeout would only act at the idle one.
     */
    void expires_after(steady::duration d) {
        deadline = steady::now() + d;
        if (deadline < armed)
            watchdog.cancel();
    }
};

/** @brief Closes the socket once the deadline has passed (pending operations then fail). */
void watch(std::shared_ptr<SessionState> st);

/** @brief The Date header, formatted once per second per thread. */
std::string const& date_header(std::chrono::sys_seconds now);

/**
 * @brief Reads one request's header into `parser` (what http::async_read does, without a composed
 * operation and its extra post per request). Returns once the header is parsed: the body, if one is
 * announced (`!parser.is_done()`), is left unread for the caller to refuse. Errors as Beast reports them:
 * end_of_stream when the peer closed before a byte of it, partial_message when it closed in the middle.
 */
boost::asio::awaitable<boost::beast::error_code> read_request(
    SessionState& st,
    boost::beast::flat_buffer& buffer,
    boost::beast::http::request_parser<boost::beast::http::string_body>& parser
);

/**
 * @brief Reads the rest of a request whose header read_request() parsed: its body, up to the parser's
 * body_limit (error body_limit past it, with the rest left unread).
 */
boost::asio::awaitable<boost::beast::error_code> read_body(
    SessionState& st,
    boost::beast::flat_buffer& buffer,
    boost::beast::http::request_parser<boost::beast::http::string_body>& parser
);

/**
 * @brief Writes the response (head, and the body unless HEAD or 304). Each write that makes progress
 * moves the deadline to now + st.write_stall: a slow client that keeps reading gets the whole body, one
 * that stops is cut off.
 */
boost::asio::awaitable<boost::beast::error_code>
send(SessionState& st, unsigned version, ServerResponse const& res, std::string_view date, bool keep);

/**
 * @brief After our answer to a request whose body we did not read: stop sending, then read and discard
 * what the client still sends (up to a cap, within `limit`), so that closing does not reset the
 * connection before the client has read the answer (an RST discards data it has not read yet).
 */
boost::asio::awaitable<void> drain_before_close(SessionState& st, steady::duration limit);

} // namespace icsbridge::server_detail
