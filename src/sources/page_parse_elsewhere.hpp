// File: page_parse_elsewhere.hpp
// A page parsed off the thread that awaits it (in `serve`, the parser thread instead of the control thread):
// it is asked for kept gzipped and inflated there too, just before its parse (issue 39). Private to
// src/sources/ (used by page_follower.hpp).
#pragma once

#include "sources/upstream_call.hpp"
#include "util/run_on.hpp"
#include <icsbridge/error.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace icsbridge {

/// How to ask for a page that is parsed on `parse_on` (when given): kept gzipped, so that its inflate goes
/// there with its parse instead of running on the thread that awaits the answer.
inline Gzip gzip_for(std::optional<boost::asio::any_io_executor> const& parse_on) {
    return parse_on ? Gzip::keep : Gzip::decode;
}

// Runs on the parser's executor: a body kept gzipped (Gzip::keep) is inflated here, not on the thread
// that awaits it.
template <class Page>
boost::asio::awaitable<Result<Page>> inflate_and_parse(
    UpstreamCall const& call,
    Result<Page> (*parse)(std::string_view),
    HttpResponse const& r,
    std::string const& path,
    Query const& q
) {
    if (r.content_encoding.empty())
        co_return parse(r.body);
    auto body = call.decoded(r, path, q);
    if (!body)
        co_return body.error();
    co_return parse(*body);
}

/**
 * @brief A 2xx answer asked for with gzip_for(parse_on), inflated and parsed on `parse_on`.
 * @return nothing without `parse_on`, for a transport error or a non-2xx answer: the caller reads those
 * itself (a BAD_PAGE, a refusal, an error mapped by UpstreamCall::body).
 */
template <class Page>
boost::asio::awaitable<std::optional<Result<Page>>> parse_elsewhere(
    std::optional<boost::asio::any_io_executor> const& parse_on,
    UpstreamCall const& call,
    Result<Page> (*parse)(std::string_view),
    Result<HttpResponse> const& r,
    std::string const& path,
    Query const& q
) {
    if (!parse_on || !r || r->status < 200 || r->status >= 300)
        co_return std::nullopt;
    co_return co_await run_on(*parse_on, inflate_and_parse(call, parse, *r, path, q));
}

} // namespace icsbridge
