// File: token_endpoint.cpp
// A form POST through HttpClient::request() and the answer read by parse_token_answer().
#include "oauth/token_endpoint.hpp"

#include <boost/json/parse.hpp>

#include <utility>

namespace icsbridge::oauth {

namespace net = boost::asio;

namespace {

/** The `error` member of an OAuth error answer (RFC 6749 §5.2), or empty. */
std::string oauth_error_of(std::string const& body) {
    boost::system::error_code ec;
    auto v = boost::json::parse(body, ec);
    if (ec || !v.is_object())
        return {};
    auto const* e = v.as_object().if_contains("error");
    return e && e->is_string() ? std::string(e->as_string()) : std::string();
}

} // namespace

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

net::awaitable<Result<void>> revoke_token(HttpClient& http, TargetConfig t, std::string token) {
    if (t.revoke_url.empty())
        co_return Result<void>{};
    HttpRequest req(
        t.revoke_url,
        {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}}
    );
    req.method = "POST";
    req.body = form_encode({{"token", std::move(token)}});
    auto sent = http.request(std::move(req));
    auto res = co_await std::move(sent);
    if (!res)
        co_return fail(res.error().code, t.name + " revocation endpoint: " + res.error().message);
    if (res->status == 200 || (res->status == 400 && oauth_error_of(res->body) == "invalid_token"))
        co_return Result<void>{};
    co_return fail(
        errc::upstream_status,
        t.name + " revocation endpoint answered " + std::to_string(res->status) +
            ": the grant may still be live; remove icsbridge in the account's security settings"
    );
}

} // namespace icsbridge::oauth
