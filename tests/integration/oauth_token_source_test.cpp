// File: oauth_token_source_test.cpp
// oauth::TokenSource against a scripted token endpoint on loopback: a refresh on first use and none while
// the token lasts, one more after rejected(), a rotated refresh token stored, concurrent callers sharing one
// refresh, invalid_grant ending in not_connected without asking again, and no stored token asking nothing.
#include "integration/scripted_upstream.hpp"
#include "oauth/token_source.hpp"
#include "support/run_coro.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>
#include <boost/url/parse_query.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace icsbridge;
using icsbridge::test::ScriptedReply;
using icsbridge::test::ScriptedRequest;
using icsbridge::test::ScriptedUpstream;
namespace net = boost::asio;

namespace oauth_token_source_test {

/** A stored sign-in in memory, counting what the source saved. */
struct MemoryKeeping {
    std::optional<oauth::StoredToken> token;
    std::vector<oauth::StoredToken> saved;

    Persistence<std::optional<oauth::StoredToken>, oauth::StoredToken> keeping() {
        return {
            [this]() -> Result<std::optional<oauth::StoredToken>> { return token; },
            [this](oauth::StoredToken const& t) -> Result<void> {
                saved.push_back(t);
                token = t;
                return {};
            }};
    }
};

TargetConfig target(ScriptedUpstream const& up, TargetType type = TargetType::microsoft) {
    TargetConfig t;
    t.name = "office";
    t.type = type;
    t.client_id = "client-1";
    t.calendar = "Eventbrite";
    t.token_url = up.base_url() + "/oauth/token";
    return t;
}

oauth::StoredToken stored(TargetConfig const& t, std::string refresh_token) {
    return {
        std::string(oauth::provider_name(t.type)),
        t.client_id,
        oauth::scope_for(t),
        std::move(refresh_token),
        {}};
}

std::map<std::string, std::string> form(std::string const& body) {
    std::map<std::string, std::string> out;
    if (auto q = boost::urls::parse_query(body))
        for (auto const& p : boost::urls::params_view(*q))
            out[p.key] = p.value;
    return out;
}

/** A token endpoint that gives access tokens AT1, AT2… and, when `rotate`, refresh tokens RT1, RT2… */
ScriptedUpstream::Handler issuing(bool rotate, std::chrono::milliseconds delay = {}) {
    auto n = std::make_shared<int>(0);
    return [n, rotate, delay](ScriptedRequest const&) {
        ++*n;
        std::string body =
            R"({"access_token":"AT)" + std::to_string(*n) + R"(","token_type":"Bearer","expires_in":3600)";
        if (rotate)
            body += R"(,"refresh_token":"RT)" + std::to_string(*n) + R"(")";
        return ScriptedReply{200, body + "}", delay};
    };
}

} // namespace oauth_token_source_test

BOOST_AUTO_TEST_SUITE(oauth_token_source_test)

BOOST_AUTO_TEST_CASE(one_refresh_serves_until_rejected_and_a_rotated_token_is_stored) {
    ScriptedUpstream up(issuing(true));
    auto const t = target(up);
    MemoryKeeping mem;
    mem.token = stored(t, "RT0");
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient http(ex, ClientOptions{});
        oauth::TokenSource src(t, "c.toml", http, mem.keeping());
        auto a = co_await src.authorization();
        BOOST_TEST_REQUIRE(a.has_value(), (a ? "" : a.error().message));
        BOOST_TEST(*a == "Bearer AT1");
        auto b = co_await src.authorization();
        BOOST_TEST(*b == "Bearer AT1"); // cached: no second request
        src.rejected();
        auto c = co_await src.authorization();
        BOOST_TEST(*c == "Bearer AT2");
        BOOST_TEST(src.refreshes() == 2u);
    });
    auto const reqs = up.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 2u);
    BOOST_TEST(reqs[0].method == "POST");
    BOOST_TEST(reqs[0].path == "/oauth/token");
    BOOST_TEST(reqs[0].content_type == "application/x-www-form-urlencoded");
    auto const first = form(reqs[0].body);
    BOOST_TEST(first.at("grant_type") == "refresh_token");
    BOOST_TEST(first.at("refresh_token") == "RT0");
    BOOST_TEST(first.at("client_id") == "client-1");
    // Each rotation replaced the stored token, and the next refresh sent the new one.
    BOOST_TEST(form(reqs[1].body).at("refresh_token") == "RT1");
    BOOST_TEST_REQUIRE(mem.saved.size() == 2u);
    BOOST_TEST(mem.saved[1].refresh_token == "RT2");
    BOOST_TEST(mem.token->refresh_token == "RT2");
}

BOOST_AUTO_TEST_CASE(concurrent_callers_share_one_refresh) {
    ScriptedUpstream up(issuing(true, std::chrono::milliseconds(200)));
    auto const t = target(up);
    MemoryKeeping mem;
    mem.token = stored(t, "RT0");
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        using namespace net::experimental::awaitable_operators;
        HttpClient http(ex, ClientOptions{});
        oauth::TokenSource src(t, "c.toml", http, mem.keeping());
        auto one = src.authorization();
        auto two = src.authorization();
        auto three = src.authorization();
        auto all = co_await (std::move(one) && std::move(two) && std::move(three));
        BOOST_TEST(std::get<0>(all).value() == "Bearer AT1");
        BOOST_TEST(std::get<1>(all).value() == "Bearer AT1");
        BOOST_TEST(std::get<2>(all).value() == "Bearer AT1");
    });
    BOOST_TEST(up.requests().size() == 1u);
    BOOST_TEST(mem.saved.size() == 1u);
}

BOOST_AUTO_TEST_CASE(invalid_grant_disconnects_and_the_same_token_is_not_sent_again) {
    ScriptedUpstream up([](ScriptedRequest const&) {
        return ScriptedReply{
            400,
            R"({"error":"invalid_grant","error_description":"Token has been revoked."})"};
    });
    auto const t = target(up, TargetType::google);
    MemoryKeeping mem;
    mem.token = stored(t, "1//REVOKED");
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient http(ex, ClientOptions{});
        oauth::TokenSource src(t, "c.toml", http, mem.keeping());
        auto first = co_await src.authorization();
        BOOST_TEST_REQUIRE(!first.has_value());
        BOOST_TEST((first.error().code == errc::not_connected));
        BOOST_TEST(
            first.error().message ==
            "target office: the account's consent was revoked or has expired (invalid_grant); reconnect: "
            "icsbridge connect --config c.toml office"
        );
        // The refusal is kept with the token (issue 35: `check` said "connected"), and said from then on.
        BOOST_TEST_REQUIRE(mem.saved.size() == 1u);
        BOOST_TEST(mem.saved[0].refresh_token == "1//REVOKED");
        BOOST_TEST(mem.saved[0].refused_at.has_value());
        for (int i = 0; i < 2; ++i) {
            auto a = co_await src.authorization();
            BOOST_TEST_REQUIRE(!a.has_value());
            BOOST_TEST((a.error().code == errc::not_connected));
            BOOST_TEST(a.error().message.starts_with("target office: Google refused its sign-in on "));
            BOOST_TEST(a.error().message.ends_with("; run icsbridge connect --config c.toml office again"));
            BOOST_TEST(a.error().message.find("REVOKED") == std::string::npos);
        }
        // Someone ran connect meanwhile: the new token is read and used.
        mem.token = stored(t, "1//NEW");
        auto b = co_await src.authorization();
        BOOST_TEST(!b.has_value());
    });
    // Never retried (a 400), and not sent again until the stored token changed.
    auto const reqs = up.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 2u);
    BOOST_TEST(form(reqs[1].body).at("refresh_token") == "1//NEW");
}

BOOST_AUTO_TEST_CASE(without_a_stored_token_nothing_is_asked_and_the_command_is_named) {
    ScriptedUpstream up(issuing(false));
    auto const t = target(up);
    MemoryKeeping mem;
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        HttpClient http(ex, ClientOptions{});
        oauth::TokenSource src(t, "/etc/icsbridge/config.toml", http, mem.keeping());
        auto a = co_await src.authorization();
        BOOST_TEST_REQUIRE(!a.has_value());
        BOOST_TEST((a.error().code == errc::not_connected));
        BOOST_TEST(
            a.error().message ==
            "target office is not connected: run icsbridge connect --config /etc/icsbridge/config.toml office"
        );
        // Connected afterwards: picked up without a new TokenSource.
        mem.token = stored(t, "RT0");
        auto b = co_await src.authorization();
        BOOST_TEST(b.value() == "Bearer AT1");
    });
    BOOST_TEST(up.requests().size() == 1u);
    BOOST_TEST(mem.saved.empty()); // no rotation
}

BOOST_AUTO_TEST_CASE(a_failing_token_endpoint_is_a_retryable_upstream_error) {
    ScriptedUpstream up([](ScriptedRequest const&) { return ScriptedReply{502, "bad gateway"}; });
    auto const t = target(up);
    MemoryKeeping mem;
    mem.token = stored(t, "RT0");
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        ClientOptions opts;
        opts.retry.max_attempts = 1;
        HttpClient http(ex, opts);
        oauth::TokenSource src(t, "c.toml", http, mem.keeping());
        auto a = co_await src.authorization();
        BOOST_TEST_REQUIRE(!a.has_value());
        BOOST_TEST((a.error().code == errc::upstream_status));
        // Still connected: the next call tries again.
        auto b = co_await src.authorization();
        BOOST_TEST(!b.has_value());
    });
    BOOST_TEST(up.requests().size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
