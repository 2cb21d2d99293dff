// File: config_connect_test.cpp
// [connect] in the config (issue 27): what is read (the key file, the shared rate, each provider's client
// with the provider's endpoints unless told), the warnings, and each mistake with its exact FILE:LINE:COL,
// never showing the client secret.
#include "support/config_text.hpp"
#include <icsbridge/config.hpp>

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>

using namespace icsbridge;

namespace config_connect_test {

// Lines 1-9; each case's text starts on line 10. The source's token comes from the environment, so only a
// [connect] secret can make the file hold one.
std::string const base = "[server]\npublic_url = \"https://cal.example.org\"\n"
                         "[sources.eb]\ntype = \"events\"\nbase_url = \"https://events.example.com\"\n"
                         "token_env = \"EVENTS_TOKEN\"\n"
                         "[feeds.ev]\nsource = \"eb\"\nselect = \"organizer\"\n";
// Lines 10-11: the cases' own lines start at 12.
std::string const connect = base + "[connect]\nkey_file = \"/run/credentials/icsbridge/connect.key\"\n";

Result<Config> parse(std::string const& text) {
    return test::parse_config_text(
        text,
        "t.toml",
        {{"EVENTS_TOKEN", "t"}, {"GOOGLE_CLIENT_SECRET", "g-secret-env"}}
    );
}

} // namespace config_connect_test

BOOST_AUTO_TEST_SUITE(config_connect_test)

BOOST_AUTO_TEST_CASE(both_providers_are_read_with_the_providers_endpoints_and_the_shared_limits) {
    // Setup
    std::string const text = connect +
                             "google = { client_id = \"123.apps.googleusercontent.com\", client_secret_env = "
                             "\"GOOGLE_CLIENT_SECRET\" }\n"
                             "microsoft = { client_id = \"0b1c\", tenant = \"contoso.onmicrosoft.com\" }\n"
                             "rate = \"100/m\"\nmax_concurrency = 2\n";

    // Run the test
    auto r = parse(text);

    // Check
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST_REQUIRE(r->connect.has_value());
    auto const& c = *r->connect;
    BOOST_TEST(c.line == 10);
    BOOST_TEST(c.key_file == "/run/credentials/icsbridge/connect.key");
    BOOST_TEST(c.rate.calls == 100u);
    BOOST_TEST(c.rate.period.count() == 60);
    BOOST_TEST(c.max_concurrency == 2);
    BOOST_TEST_REQUIRE(c.google.has_value());
    auto const& g = *c.google;
    BOOST_TEST(g.name == "google");
    BOOST_TEST((g.type == TargetType::google));
    BOOST_TEST(g.line == 12);
    BOOST_TEST(g.client_id == "123.apps.googleusercontent.com");
    BOOST_TEST(g.client_secret == "g-secret-env");
    BOOST_TEST(g.api_base == "https://www.googleapis.com/calendar/v3");
    BOOST_TEST(g.auth_url == "https://accounts.google.com/o/oauth2/v2/auth");
    BOOST_TEST(g.token_url == "https://oauth2.googleapis.com/token");
    BOOST_TEST(g.revoke_url == "https://oauth2.googleapis.com/revoke");
    BOOST_TEST(g.calendar.empty());
    BOOST_TEST(g.calendar_id.empty());
    BOOST_TEST((g.rate == c.rate));
    BOOST_TEST(g.max_concurrency == 2);
    BOOST_TEST_REQUIRE(c.microsoft.has_value());
    auto const& m = *c.microsoft;
    BOOST_TEST(m.name == "microsoft");
    BOOST_TEST((m.type == TargetType::microsoft));
    BOOST_TEST(m.line == 13);
    BOOST_TEST(m.client_id == "0b1c");
    BOOST_TEST(m.client_secret.empty());
    BOOST_TEST(m.tenant == "contoso.onmicrosoft.com");
    BOOST_TEST(m.api_base == "https://graph.microsoft.com/v1.0");
    BOOST_TEST(
        m.auth_url == "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize"
    );
    BOOST_TEST(m.token_url == "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token");
    BOOST_TEST(m.revoke_url.empty());
    BOOST_TEST((m.rate == c.rate));
    // The secret came from the environment, and public_url is https:// elsewhere: nothing to warn about.
    BOOST_TEST(!r->secrets_in_file);
    BOOST_TEST(config_warnings(*r).empty());
}

BOOST_AUTO_TEST_CASE(defaults_fill_what_is_not_given_and_a_provider_may_be_a_table_of_its_own) {
    // Setup: one provider, written as a [connect.microsoft] table, without tenant, rate or max_concurrency.
    std::string const text = connect + "[connect.microsoft]\nclient_id = \"0b1c\"\n";

    // Run the test
    auto r = parse(text);

    // Check
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    auto const& c = *r->connect;
    BOOST_TEST((c.rate == default_connect_rate));
    BOOST_TEST(c.max_concurrency == 4);
    BOOST_TEST(!c.google.has_value());
    BOOST_TEST_REQUIRE(c.microsoft.has_value());
    BOOST_TEST(c.microsoft->line == 12);
    BOOST_TEST(c.microsoft->tenant == "common");
    BOOST_TEST(c.microsoft->auth_url == "https://login.microsoftonline.com/common/oauth2/v2.0/authorize");
    BOOST_TEST(c.microsoft->token_url == "https://login.microsoftonline.com/common/oauth2/v2.0/token");
    BOOST_TEST((c.microsoft->rate == default_connect_rate));
    BOOST_TEST(c.microsoft->max_concurrency == 4);
    // Without [connect]: no self-serve connections.
    auto none = parse(base);
    BOOST_TEST_REQUIRE(none.has_value(), (none ? "" : none.error().message));
    BOOST_TEST(!none->connect.has_value());
}

BOOST_AUTO_TEST_CASE(given_endpoints_a_ca_file_and_a_client_secret_file_replace_the_defaults) {
    // Setup
    auto const dir = std::filesystem::temp_directory_path();
    auto const secret = dir / "icsbridge-config-connect-secret";
    auto const ca = dir / "icsbridge-config-connect-ca.pem";
    std::ofstream(secret) << "from-file\n";
    std::ofstream(ca) << "not parsed here\n";
    std::string const text = connect + "[connect.google]\nclient_id = \"g\"\nclient_secret_file = \"" +
                             secret.string() + "\"\nca_file = \"" + ca.string() +
                             "\"\napi_base = \"http://127.0.0.1:7000/calendar/v3/\"\n"
                             "auth_url = \"http://127.0.0.1:7000/o/oauth2/v2/auth\"\n"
                             "token_url = \"http://127.0.0.1:7000/token\"\n"
                             "revoke_url = \"http://127.0.0.1:7000/revoke/\"\n";

    // Run the test
    auto r = parse(text);
    std::filesystem::remove(secret);
    std::filesystem::remove(ca);

    // Check
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    auto const& g = *r->connect->google;
    BOOST_TEST(g.client_secret == "from-file");
    BOOST_TEST(g.ca_file == ca.string());
    BOOST_TEST(g.api_base == "http://127.0.0.1:7000/calendar/v3");
    BOOST_TEST(g.auth_url == "http://127.0.0.1:7000/o/oauth2/v2/auth");
    BOOST_TEST(g.token_url == "http://127.0.0.1:7000/token");
    BOOST_TEST(g.revoke_url == "http://127.0.0.1:7000/revoke");
    // Plain http:// to loopback is a test's fake: no warning.
    BOOST_TEST(config_warnings(*r).empty());
}

BOOST_AUTO_TEST_CASE(a_secret_in_the_file_plain_http_endpoints_and_a_public_url_without_https_are_warned) {
    // Setup: the client secret inline, Google's token and revocation endpoints on plain http:// elsewhere.
    std::string const text =
        connect + "google = { client_id = \"g\", client_secret = \"hunter2\", token_url = "
                  "\"http://auth.example.org/token\", revoke_url = \"http://auth.example.org/r\" }\n";

    // Run the test
    auto r = parse(text);

    // Check
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST(r->secrets_in_file);
    BOOST_TEST(r->connect->google->client_secret == "hunter2");
    auto const w = config_warnings(*r);
    BOOST_TEST_REQUIRE(w.size() == 2u);
    BOOST_TEST(
        w[0] ==
        "[connect.google] token_url is plain http:// to auth.example.org: the refresh token and client "
        "secret cross the network unencrypted; use https://"
    );
    BOOST_TEST(
        w[1] ==
        "[connect.google] revoke_url is plain http:// to auth.example.org: the refresh tokens cross the "
        "network unencrypted; use https://"
    );
    for (auto const& line : w)
        BOOST_TEST(line.find("hunter2") == std::string::npos);

    // public_url on plain http:// to another machine: the providers refuse the redirect.
    auto http = parse("[server]\npublic_url = \"http://cal.example.org\"\n[connect]\nkey_file = \"k\"\n"
                      "google = { client_id = \"g\" }\n");
    BOOST_TEST_REQUIRE(http.has_value(), (http ? "" : http.error().message));
    auto const hw = config_warnings(*http);
    BOOST_TEST_REQUIRE(hw.size() == 1u);
    BOOST_TEST(
        hw[0] ==
        "[connect]: [server] public_url is plain http://: Google and Microsoft refuse the sign-in redirect "
        "http://cal.example.org/connect/callback (plain http:// is allowed for localhost only); serve "
        "icsbridge behind TLS and set public_url to its https:// address"
    );

    // No [server]: public_url is the loopback listen address, which no subscriber can come back to.
    auto local = parse("[connect]\nkey_file = \"k\"\nmicrosoft = { client_id = \"m\" }\n");
    BOOST_TEST_REQUIRE(local.has_value(), (local ? "" : local.error().message));
    auto const lw = config_warnings(*local);
    BOOST_TEST_REQUIRE(lw.size() == 1u);
    BOOST_TEST(
        lw[0] ==
        "[connect]: [server] public_url http://127.0.0.1:8080 is this machine: subscribers' browsers are "
        "sent back to http://127.0.0.1:8080/connect/callback, which only reaches their own computer; set "
        "public_url to the server's public https:// address"
    );
}

BOOST_AUTO_TEST_CASE(mistakes_point_at_the_offending_part_and_never_show_the_secret) {
    struct Case {
        std::string text;
        std::string message;
    };
    // The cases' own lines start at 12; "google = { client_id = \"g\", " puts the next key at column 29.
    std::string const g = connect + "google = { client_id = \"g\", ";
    std::string const m = connect + "microsoft = { client_id = \"m\", ";
    char const* const named_after_feed = "each connection's calendar is named after its feed)";
    Case const cases[] = {
        {base + "[connect]\ngoogle = { client_id = \"g\", client_secret = \"hunter2\" }\n",
         "t.toml:10:1: [connect] needs key_file: a file of 32 random bytes that seals the stored refresh "
         "tokens; make one with: openssl rand -hex 32 > FILE && chmod 600 FILE"},
        {connect,
         "t.toml:10:1: [connect] needs google or microsoft: the OAuth client subscribers sign in through, "
         "e.g. google = { client_id = \"...\", client_secret_env = \"GOOGLE_CLIENT_SECRET\" }"},
        {base + "[connect]\nkey_file = \"\"\n", "t.toml:11:12: key_file must not be empty"},
        {connect + "google = { client_id = \"g\" }\nmax_concurency = 2\n",
         "t.toml:13:1: unknown key 'max_concurency' in [connect]; did you mean 'max_concurrency'?"},
        {connect + "google = { client_id = \"g\" }\nmax_concurrency = 0\n",
         "t.toml:13:19: max_concurrency must be between 1 and 64, not 0"},
        {connect + "google = { client_id = \"g\" }\nrate = \"lots\"\n",
         "t.toml:13:8: rate = \"lots\" is not a request rate: use requests/period, e.g. \"300/m\" or "
         "\"20/1s\""},
        {"connect = 3\n" + base, "t.toml:1:11: connect must be a table ([connect])"},
        {base + "[conect]\nkey_file = \"k\"\n",
         "t.toml:10:2: unknown key 'conect' in the top level; did you mean 'connect'?"},
        {connect + "google = \"g\"\n",
         "t.toml:12:10: google in [connect] must be a table ({ client_id = \"...\" } or [connect.google]), "
         "not a string"},
        {connect + "google = { client_secret = \"hunter2\" }\n",
         "t.toml:12:10: [connect.google] needs client_id (the id of your OAuth web client; the README's "
         "\"Letting subscribers connect their own calendars\" says how to make one)"},
        {g + "calendar = \"Events\" }\n",
         std::string("t.toml:12:29: 'calendar' is not valid in [connect.google] (") + named_after_feed},
        {m + "calendar_id = \"AAMk\" }\n",
         std::string("t.toml:12:32: 'calendar_id' is not valid in [connect.microsoft] (") + named_after_feed},
        {g + "client_secret = \"hunter2\", password = \"hunter2\" }\n",
         "t.toml:12:56: 'password' is not valid in [connect.google] (it is a key of caldav targets; "
         "connections sign in to each subscriber's own account over OAuth)"},
        {g + "type = \"google\" }\n",
         "t.toml:12:29: 'type' is not valid in [connect.google] (the table's name says the provider)"},
        {g + "rate = \"9/s\" }\n",
         "t.toml:12:29: 'rate' is not valid in [connect.google] (rate and max_concurrency are set in "
         "[connect] itself, for every connection)"},
        {g + "tenant = \"common\" }\n",
         "t.toml:12:29: 'tenant' is not valid in [connect.google] (it is a key of [connect.microsoft] "
         "alone)"},
        {m + "revoke_url = \"https://login.microsoftonline.com/revoke\" }\n",
         "t.toml:12:32: 'revoke_url' is not valid in [connect.microsoft] (Microsoft has no token revocation "
         "endpoint: people remove an app's access in their account's settings)"},
        {m + "tenant = \"../evil\" }\n",
         "t.toml:12:41: tenant = \"../evil\" is not a tenant: use common, organizations, consumers, a "
         "directory (tenant) id or a domain such as contoso.onmicrosoft.com"},
        {g + "clientsecret = \"hunter2\" }\n",
         "t.toml:12:29: unknown key 'clientsecret' in [connect.google]; did you mean 'client_secret'?"},
        {g + "client_secret = \"hunter2\", client_secret_env = \"GOOGLE_CLIENT_SECRET\" }\n",
         "t.toml:12:56: give either client_secret or client_secret_env in [connect.google], not both"},
        {m + "client_secret_env = \"NOPE\" }\n",
         "t.toml:12:52: environment variable NOPE (client_secret_env of [connect.microsoft]) is not set"},
        {g + "token_url = \"ftp://x/token\" }\n",
         "t.toml:12:41: token_url must start with http:// or https://"},
        {g + "revoke_url = \"ftp://x/revoke\" }\n",
         "t.toml:12:42: revoke_url must start with http:// or https://"},
        {g + "ca_file = \"/nonexistent/ca.pem\" }\n",
         "t.toml:12:39: ca_file \"/nonexistent/ca.pem\" cannot be read: No such file or directory"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text) {
            auto r = parse(c.text);
            // A secret this environment lacks is no mistake in the file: the config loads and names it.
            if (r && !r->missing_secrets.empty())
                r = fail(errc::config_invalid, r->missing_secrets.front().message);
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST(r.error().message == c.message);
            BOOST_TEST(r.error().message.find("hunter2") == std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
