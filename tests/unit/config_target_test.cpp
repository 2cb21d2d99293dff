// File: config_target_test.cpp
// [targets.NAME] and a feed's `push` in the config: what is read, the password from each of its three
// places (never in a message), and each mistake with its exact FILE:LINE:COL.
#include "push/push_views.hpp"
#include <icsbridge/config.hpp>

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

using namespace icsbridge;

namespace {

// Lines 1-7; each case's text starts on line 8.
std::string const base = "[sources.eb]\ntype = \"events\"\nbase_url = \"http://127.0.0.1:9\"\ntoken = \"t\"\n"
                         "[feeds.ev]\nsource = \"eb\"\nselect = \"organizer\"\n";
std::string const target = "[targets.family]\ntype = \"caldav\"\nurl = \"https://dav.example.org/dav\"\n"
                           "username = \"alice\"\n";

Result<Config> parse(std::string const& text) {
    return parse_config(text, "t.toml", [](std::string const& name) -> std::optional<std::string> {
        if (name == "DAV_PW")
            return "s3cret-env";
        return std::nullopt;
    });
}

} // namespace

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
        {base + target, "t.toml:8:1: [targets.family] needs password or password_env"},
        {base + "[targets.family]\ntype = \"google\"\n",
         "t.toml:9:8: type = \"google\" is not one of: caldav"},
        {base + "[targets.family]\ntype = \"caldav\"\n", "t.toml:8:1: [targets.family] needs url"},
        {base + target + "password = \"hunter2\"\npasword = \"x\"\n",
         "t.toml:13:1: unknown key 'pasword' in [targets.family]; did you mean 'password'?"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text) {
            auto r = parse(c.text);
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
