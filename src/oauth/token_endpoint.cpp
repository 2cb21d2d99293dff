// File: token_endpoint.cpp
// A form POST through HttpClient::request() and the answer read by parse_token_answer().
#include "oauth/token_endpoint.hpp"

#include <utility>

// GCC 12 reports Asio's coroutine frame delete as mismatched here (the false positive session.cpp names).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace icsbridge::oauth {

namespace net = boost::asio;

net::awaitable<Result<TokenAnswer>>
post_token_form(HttpClient& http, TargetConfig t, std::string body, Grant grant, TargetRef ref) {
    HttpRequest req(
        t.token_url,
        {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}}
    );
    req.method = "POST";
    req.body = std::move(body);
    auto sent = http.request(std::move(req));
    auto res = co_await std::move(sent);
    if (!res)
        co_return fail(res.error().code, "target " + ref.name + ": " + res.error().message);
    co_return parse_token_answer(res->status, res->body, grant, ref);
}

net::awaitable<Result<TokenAnswer>> exchange_code(
    HttpClient& http,
    TargetConfig t,
    std::string code,
    std::string redirect_uri,
    std::string verifier,
    TargetRef ref
) {
    auto body = code_exchange_body(t, code, redirect_uri, verifier);
    auto posted =
        post_token_form(http, std::move(t), std::move(body), Grant::authorization_code, std::move(ref));
    co_return co_await std::move(posted);
}

net::awaitable<Result<TokenAnswer>>
refresh_access(HttpClient& http, TargetConfig t, std::string refresh_token, TargetRef ref) {
    auto body = refresh_body(t, refresh_token);
    auto posted = post_token_form(http, std::move(t), std::move(body), Grant::refresh_token, std::move(ref));
    co_return co_await std::move(posted);
}

} // namespace icsbridge::oauth
