// File: config_dav_test.cpp
// This round's keys: [dav] (the CalDAV tree on or off, how long sync tokens last, WebDAV-Push), a feed's
// `color` (its collection's calendar-color) and a target's `max_response`, with their defaults and each
// mistake at its exact FILE:LINE:COL.
#include "support/config_text.hpp"
#include <icsbridge/config.hpp>

#include <boost/test/unit_test.hpp>

#include <string>

using namespace icsbridge;

namespace config_dav_test {

// Lines 1-7; each case's text starts on line 8.
std::string const base = "[sources.eb]\ntype = \"events\"\nbase_url = \"http://127.0.0.1:9\"\ntoken = \"t\"\n"
                         "[feeds.ev]\nsource = \"eb\"\nselect = \"organizer\"\n";

Result<Config> parse(std::string const& text) {
    return test::parse_config_text(base + text, "t.toml");
}

std::string const caldav = "[targets.fam]\ntype = \"caldav\"\nurl = \"https://dav.example/cal/\"\n"
                           "username = \"u\"\npassword = \"p\"\n";

} // namespace config_dav_test

BOOST_AUTO_TEST_SUITE(config_dav_test)

BOOST_AUTO_TEST_CASE(defaults_when_the_keys_are_absent) {
    using namespace config_dav_test;
    auto r = parse(caldav);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST(r->dav.enabled);
    BOOST_TEST(r->dav.history.count() == 30 * 24 * 3600);
    BOOST_TEST(r->dav.push);
    BOOST_TEST(r->dav.push_subject.empty());
    BOOST_TEST(!r->dav.push_allow_private);
    BOOST_TEST(r->feeds[0].color.empty());
    BOOST_TEST(r->targets.at("fam").max_response == std::size_t{32} * 1024 * 1024);
}

BOOST_AUTO_TEST_CASE(set_keys_are_read) {
    using namespace config_dav_test;
    auto r = parse(
        "color = \"#3a7bD5\"\n[feeds.m]\nmerge = [\"ev\"]\ncolor = \"#00ff00\"\n[dav]\nenabled = false\n"
        "history = \"2d\"\npush = false\npush_subject = \"mailto:ops@example.org\"\n"
        "push_allow_private = true\n" +
        caldav + "max_response = \"512 KiB\"\n"
    );
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST(!r->dav.enabled);
    BOOST_TEST(r->dav.history.count() == 2 * 24 * 3600);
    BOOST_TEST(!r->dav.push);
    BOOST_TEST(r->dav.push_subject == "mailto:ops@example.org");
    BOOST_TEST(r->dav.push_allow_private);
    BOOST_TEST(r->feeds[0].color == "#3A7BD5"); // upper case, as clients compare it
    BOOST_TEST(r->feeds[1].color == "#00FF00");
    BOOST_TEST(r->targets.at("fam").max_response == std::size_t{512} * 1024);
}

BOOST_AUTO_TEST_CASE(mistakes_point_at_the_value) {
    using namespace config_dav_test;
    struct Case {
        std::string text;
        char const* message;
    };
    Case const cases[] = {
        {"color = \"blue\"\n", "t.toml:8:9: color = \"blue\" is not a colour such as \"#3A7BD5\" (#RRGGBB)"},
        {"color = \"#12345g\"\n",
         "t.toml:8:9: color = \"#12345g\" is not a colour such as \"#3A7BD5\" (#RRGGBB)"},
        {"[dav]\nenabled = \"yes\"\n", "t.toml:9:11: enabled must be a boolean, not a string"},
        {"[dav]\nhistory = \"a month\"\n", "t.toml:9:11: history = \"a month\" is not a duration"},
        {"[dav]\nhistroy = \"1d\"\n", "t.toml:9:1: unknown key 'histroy' in [dav]; did you mean 'history'?"},
        {"[dav]\npush_subject = \"ops@example.org\"\n",
         "t.toml:9:16: push_subject = \"ops@example.org\" is not a mailto: or https:// URI"},
        {"[dav]\npush_subject = \"http://example.org/\"\n",
         "t.toml:9:16: push_subject = \"http://example.org/\" is not a mailto: or https:// URI"},
        {"[dav]\npush = \"on\"\n", "t.toml:9:8: push must be a boolean, not a string"},
        {"dav = 1\n", "t.toml:8:1: unknown key 'dav' in [feeds.ev]"},
        {caldav + "max_response = \"32MB\"\n",
         "t.toml:13:16: max_response must be a size from \"64KiB\" to \"1GiB\", such as \"32MiB\""},
        {caldav + "max_response = \"2GiB\"\n",
         "t.toml:13:16: max_response must be a size from \"64KiB\" to \"1GiB\", such as \"32MiB\""},
        {caldav + "max_response = 1000000\n",
         "t.toml:13:16: max_response must be a size from \"64KiB\" to \"1GiB\", such as \"32MiB\""},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text) {
            auto r = parse(c.text);
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST(r.error().message.substr(0, std::string(c.message).size()) == c.message);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
