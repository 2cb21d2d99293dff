// File: config_target_test.cpp
// [targets.NAME] and a feed's `push` in the config: what is read (CalDAV, Google and Microsoft targets), the
// password and client secret from each of their three places (never in a message), the defaults of the OAuth
// endpoints, the warnings, and each mistake with its exact FILE:LINE:COL.
#include "push/push_views.hpp"
#include "support/config_text.hpp"
#include <icsbridge/config.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace icsbridge;

namespace config_target_test {

// Lines 1-7; each case's text starts on line 8.
std::string const base = "[sources.eb]\ntype = \"events\"\nbase_url = \"http://127.0.0.1:9\"\ntoken = \"t\"\n"
                         "[feeds.ev]\nsource = \"eb\"\nselect = \"organizer\"\n";
std::string const target = "[targets.family]\ntype = \"caldav\"\nurl = \"https://dav.example.org/dav\"\n"
                           "username = \"alice\"\n";

Result<Config> parse(std::string const& text) {
    return test::parse_config_text(
        text,
        "t.toml",
        {{"DAV_PW", "s3cret-env"}, {"GOOGLE_SECRET", "g-secret-env"}}
    );
}

/** @brief The warnings other than "no feed pushes into it" (the cases here read targets without feeds). */
std::vector<std::string> besides_unused(std::vector<std::string> warnings) {
    std::erase_if(warnings, [](std::string const& w) {
        return w.find("no feed pushes into it") != std::string::npos;
    });
    return warnings;
}

} // namespace config_target_test

BOOST_AUTO_TEST_SUITE(config_target_test)

BOOST_AUTO_TEST_CASE(a_target_and_the_feeds_pushing_to_it_are_read) {
    // Feeds may be written before the targets they name.
    auto r = parse(
        base + "push = [{ target = \"family\", view = \"days=90&alarm=none\" }, \"phone\"]\n" + target +
        "password_env = \"DAV_PW\"\ncalendar = \"Events\"\nrate = \"20/1s\"\nmax_concurrency = 2\n" +
        "[targets.phone]\ntype = \"caldav\"\nurl = \"http://127.0.0.1:5232/\"\nusername = \"a\"\npassword = "
        "\"p\"\n"
    );
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    auto const* t = r->find_target("family");
    BOOST_TEST_REQUIRE(t != nullptr);
    BOOST_TEST(t->url == "https://dav.example.org/dav/");
    BOOST_TEST(t->calendar == "Events");
    BOOST_TEST(t->username == "alice");
    BOOST_TEST(t->password == "s3cret-env");
    BOOST_TEST(t->rate.calls == 20u);
    BOOST_TEST(t->rate.period.count() == 1);
    BOOST_TEST(t->max_concurrency == 2);
    auto const& push = r->feeds.at(0).push;
    BOOST_TEST_REQUIRE(push.size() == 2u);
    BOOST_TEST(push[0].target == "family");
    BOOST_TEST(push[0].view == "days=90&alarm=none");
    BOOST_TEST(push[1].target == "phone");
    BOOST_TEST(push[1].view.empty());
}

BOOST_AUTO_TEST_CASE(the_rate_defaults_to_300_a_minute_and_a_password_file_loses_its_newline) {
    auto const file = std::filesystem::temp_directory_path() / "icsbridge-config-target-pw";
    std::ofstream(file) << "from-file\n";
    auto r = parse(base + target + "password_file = \"" + file.string() + "\"\n");
    std::filesystem::remove(file);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST(r->targets.at("family").password == "from-file");
    BOOST_TEST((r->targets.at("family").rate == default_target_rate));
}

BOOST_AUTO_TEST_CASE(mistakes_point_at_the_offending_part_and_never_show_the_password) {
    struct Case {
        std::string text;
        char const* message;
    };
    Case const cases[] = {
        {base + "push = [\"famly\"]\n" + target + "password = \"hunter2\"\n",
         "t.toml:8:9: unknown target 'famly' in push; did you mean 'family'?"},
        {base + "push = [\"family\", \"family\"]\n" + target + "password = \"hunter2\"\n",
         "t.toml:8:19: push lists target 'family' twice"},
        {base + "push = [\"x\"]\n",
         "t.toml:8:9: unknown target 'x' in push (no [targets.NAME] table is defined)"},
        {base + "push = [{ view = \"days=9\" }]\n", "t.toml:8:9: a push entry needs target = \"NAME\""},
        {base + "push = [3]\n",
         "t.toml:8:9: push lists target names or { target = \"NAME\", view = \"days=90\" } tables, not an "
         "integer"},
        {base + target + "password = \"hunter2\"\nrate = \"lots\"\n",
         "t.toml:13:8: rate = \"lots\" is not a request rate: use requests/period, e.g. \"300/m\" or "
         "\"20/1s\""},
        {base + target + "password = \"hunter2\"\npassword_file = \"/nope\"\n",
         "t.toml:13:1: give one of password, password_env or password_file in [targets.family]"},
        {base + target + "password_env = \"NOPE\"\n",
         "t.toml:12:16: environment variable NOPE (password_env of [targets.family]) is not set"},
        {base + target, "t.toml:8:1: [targets.family] needs password, password_env or password_file"},
        {base + "[targets.family]\ntype = \"outlook\"\n",
         "t.toml:9:8: type = \"outlook\" is not one of: caldav, google, microsoft"},
        {base + "[targets.family]\ntyp = \"caldav\"\n",
         "t.toml:9:1: unknown key 'typ' in [targets.family]; did you mean 'type'?"},
        {base + "[targets.family]\nurl = \"https://dav.example.org/\"\n",
         "t.toml:8:1: [targets.family] needs type = \"caldav\", \"google\" or \"microsoft\""},
        {base + "[targets.family]\ntype = \"caldav\"\n", "t.toml:8:1: [targets.family] needs url"},
        {base + target + "password = \"hunter2\"\npasword = \"x\"\n",
         "t.toml:13:1: unknown key 'pasword' in [targets.family]; did you mean 'password'?"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text) {
            auto r = parse(c.text);
            // A secret this environment lacks is no mistake in the file: the config loads and names it.
            if (r && !r->missing_secrets.empty())
                r = fail(errc::config_invalid, r->missing_secrets.front().message);
            BOOST_TEST_REQUIRE(!r.has_value());
            std::string const want = c.message;
            // A message ending in ": " only pins the position (the view parser words the rest).
            if (want.ends_with(": "))
                BOOST_TEST(r.error().message.starts_with(want), r.error().message);
            else
                BOOST_TEST(r.error().message == want);
            BOOST_TEST(r.error().message.find("hunter2") == std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(two_targets_naming_one_calendar_are_refused_at_both_tables) {
    // The same collection spelt another way (host case, default port, no trailing slash).
    auto const phone = "[targets.phone]\ntype = \"caldav\"\nurl = \"https://DAV.example.org:443/dav\"\n"
                       "username = \"bob\"\npassword = \"p\"\n";
    auto r = parse(base + "push = [\"family\"]\n" + target + "password = \"hunter2\"\n" + phone);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(
        r.error().message.starts_with(
            "t.toml:14:1: [targets.phone] writes into the same calendar as [targets.family] (t.toml:9:1, "
        ),
        r.error().message
    );
    // Another calendar of the same server is another calendar.
    auto other = parse(
        base + "push = [\"family\"]\n" + target + "password = \"hunter2\"\n" + phone + "calendar = \"Work\"\n"
    );
    BOOST_TEST_REQUIRE(other.has_value(), (other ? "" : other.error().message));
    // A calendar found by its display name under the server's root is the user's: another user's "Work"
    // is another calendar, the same user's the same.
    auto const root = [](std::string const& name, std::string const& user) {
        return "[targets." + name +
               "]\ntype = \"caldav\"\nurl = \"https://dav.example.org/\"\nusername = \"" + user +
               "\"\npassword = \"p\"\ncalendar = \"Work\"\n";
    };
    auto two_users = parse(base + "push = [\"a\"]\n" + root("a", "alice") + root("b", "bob"));
    BOOST_TEST(two_users.has_value(), (two_users ? "" : two_users.error().message));
    auto one_user = parse(base + "push = [\"a\"]\n" + root("a", "alice") + root("b", "alice"));
    BOOST_TEST_REQUIRE(!one_user.has_value());
    BOOST_TEST(
        one_user.error().message.starts_with("t.toml:15:1: [targets.b] writes into the same calendar as "
                                             "[targets.a] (t.toml:9:1, "),
        one_user.error().message
    );
    // Google: one calendar id is one calendar, whoever signs in; "primary" or a name is each account's own.
    auto const google = [](std::string const& name, std::string const& calendar) {
        return "[targets." + name + "]\ntype = \"google\"\nclient_id = \"c\"\ncalendar = \"" + calendar +
               "\"\n";
    };
    for (std::string const calendar : {"primary", "Work"}) {
        auto r = parse(base + "push = [\"a\"]\n" + google("a", calendar) + google("b", calendar));
        BOOST_TEST(r.has_value(), calendar << ": " << (r ? "" : r.error().message));
    }
    auto same_id = parse(
        base + "push = [\"a\"]\n" + google("a", "abc@group.calendar.google.com") +
        google("b", "abc@group.calendar.google.com")
    );
    BOOST_TEST_REQUIRE(!same_id.has_value());
    BOOST_TEST(
        same_id.error().message.starts_with("t.toml:13:1: [targets.b] writes into the same calendar as "
                                            "[targets.a] (t.toml:9:1, calendar_id \"abc@group"),
        same_id.error().message
    );
}

BOOST_AUTO_TEST_CASE(a_google_target_gets_the_providers_endpoints_and_rate_unless_told) {
    auto r = parse(
        base + "push = [\"work\"]\n[targets.work]\ntype = \"google\"\nclient_id = "
               "\"123.apps.googleusercontent.com\"\n"
               "client_secret_env = \"GOOGLE_SECRET\"\ncalendar = \"Eventbrite\"\n"
    );
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    auto const& t = r->targets.at("work");
    BOOST_TEST((t.type == TargetType::google));
    BOOST_TEST(t.client_id == "123.apps.googleusercontent.com");
    BOOST_TEST(t.client_secret == "g-secret-env");
    BOOST_TEST(t.calendar == "Eventbrite");
    BOOST_TEST(t.calendar_id.empty());
    BOOST_TEST(t.api_base == "https://www.googleapis.com/calendar/v3");
    BOOST_TEST(t.auth_url == "https://accounts.google.com/o/oauth2/v2/auth");
    BOOST_TEST(t.token_url == "https://oauth2.googleapis.com/token");
    BOOST_TEST(t.rate.calls == 500u);
    BOOST_TEST(t.rate.period.count() == 60);
    BOOST_TEST(t.max_concurrency == 4);
    BOOST_TEST(config_warnings(*r).empty());
}

BOOST_AUTO_TEST_CASE(a_google_calendar_that_is_an_address_or_primary_is_an_id) {
    std::string const head = base + "[targets.work]\ntype = \"google\"\nclient_id = \"c\"\n";
    for (std::string const id : {"primary", "abc123@group.calendar.google.com"}) {
        auto r = parse(head + "calendar = \"" + id + "\"\n");
        BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
        BOOST_TEST(r->targets.at("work").calendar_id == id);
        BOOST_TEST(r->targets.at("work").calendar.empty());
    }
    auto by_id = parse(head + "calendar_id = \"abc\"\n");
    BOOST_TEST_REQUIRE(by_id.has_value(), (by_id ? "" : by_id.error().message));
    BOOST_TEST(by_id->targets.at("work").calendar_id == "abc");
}

BOOST_AUTO_TEST_CASE(a_microsoft_target_puts_its_tenant_in_the_authority_and_takes_given_urls) {
    auto const file = std::filesystem::temp_directory_path() / "icsbridge-config-target-client-secret";
    std::ofstream(file) << "from-file\n";
    auto r = parse(
        base +
        "[targets.office]\ntype = \"microsoft\"\nclient_id = \"0b1c\"\ntenant = \"contoso.onmicrosoft.com\"\n"
        "calendar = \"primary\"\nclient_secret_file = \"" +
        file.string() +
        "\"\n[targets.fake]\ntype = \"microsoft\"\nclient_id = \"x\"\ncalendar_id = \"AAMk\"\nrate = "
        "\"20/1s\"\n"
        "api_base = \"http://127.0.0.1:7000/v1.0/\"\nauth_url = \"http://127.0.0.1:7000/oauth/authorize\"\n"
        "token_url = \"http://127.0.0.1:7000/oauth/token\"\n"
    );
    std::filesystem::remove(file);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    auto const& t = r->targets.at("office");
    BOOST_TEST(t.tenant == "contoso.onmicrosoft.com");
    BOOST_TEST(t.client_secret == "from-file");
    // For Microsoft, "primary" is a calendar's name like any other.
    BOOST_TEST(t.calendar == "primary");
    BOOST_TEST(t.api_base == "https://graph.microsoft.com/v1.0");
    BOOST_TEST(
        t.auth_url == "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize"
    );
    BOOST_TEST(t.token_url == "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token");
    BOOST_TEST(t.rate.calls == 500u);
    auto const& f = r->targets.at("fake");
    BOOST_TEST(f.tenant == "common");
    BOOST_TEST(f.calendar_id == "AAMk");
    BOOST_TEST(f.api_base == "http://127.0.0.1:7000/v1.0");
    BOOST_TEST(f.token_url == "http://127.0.0.1:7000/oauth/token");
    BOOST_TEST(f.rate.calls == 20u);
    // Plain http:// to loopback is the tests' fake: no warning (besides these targets having no feed).
    BOOST_TEST(besides_unused(config_warnings(*r)).empty());
}

BOOST_AUTO_TEST_CASE(a_client_secret_in_the_file_and_a_plain_http_token_url_are_warned_about) {
    auto const path = std::filesystem::temp_directory_path() / "icsbridge-config-target-warn.toml";
    // The source's token is in the environment here, so the client secret alone makes the file secret.
    std::ofstream(path
    ) << base.substr(0, base.find("token = "))
      << "token_env = \"T\"\n"
      << base.substr(base.find("[feeds.ev]"))
      << "[targets.work]\ntype = \"google\"\nclient_id = \"c\"\nclient_secret = \"hunter2\"\n"
         "calendar = \"E\"\ntoken_url = \"http://auth.example.org/token\"\n";
    std::filesystem::permissions(path, std::filesystem::perms(0644));
    auto r = load_config(path.string(), test::env_of({{"T", "t"}}));
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST(r->secrets_in_file);
    auto const w = besides_unused(config_warnings(*r)); // reads the file's mode
    std::filesystem::remove(path);
    BOOST_TEST_REQUIRE(w.size() == 2u);
    BOOST_TEST(w[0].find("holds secrets") != std::string::npos, w[0]);
    BOOST_TEST(
        w[1] ==
        "[targets.work] token_url is plain http:// to auth.example.org: the refresh token and client secret "
        "cross the network unencrypted; use https://"
    );
    for (auto const& line : w)
        BOOST_TEST(line.find("hunter2") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(oauth_mistakes_point_at_the_offending_key_and_never_show_the_secret) {
    struct Case {
        std::string text;
        char const* message;
    };
    std::string const g = base + "[targets.work]\ntype = \"google\"\n";
    std::string const m = base + "[targets.work]\ntype = \"microsoft\"\n";
    Case const cases[] = {
        {g + "calendar = \"E\"\n",
         "t.toml:8:1: [targets.work] needs client_id (the id of your OAuth client; the README's \"Connecting "
         "Google Calendar and Microsoft 365\" says how to make one)"},
        {g + "client_id = \"c\"\n",
         "t.toml:8:1: [targets.work] needs calendar (a calendar's name: found, or created if missing) or "
         "calendar_id (an existing calendar's id, or \"primary\")"},
        {g + "client_id = \"c\"\ncalendar = \"E\"\ncalendar_id = \"primary\"\n",
         "t.toml:12:1: give calendar or calendar_id in [targets.work], not both"},
        {g + "client_id = \"c\"\ncalendar = \"E\"\nusername = \"alice\"\n",
         "t.toml:12:1: 'username' is not valid in [targets.work] (a google target signs in over OAuth: "
         "client_id, "
         "then icsbridge connect; url, username and password are keys of caldav targets, tenant of microsoft "
         "ones)"},
        {g + "client_id = \"c\"\ncalendar = \"E\"\ntenant = \"common\"\n",
         "t.toml:12:1: 'tenant' is not valid in [targets.work] (a google target signs in over OAuth: "
         "client_id, "
         "then icsbridge connect; url, username and password are keys of caldav targets, tenant of microsoft "
         "ones)"},
        {m + "client_id = \"c\"\ncalendar = \"E\"\npassword = \"hunter2\"\n",
         "t.toml:12:1: 'password' is not valid in [targets.work] (a microsoft target signs in over OAuth: "
         "client_id, then icsbridge connect; url, username and password are keys of caldav targets)"},
        {m + "client_id = \"c\"\ncalendar = \"E\"\ntenant = \"../evil\"\n",
         "t.toml:12:10: tenant = \"../evil\" is not a tenant: use common, organizations, consumers, a "
         "directory "
         "(tenant) id or a domain such as contoso.onmicrosoft.com"},
        {m + "client_id = \"c\"\ncalendar = \"E\"\ntoken_url = \"ftp://x/token\"\n",
         "t.toml:12:13: token_url must start with http:// or https://"},
        {m + "client_id = \"c\"\ncalendar = \"E\"\nclient_secret = \"hunter2\"\nclient_secret_env = \"X\"\n",
         "t.toml:13:1: give either client_secret or client_secret_env in [targets.work], not both"},
        {m + "client_id = \"c\"\ncalendar = \"E\"\nclient_secret = \"hunter2\"\nclient_secret_file = "
             "\"/x\"\n",
         "t.toml:13:1: give one of client_secret, client_secret_env or client_secret_file in [targets.work]"},
        {m + "client_id = \"c\"\ncalendar = \"E\"\nclient_secret_env = \"NOPE\"\n",
         "t.toml:12:21: environment variable NOPE (client_secret_env of [targets.work]) is not set"},
        {m + "client_id = \"c\"\ncalendar = \"E\"\nclient_scret = \"hunter2\"\n",
         "t.toml:12:1: unknown key 'client_scret' in [targets.work]; did you mean 'client_secret'?"},
        {base + target + "password = \"hunter2\"\nclient_id = \"c\"\n",
         "t.toml:13:1: 'client_id' is not valid in [targets.family] (it is a key of google and microsoft "
         "targets)"},
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

BOOST_AUTO_TEST_CASE(a_push_view_is_checked_by_the_views_parser_at_its_file_line_col) {
    auto r = parse(
        base + "push = [{ target = \"family\", view = \"days=soon\" }]\n" + target + "password = \"x\"\n"
    );
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    auto const checked = push::check_push_views(*r);
    BOOST_TEST_REQUIRE(!checked.has_value());
    BOOST_TEST(
        checked.error().message.starts_with("t.toml:8:37: view = \"days=soon\": "),
        checked.error().message
    );
    r->feeds[0].push[0].view = "days=90&alarm=none";
    BOOST_TEST(push::check_push_views(*r).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
