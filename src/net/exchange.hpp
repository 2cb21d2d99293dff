// File: exchange.hpp
// One request/response over an open connection, with a deadline on every write and read; how a
// failed exchange reads for a user; and the decoding of the body (identity or gzip).
#pragma once

#include "net/connection_pool.hpp"
#include "net/http_util.hpp"
#include "net/target.hpp"
#include <icsbridge/net.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge::net_detail {

/** @brief What one exchange produced: a failure, or a response with its body still encoded. */
struct Exchange {
    boost::beast::error_code ec;
    unsigned status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool keep_alive = false;
    std::string content_encoding;
};

/** @brief The request every attempt sends: HTTP/1.1, keep-alive, with a body for the methods that carry one.
 */
using Request = boost::beast::http::request<boost::beast::http::string_body>;

/**
 * @brief Writes `req` and reads the response on `c` (TLS or plain): the write, the wait for the header and
 * any stall of the body bounded by io_timeout;
 * the header block by 64 KiB and the raw body by max_body. Records the phase in `st`.
 */
boost::asio::awaitable<Exchange>
exchange(Connection& c, Request const& req, ClientOptions const& opts, AttemptState& st);

/**
 * @brief exchange() of a request already in its wire form (`bytes`: the head and the body, which must outlive
 * the exchange), written as one buffer: for a sender of many requests that formats them elsewhere.
 */
boost::asio::awaitable<Exchange>
exchange(Connection& c, std::string_view bytes, ClientOptions const& opts, AttemptState& st);

/** @brief True for the ways a server ends a connection: EOF, reset, broken pipe, TLS truncation. */
bool is_connection_lost(boost::beast::error_code ec);

/** @brief Maps a failed exchange to the error a user reads: too large, timed out, connection lost, malformed.
 */
Error exchange_error(ClientOptions const& opts, Target const& t, Phase phase, boost::beast::error_code ec);

/**
 * @brief The body of a successful exchange, decoded by its Content-Encoding (none, identity, gzip,
 * x-gzip) within max_body. @return upstream_too_large, or upstream_io for a corrupt body or another coding.
 */
Result<std::string> decode_body(ClientOptions const& opts, Target const& t, Exchange& ex);

/** @brief decode_body() of a `body` in `coding`, wherever it was received (a copy when not encoded). */
Result<std::string>
decode_body(ClientOptions const& opts, Target const& t, std::string_view coding, std::string_view body);

/** @brief True for the codings decode_body() gunzips: gzip and x-gzip, in any case. */
bool is_gzip(std::string_view coding);

} // namespace icsbridge::net_detail
