// File: upstream_call.hpp
// What both source clients do per request: build the URL with Boost.URL, add the credential, GET it,
// map error answers, put the request path into parse errors, and keep the secret out of every message.
#pragma once

#include "sources/rate_budget.hpp"
#include "sources/upstream_error.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/awaitable.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge {

/** @brief Query parameters in the order they are sent; values are plain text (encoded when the URL is built).
 */
using Query = std::vector<std::pair<std::string, std::string>>;

/** @brief What the client does with a 2xx gzip answer: decode it, or keep it for UpstreamCall::decoded. */
enum class Gzip { decode, keep };

/** @brief One source's way of calling its upstream. Cheap to construct; holds references only. */
class UpstreamCall {
  public:
    /// `budget` (optional): every call waits for room in it first, and is counted in it with its retries.
    UpstreamCall(
        SourceConfig const& src, HttpClient& http, Logger const& log, Api api, RateBudget* budget = nullptr
    );

    /**
     * @brief GET base_url + path + query. The events API gets `Authorization: Bearer` (and the
     * `Content-Type: application/json` the seed asks for); the job board gets `api_key` as the first
     * parameter.
     * `gzip`: Gzip::keep leaves a 2xx gzip body as received, for decoded() on the thread that parses it.
     * @return the response for any status (see `body`); transport errors as the client reports them.
     */
    boost::asio::awaitable<Result<HttpResponse>>
    get(std::string const& path, Query const& query, Gzip gzip = Gzip::decode) const;

    /**
     * @brief The body of a 2xx answer that get(path, query, Gzip::keep) returned, decoded (any thread);
     * a corrupt or oversized body fails as the client would have, naming the redacted URL.
     */
    Result<std::string> decoded(HttpResponse const& resp, std::string const& path, Query const& query) const;

    /** @brief The body of a 2xx response, or the mapped upstream error. */
    Result<std::string> body(HttpResponse const& resp, std::string const& path) const;

    /** @brief GET and `body` in one step. */
    boost::asio::awaitable<Result<std::string>> get_body(std::string const& path, Query const& query) const;

    /**
     * @brief An error fit for the user: parse errors get "SERVICE: malformed response from PATH: " in
     * front, and any occurrence of the secret is replaced (a defence; no message should hold it).
     */
    Error in_context(Error e, std::string const& path) const;

    /** @brief errc::upstream_malformed "SERVICE: malformed response from PATH: WHAT" (paging guards). */
    Error malformed(std::string const& path, std::string const& what) const;

    /** @brief The full request URL (for tests and logs: pass it through redact_url before showing it). */
    std::string url(std::string const& path, Query const& query) const;

    std::string_view service() const { return api_name(api_); }
    /** @brief Requests this source may have in flight (the paging window is sized from it). */
    int max_concurrency() const { return src_.max_concurrency; }
    Logger const& log() const { return log_; }

  private:
    boost::asio::awaitable<void> wait_for_budget() const;

    SourceConfig const& src_;
    HttpClient& http_;
    Logger const& log_;
    Api api_;
    RateBudget* budget_;
};

/** @brief An id made safe as one path segment ("a/b" becomes "a%2Fb"). */
std::string path_segment(std::string_view id);

/** @brief `text` with every occurrence of `secret` replaced by "***" (no-op for a secret under 4
 * characters: it would match ordinary words). */
std::string scrub_secret(std::string text, std::string_view secret);

} // namespace icsbridge
