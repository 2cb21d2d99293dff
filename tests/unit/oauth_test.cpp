// File: oauth_test.cpp
// The sans-io parts of src/oauth/: PKCE and state, the authorization URL, the token endpoint's bodies and
// answers, the expiry decision, the loopback redirect's verdicts, and the stored token (file and checks).
#include "oauth/pkce.hpp"
#include "oauth/provider.hpp"
#include "oauth/redirect.hpp"
#include "oauth/token_answer.hpp"
#include "oauth/token_source.hpp"
#include "oauth/token_store.hpp"

#include <boost/test/unit_test.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/parse_query.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

using namespace icsbridge;
using namespace icsbridge::oauth;

namespace oauth_test {

TargetConfig google_target() {
    TargetConfig t;
    t.name = "work";
    t.type = TargetType::google;
    t.client_id = "123.apps.googleusercontent.com";
    t.calendar = "Eventbrite";
    t.auth_url = "https://accounts.google.com/o/oauth2/v2/auth";
    t.token_url = "https://oauth2.googleapis.com/token";
    return t;
}

TargetConfig microsoft_target() {
    TargetConfig t;
    t.name = "office";
    t.type = TargetType::microsoft;
    t.client_id = "0b1c-client";
    t.calendar = "Eventbrite";
    t.auth_url = "https://login.microsoftonline.com/common/oauth2/v2.0/authorize";
    t.token_url = "https://login.microsoftonline.com/common/oauth2/v2.0/token";
    return t;
}

TargetRef const ref{"work", "/etc/icsbridge/config.toml"};

/** The decoded fields of a query string or a form body; a repeated key fails the test. */
std::map<std::string, std::string> fields_of(std::string_view query) {
    std::map<std::string, std::string> out;
    auto parsed = boost::urls::parse_query(query);
    BOOST_TEST_REQUIRE(parsed.has_value(), query);
    for (auto const& p : boost::urls::params_view(*parsed)) {
        bool const fresh = out.emplace(p.key, p.value).second;
        BOOST_TEST(fresh, p.key);
    }
    return out;
}

bool is_base64url(std::string const& s) {
    return s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
           std::string::npos;
}

} // namespace oauth_test

BOOST_AUTO_TEST_SUITE(oauth_test)

BOOST_AUTO_TEST_CASE(base64url_has_no_padding_and_the_url_safe_alphabet) {
    // RFC 4648 §10's vectors, without the padding RFC 7636 drops.
    BOOST_TEST(base64url("") == "");
    BOOST_TEST(base64url("f") == "Zg");
    BOOST_TEST(base64url("fo") == "Zm8");
    BOOST_TEST(base64url("foo") == "Zm9v");
    BOOST_TEST(base64url("foob") == "Zm9vYg");
    BOOST_TEST(base64url("fooba") == "Zm9vYmE");
    BOOST_TEST(base64url("foobar") == "Zm9vYmFy");
    BOOST_TEST(base64url("\xfb\xff") == "-_8");
}

BOOST_AUTO_TEST_CASE(the_s256_challenge_is_rfc_7636s_example) {
    // RFC 7636 appendix B.
    BOOST_TEST(
        challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") ==
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    );
}

BOOST_AUTO_TEST_CASE(verifiers_are_64_unreserved_characters_drawn_from_the_whole_set) {
    std::string const unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
    std::set<char> seen;
    std::set<std::string> verifiers;
    for (int i = 0; i < 200; ++i) {
        auto const v = make_verifier();
        BOOST_TEST_REQUIRE(v.size() == 64u);
        BOOST_TEST(v.find_first_not_of(unreserved) == std::string::npos, v);
        seen.insert(v.begin(), v.end());
        verifiers.insert(v);
    }
    // 12,800 draws from 66 characters: every one of them shows up, and no verifier repeats.
    BOOST_TEST(seen.size() == unreserved.size());
    BOOST_TEST(verifiers.size() == 200u);
    auto const p = make_pkce();
    BOOST_TEST(p.challenge == challenge_of(p.verifier));
    BOOST_TEST(p.challenge.size() == 43u);
}

BOOST_AUTO_TEST_CASE(states_are_32_random_bytes_in_base64url) {
    auto const a = make_state();
    auto const b = make_state();
    BOOST_TEST(a.size() == 43u);
    BOOST_TEST(is_base64url(a), a);
    BOOST_TEST(a != b);
}

BOOST_AUTO_TEST_CASE(each_target_asks_for_the_narrowest_scope_that_does_its_job) {
    auto g = google_target();
    BOOST_TEST(scope_for(g) == "https://www.googleapis.com/auth/calendar.app.created");
    g.calendar.clear();
    g.calendar_id = "primary";
    BOOST_TEST(scope_for(g) == "https://www.googleapis.com/auth/calendar.events");
    BOOST_TEST(scope_for(microsoft_target()) == "offline_access Calendars.ReadWrite");
}

BOOST_AUTO_TEST_CASE(the_google_authorization_url_asks_for_offline_access_with_pkce) {
    auto const url = authorization_url(google_target(), "http://127.0.0.1:5555/", "st&te=x", "CHALLENGE");
    BOOST_TEST(url.starts_with("https://accounts.google.com/o/oauth2/v2/auth?"), url);
    auto u = boost::urls::parse_uri(url);
    BOOST_TEST_REQUIRE(u.has_value());
    auto const f = fields_of(u->encoded_query());
    BOOST_TEST(f.size() == 9u);
    BOOST_TEST(f.at("response_type") == "code");
    BOOST_TEST(f.at("client_id") == "123.apps.googleusercontent.com");
    BOOST_TEST(f.at("redirect_uri") == "http://127.0.0.1:5555/");
    BOOST_TEST(f.at("scope") == "https://www.googleapis.com/auth/calendar.app.created");
    BOOST_TEST(f.at("state") == "st&te=x"); // encoded, so it stays one parameter
    BOOST_TEST(f.at("code_challenge") == "CHALLENGE");
    BOOST_TEST(f.at("code_challenge_method") == "S256");
    BOOST_TEST(f.at("access_type") == "offline");
    BOOST_TEST(f.at("prompt") == "consent");
}

BOOST_AUTO_TEST_CASE(the_microsoft_authorization_url_asks_for_offline_access_by_scope) {
    auto const url = authorization_url(microsoft_target(), "http://127.0.0.1:5555/", "s", "c");
    BOOST_TEST(url.starts_with("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?"), url);
    BOOST_TEST(url.find(' ') == std::string::npos, url);
    auto const f = fields_of(boost::urls::parse_uri(url)->encoded_query());
    BOOST_TEST(f.at("scope") == "offline_access Calendars.ReadWrite");
    BOOST_TEST(f.count("access_type") == 0u);
    BOOST_TEST(f.count("prompt") == 0u);
    BOOST_TEST(f.at("code_challenge_method") == "S256");
}

BOOST_AUTO_TEST_CASE(form_bodies_encode_every_reserved_byte) {
    BOOST_TEST(form_encode({{"a b", "c&d=e/f+g"}, {"é", "~._-"}}) == "a%20b=c%26d%3De%2Ff%2Bg&%C3%A9=~._-");
    auto t = google_target();
    auto f = fields_of(code_exchange_body(t, "4/co+de", "http://127.0.0.1:1/", "VERIFIER"));
    BOOST_TEST(f.size() == 5u);
    BOOST_TEST(f.at("grant_type") == "authorization_code");
    BOOST_TEST(f.at("code") == "4/co+de");
    BOOST_TEST(f.at("redirect_uri") == "http://127.0.0.1:1/");
    BOOST_TEST(f.at("client_id") == t.client_id);
    BOOST_TEST(f.at("code_verifier") == "VERIFIER");
    t.client_secret = "s3cret";
    BOOST_TEST(fields_of(code_exchange_body(t, "c", "r", "v")).at("client_secret") == "s3cret");
    // Google keeps the granted scopes on a refresh; Microsoft's v2.0 endpoint wants them again.
    auto g = fields_of(refresh_body(t, "1//rt"));
    BOOST_TEST(g.size() == 4u);
    BOOST_TEST(g.at("grant_type") == "refresh_token");
    BOOST_TEST(g.at("refresh_token") == "1//rt");
    BOOST_TEST(g.count("scope") == 0u);
    auto m = fields_of(refresh_body(microsoft_target(), "M.rt"));
    BOOST_TEST(m.size() == 4u);
    BOOST_TEST(m.at("scope") == "offline_access Calendars.ReadWrite");
    BOOST_TEST(m.count("client_secret") == 0u);
}

BOOST_AUTO_TEST_CASE(a_success_answer_gives_the_tokens_and_their_lifetime) {
    auto a = parse_token_answer(
        200,
        R"({"access_token":"ya29.AT","token_type":"Bearer","expires_in":3599,"refresh_token":"1//RT","scope":"s"})",
        Grant::authorization_code,
        ref
    );
    BOOST_TEST_REQUIRE(a.has_value(), (a ? "" : a.error().message));
    BOOST_TEST(a->access_token == "ya29.AT");
    BOOST_TEST(a->expires_in.count() == 3599);
    BOOST_TEST(a->refresh_token == "1//RT");
    BOOST_TEST(a->scope == "s");
    // expires_in as a string, token_type in any case, no refresh token: a refresh that does not rotate.
    auto b = parse_token_answer(
        200,
        R"({"access_token":"AT","token_type":"bearer","expires_in":"60"})",
        Grant::refresh_token,
        ref
    );
    BOOST_TEST_REQUIRE(b.has_value());
    BOOST_TEST(b->expires_in.count() == 60);
    BOOST_TEST(b->refresh_token.empty());
    auto c = parse_token_answer(200, R"({"access_token":"AT"})", Grant::refresh_token, ref);
    BOOST_TEST_REQUIRE(c.has_value());
    BOOST_TEST(c->expires_in.count() == 3600);
}

BOOST_AUTO_TEST_CASE(each_refusal_maps_to_its_errc_and_never_shows_a_token) {
    struct Case {
        unsigned status;
        std::string body;
        Grant grant;
        errc code;
        std::string message;
    };
    Case const cases[] = {
        {400,
         R"({"error":"invalid_grant","error_description":"Token has been expired or revoked."})",
         Grant::refresh_token,
         errc::not_connected,
         "target work: the account's consent was revoked or has expired (invalid_grant); reconnect: "
         "icsbridge "
         "connect --config /etc/icsbridge/config.toml work"},
        {400,
         R"({"error":"invalid_grant","error_description":"Malformed auth code."})",
         Grant::authorization_code,
         errc::upstream_auth,
         "target work: the token endpoint refused the sign-in's code (invalid_grant: Malformed auth code.); "
         "run "
         "icsbridge connect --config /etc/icsbridge/config.toml work again"},
        {401,
         R"({"error":"invalid_client","error_description":"The OAuth client was not found."})",
         Grant::refresh_token,
         errc::upstream_auth,
         "target work: the token endpoint refused the client (invalid_client: The OAuth client was not "
         "found.): "
         "check client_id and client_secret of [targets.work]"},
        {400,
         R"({"error":"invalid_request"})",
         Grant::refresh_token,
         errc::upstream_status,
         "target work: the token endpoint answered 400 (invalid_request)"},
        {503,
         "<html>down</html>",
         Grant::refresh_token,
         errc::upstream_status,
         "target work: the token endpoint answered 503 (HTTP 503)"},
        {429,
         "",
         Grant::refresh_token,
         errc::upstream_rate_limited,
         "target work: the token endpoint asks to slow down (429)"},
        {200,
         "not json",
         Grant::refresh_token,
         errc::upstream_malformed,
         "target work: the token endpoint's answer is not JSON"},
        {200,
         R"({"refresh_token":"1//SECRET"})",
         Grant::refresh_token,
         errc::upstream_malformed,
         "target work: the token endpoint's answer has no access_token"},
        {200,
         R"({"access_token":"SECRET-AT","token_type":"mac"})",
         Grant::refresh_token,
         errc::upstream_malformed,
         "target work: the token endpoint's answer gives a token_type other than Bearer: mac"},
        {200,
         R"({"access_token":"SECRET-AT","expires_in":"soon"})",
         Grant::refresh_token,
         errc::upstream_malformed,
         "target work: the token endpoint's answer has an expires_in that is not a number of seconds"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.status << " " << c.body) {
            auto r = parse_token_answer(c.status, c.body, c.grant, ref);
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST(r.error().code == c.code);
            BOOST_TEST(r.error().message == c.message);
            BOOST_TEST(r.error().message.find("SECRET") == std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(an_access_token_is_refreshed_a_minute_before_it_expires_or_when_refused) {
    using namespace std::chrono_literals;
    std::chrono::steady_clock::time_point const t0{std::chrono::hours(1000)};
    BOOST_TEST((refresh_after(t0, 3600s) == t0 + 3540s));
    // A short-lived token is used for half its life, not refreshed on every call.
    BOOST_TEST((refresh_after(t0, 30s) == t0 + 15s));
    AccessToken const tok{"AT", refresh_after(t0, 3600s)};
    BOOST_TEST(should_refresh(std::nullopt, false, t0));
    BOOST_TEST(!should_refresh(tok, false, t0));
    BOOST_TEST(!should_refresh(tok, false, t0 + 3539s));
    BOOST_TEST(should_refresh(tok, false, t0 + 3540s));
    BOOST_TEST(should_refresh(tok, true, t0)); // the API answered 401
}

BOOST_AUTO_TEST_CASE(only_our_state_with_a_code_or_an_error_ends_the_wait) {
    using Kind = RedirectVerdict::Kind;
    std::string const state = "Rk9PQkFS-state_value";
    auto code = classify_redirect("GET", "/?state=Rk9PQkFS-state_value&code=4%2F0Ad-x&scope=s", state);
    BOOST_TEST((code.kind == Kind::code));
    BOOST_TEST(code.code == "4/0Ad-x");
    auto denied = classify_redirect(
        "GET",
        "/?error=access_denied&error_description=The+user+said+no&state=Rk9PQkFS-state_value",
        state
    );
    BOOST_TEST((denied.kind == Kind::denied));
    BOOST_TEST(denied.error == "access_denied");
    BOOST_TEST(denied.error_description == "The user said no");
    // A forged or stale answer neither finishes nor ends the sign-in.
    BOOST_TEST((classify_redirect("GET", "/?code=x&state=other", state).kind == Kind::wrong_state));
    BOOST_TEST((classify_redirect("GET", "/?code=x", state).kind == Kind::wrong_state));
    BOOST_TEST((classify_redirect("GET", "/?error=access_denied&state=", state).kind == Kind::wrong_state));
    BOOST_TEST(
        (classify_redirect("GET", "/?code=x&state=Rk9PQkFS-state_valu", state).kind == Kind::wrong_state)
    );
    // Everything else is answered and waited past.
    auto favicon = classify_redirect("GET", "/favicon.ico", state);
    BOOST_TEST((favicon.kind == Kind::not_redirect));
    BOOST_TEST(favicon.status == 404u);
    BOOST_TEST(classify_redirect("POST", "/?code=x&state=Rk9PQkFS-state_value", state).status == 405u);
    BOOST_TEST((classify_redirect("GET", "/", state).kind == Kind::not_redirect));
    BOOST_TEST(
        (classify_redirect("GET", "/?code=&state=Rk9PQkFS-state_value", state).kind == Kind::not_redirect)
    );
}

BOOST_AUTO_TEST_CASE(pages_escape_what_they_show) {
    auto const page = redirect_page("a<b", "x & \"y\" 'z' <script>");
    BOOST_TEST(page.find("<h1>a&lt;b</h1>") != std::string::npos);
    BOOST_TEST(page.find("x &amp; &quot;y&quot; &#39;z&#39; &lt;script&gt;") != std::string::npos);
    BOOST_TEST(page.find("<script>") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_reconnect_command_quotes_a_path_a_shell_would_split) {
    BOOST_TEST(reconnect_command(ref) == "icsbridge connect --config /etc/icsbridge/config.toml work");
    BOOST_TEST(
        reconnect_command({"work", "/home/me/my config's.toml"}) ==
        "icsbridge connect --config '/home/me/my config'\\''s.toml' work"
    );
    BOOST_TEST(
        not_connected(ref).message ==
        "target work is not connected: run icsbridge connect --config /etc/icsbridge/config.toml work"
    );
    BOOST_TEST((not_connected(ref).code == errc::not_connected));
}

BOOST_AUTO_TEST_CASE(a_stored_token_serves_only_the_client_and_scope_it_was_granted_to) {
    auto const t = google_target();
    StoredToken s{"google", t.client_id, scope_for(t), "1//RT", std::chrono::sys_seconds{}};
    BOOST_TEST(usable_token(s, t, ref).has_value());
    auto const message_of = [&](std::optional<StoredToken> const& st) {
        auto r = usable_token(st, t, ref);
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST((r.error().code == errc::not_connected));
        BOOST_TEST(r.error().message.find("1//RT") == std::string::npos);
        return r.error().message;
    };
    BOOST_TEST(message_of(std::nullopt) == not_connected(ref).message);
    auto other = s;
    other.client_id = "456.apps.googleusercontent.com";
    BOOST_TEST(
        message_of(other) ==
        "target work is not connected (its stored sign-in is for another client_id): run icsbridge connect "
        "--config /etc/icsbridge/config.toml work"
    );
    other = s;
    other.scope = "https://www.googleapis.com/auth/calendar.events";
    BOOST_TEST(
        message_of(other).starts_with("target work is not connected (it was connected for the scope "
                                      "https://www.googleapis.com/auth/calendar.events; the config now needs "
                                      "https://www.googleapis.com/auth/calendar.app.created)")
    );
    other = s;
    other.provider = "microsoft";
    BOOST_TEST(message_of(other).find("for microsoft, not google") != std::string::npos);
    other = s;
    other.refresh_token.clear();
    BOOST_TEST(message_of(other) == not_connected(ref).message);
}

BOOST_AUTO_TEST_CASE(a_token_the_provider_refused_is_kept_so_and_says_to_connect_again) {
    // issue 35: after invalid_grant `check` still said "connected": the refusal is stored with the token.
    auto const t = google_target();
    StoredToken s{"google", t.client_id, scope_for(t), "1//RT", std::chrono::sys_seconds{}};
    s.refused_at = std::chrono::sys_seconds{std::chrono::seconds{1795000000}};
    auto const text = to_json(s);
    BOOST_TEST(text.find("\"refused_at\":\"2026-11-18T11:06:40Z\"") != std::string::npos, text);
    auto back = token_from_json(text);
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST((*back == s));
    auto r = usable_token(s, t, ref);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error().code == errc::not_connected));
    BOOST_TEST(
        r.error().message ==
        "target work: Google refused its sign-in on 2026-11-18T11:06:40Z (invalid_grant: the consent was "
        "revoked "
        "or has expired); run icsbridge connect --config /etc/icsbridge/config.toml work again"
    );
    // A token stored before this field existed has none: it is not refused.
    BOOST_TEST(!token_from_json(to_json(StoredToken{"google", "c", "s", "x", {}}))->refused_at.has_value());
}

BOOST_AUTO_TEST_CASE(the_token_file_is_0600_in_a_0700_directory_and_holds_no_access_token) {
    auto const dir =
        std::filesystem::temp_directory_path() / ("icsbridge-oauth-test-" + make_state().substr(0, 8));
    auto keeping = token_file(dir.string(), "work");
    auto none = keeping.load();
    BOOST_TEST_REQUIRE(none.has_value());
    BOOST_TEST(!none->has_value());
    StoredToken const s{
        "google",
        "123.apps.googleusercontent.com",
        "https://www.googleapis.com/auth/calendar.app.created",
        "1//RT",
        std::chrono::sys_seconds{std::chrono::seconds{1795000000}}};
    BOOST_TEST_REQUIRE(keeping.save(s).has_value());
    auto const path = token_path(dir.string(), "work");
    BOOST_TEST(path == (dir / "oauth" / "work.json").string());
    struct stat st {};
    BOOST_TEST_REQUIRE(::stat(path.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 07777) == 0600u);
    BOOST_TEST_REQUIRE(::stat((dir / "oauth").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 07777) == 0700u);
    auto const text = to_json(s);
    BOOST_TEST(text.find("\"connected_at\":\"2026-11-18T") != std::string::npos, text);
    BOOST_TEST(text.find("access_token") == std::string::npos);
    auto back = keeping.load();
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST_REQUIRE(back->has_value());
    BOOST_TEST((**back == s));
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_malformed_token_file_is_an_io_error_that_names_the_field) {
    auto r = token_from_json(R"({"provider":"google","client_id":"c","scope":"s","refresh_token":7})");
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error().code == errc::io_error));
    BOOST_TEST(r.error().message == "the stored token is malformed: refresh_token is not a string");
    auto bad_time = token_from_json(
        R"({"provider":"google","client_id":"c","scope":"s","refresh_token":"x","connected_at":"yesterday"})"
    );
    BOOST_TEST_REQUIRE(!bad_time.has_value());
    BOOST_TEST(bad_time.error().message.find("connected_at") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
