// File: upstream_call.cpp
// Request building and answer checking shared by the events and job board clients.
#include "sources/upstream_call.hpp"

#include <icsbridge/sources.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <boost/url/url.hpp>

namespace icsbridge {

namespace net = boost::asio;
namespace urls = boost::urls;

namespace {

// Left readable in query values: `expand=venue,ticket_availability`. Everything else is percent-encoded,
// '+' included, because form-style servers decode a bare '+' as a space ("c++" would arrive as "c  ").
constexpr urls::grammar::lut_chars query_chars = urls::unreserved_chars + urls::grammar::lut_chars(",:/@");

} // namespace

UpstreamCall::UpstreamCall(
    SourceConfig const& src, HttpClient& http, Logger const& log, Api api, RateBudget* budget
)
    : src_(src)
    , http_(http)
    , log_(log)
    , api_(api)
    , budget_(budget) {}

std::string UpstreamCall::url(std::string const& path, Query const& query) const {
    auto base = urls::parse_absolute_uri(src_.base_url);
    // The config loader validates base_url; a bad one here still gives a request that fails clearly.
    urls::url u = base ? urls::url(*base) : urls::url();
    std::string prefix(u.encoded_path());
    while (!prefix.empty() && prefix.back() == '/')
        prefix.pop_back();
    u.set_encoded_path(prefix + path);
    u.remove_query();
    auto params = u.encoded_params();
    auto add = [&](std::string_view k, std::string_view v) {
        params.append({urls::encode(k, query_chars), urls::encode(v, query_chars)});
    };
    if (api_ == Api::jobs)
        add("api_key", src_.secret);
    for (auto const& [k, v] : query)
        add(k, v);
    return std::string(u.buffer());
}

net::awaitable<Result<HttpResponse>>
UpstreamCall::get(std::string const& path, Query const& query, Gzip gzip) const {
    HttpRequest req;
    req.url = url(path, query);
    req.keep_gzip = gzip == Gzip::keep;
    if (api_ == Api::events) {
        req.headers.emplace_back("Authorization", "Bearer " + src_.secret);
        req.headers.emplace_back("Content-Type", "application/json");
    }
    if (budget_)
        co_await wait_for_budget();
    log_.debug(std::string(service()) + ": GET " + redact_url(req.url));
    auto resp = co_await http_.get(std::move(req));
    if (!resp)
        co_return in_context(resp.error(), path);
    if (budget_) {
        auto const now = RateBudget::clock::now();
        budget_->record_retries(resp->attempts - 1, now);
        if (auto used = reported_use(
                resp->header("X-Rate-Limit"),
                resp->header("X-RateLimit-Limit"),
                resp->header("X-RateLimit-Remaining")
            ))
            budget_->upstream_reports(*used, now);
    }
    co_return resp;
}

net::awaitable<void> UpstreamCall::wait_for_budget() const {
    // Waits while the source's budget is spent; the feed keeps serving its last snapshot meanwhile.
    bool told = false;
    for (;;) {
        // Asked without holding this thread: in a cluster the count is the database's.
        auto const wait = co_await budget_->take(RateBudget::clock::now());
        if (wait == RateBudget::clock::duration::zero())
            co_return;
        if (!told) {
            auto const secs = std::chrono::ceil<std::chrono::seconds>(wait).count();
            log_.info(
                std::string(service()) + ": source " + src_.name + " has used its budget of " +
                std::to_string(budget_->spec().calls) + " calls per " +
                format_duration(budget_->spec().period) + "; waiting " + std::to_string(secs) + "s"
            );
            told = true;
        }
        net::steady_timer timer(co_await net::this_coro::executor, wait);
        co_await timer.async_wait(net::use_awaitable);
    }
}

Result<std::string> UpstreamCall::body(HttpResponse const& resp, std::string const& path) const {
    if (resp.status < 200 || resp.status >= 300)
        return in_context(upstream_error(resp.status, resp.body, api_, path), path);
    return resp.body;
}

Result<std::string>
UpstreamCall::decoded(HttpResponse const& resp, std::string const& path, Query const& query) const {
    auto body = http_.decode_body(resp, url(path, query));
    if (!body)
        return in_context(body.error(), path);
    return body;
}

net::awaitable<Result<std::string>>
UpstreamCall::get_body(std::string const& path, Query const& query) const {
    auto resp = co_await get(path, query);
    if (!resp)
        co_return resp.error();
    co_return body(*resp, path);
}

Error UpstreamCall::in_context(Error e, std::string const& path) const {
    if (e.code == errc::upstream_malformed &&
        e.message.find(": malformed response from ") == std::string::npos)
        e.message = std::string(service()) + ": malformed response from " + path + ": " + e.message;
    e.message = scrub_secret(std::move(e.message), src_.secret);
    return e;
}

Error UpstreamCall::malformed(std::string const& path, std::string const& what) const {
    return in_context(fail(errc::upstream_malformed, what), path);
}

std::string path_segment(std::string_view id) {
    return urls::encode(id, urls::unreserved_chars);
}

std::string scrub_secret(std::string text, std::string_view secret) {
    // A secret of a few characters would match ordinary words and mangle the message for nothing.
    if (secret.size() < 4)
        return text;
    for (auto pos = text.find(secret); pos != std::string::npos; pos = text.find(secret, pos + 3))
        text.replace(pos, secret.size(), "***");
    return text;
}

} // namespace icsbridge
