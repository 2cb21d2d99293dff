// File: config_secrets_test.cpp
// Secrets per command: a config whose environment lacks some secrets loads, notes each with its table and
// FILE:LINE:COL, and a command fails only over the ones of the tables it touches.
#include "support/config_text.hpp"
#include <icsbridge/config.hpp>

#include <boost/test/unit_test.hpp>

#include <string>

using namespace icsbridge;

namespace config_secrets_test {

/** Only EVENTS_TOKEN is set: every other variable is missing. */
Result<Config> parse(std::string const& text) {
    return test::parse_config_text(text, "s.toml", {{"EVENTS_TOKEN", "events-secret"}, {"EMPTY", ""}});
}

// Two sources, a CalDAV target whose password file is not here, an admin token and a hook secret.
std::string const service = "[server]\n"                                          // 1
                            "admin_token_env = \"ADMIN_TOKEN\"\n"                 // 2
                            "[sources.events]\n"                                  // 3
                            "type = \"events\"\n"                                 // 4
                            "base_url = \"https://events.example.com\"\n"         // 5
                            "token_env = \"EVENTS_TOKEN\"\n"                      // 6
                            "webhook_secret_env = \"HOOK_SECRET\"\n"              // 7
                            "[sources.jobs]\n"                                    // 8
                            "type = \"jobs\"\n"                                   // 9
                            "base_url = \"https://jobs.example.com\"\n"           // 10
                            "api_key_env = \"JOBS_API_KEY\"\n"                    // 11
                            "[targets.family]\n"                                  // 12
                            "type = \"caldav\"\n"                                 // 13
                            "url = \"https://dav.example.org/cal/\"\n"            // 14
                            "username = \"me\"\n"                                 // 15
                            "password_file = \"/nonexistent/icsbridge-dav-pw\"\n" // 16
                            "[feeds.my-events]\n"                                 // 17
                            "source = \"events\"\n"                               // 18
                            "select = \"organizer\"\n"                            // 19
                            "push = [\"family\"]\n"                               // 20
                            "[feeds.design-jobs]\n"                               // 21
                            "source = \"jobs\"\n"                                 // 22
                            "select = \"recent\"\n"                               // 23
                            "[feeds.everything]\n"                                // 24
                            "merge = [\"my-events\", \"design-jobs\"]\n";         // 25

} // namespace config_secrets_test

BOOST_AUTO_TEST_SUITE(config_secrets_test)

BOOST_AUTO_TEST_CASE(a_config_lacking_secrets_loads_and_names_each_with_its_table) {
    // Run
    auto r = parse(service);

    // Check
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    auto const& m = r->missing_secrets;
    BOOST_TEST_REQUIRE(m.size() == 4u);
    BOOST_TEST(m[0].owner == "[server]");
    BOOST_TEST(
        m[0].message ==
        "s.toml:2:19: environment variable ADMIN_TOKEN (admin_token_env of [server]) is not set"
    );
    BOOST_TEST(m[1].owner == "[sources.events] webhook_secret");
    BOOST_TEST(
        m[1].message ==
        "s.toml:7:22: environment variable HOOK_SECRET (webhook_secret_env of [sources.events]) is not set"
    );
    BOOST_TEST(m[2].owner == "[sources.jobs]");
    BOOST_TEST(
        m[2].message ==
        "s.toml:11:15: environment variable JOBS_API_KEY (api_key_env of [sources.jobs]) is not set"
    );
    BOOST_TEST(m[3].owner == "[targets.family]");
    BOOST_TEST(m[3].message.starts_with(
        "s.toml:16:17: password_file \"/nonexistent/icsbridge-dav-pw\" of [targets.family] cannot be read: "
    ));
    BOOST_TEST(r->sources.at("events").secret == "events-secret");
    BOOST_TEST(r->sources.at("jobs").secret.empty());
}

BOOST_AUTO_TEST_CASE(a_command_needs_only_the_secrets_of_the_tables_it_touches) {
    // Setup
    auto r = parse(service);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    auto owners_of = [&](char const* feed) { return secret_owners_of_feed(*r, *r->find_feed(feed)); };

    // Run + Check: exporting the events feed needs EVENTS_TOKEN alone, not the hook secret
    BOOST_TEST(owners_of("my-events") == std::vector<std::string>{"[sources.events]"});
    BOOST_TEST(require_secrets(*r, owners_of("my-events")).has_value());
    auto jobs = require_secrets(*r, owners_of("design-jobs"));
    BOOST_TEST_REQUIRE(!jobs.has_value());
    BOOST_TEST((jobs.error().code == errc::config_invalid));
    BOOST_TEST(jobs.error().message.starts_with("s.toml:11:15: environment variable JOBS_API_KEY"));
    // A merged feed needs its parts' sources.
    auto merged = require_secrets(*r, owners_of("everything"));
    BOOST_TEST_REQUIRE(!merged.has_value());
    BOOST_TEST(merged.error().message.find("JOBS_API_KEY") != std::string::npos);
    auto push = require_secrets(*r, {"[targets.family]", "[sources.events]"});
    BOOST_TEST_REQUIRE(!push.has_value());
    BOOST_TEST(push.error().message.starts_with("s.toml:16:17: password_file"));
    BOOST_TEST(push.error().message.find('\n') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_service_needs_every_secret_and_is_told_how_it_gets_them) {
    auto r = parse(service);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));

    // Run
    auto all = require_all_secrets(*r);

    // Check: every one, a line each, then the secrets.env pattern
    BOOST_TEST_REQUIRE(!all.has_value());
    auto const& msg = all.error().message;
    for (char const* var : {"ADMIN_TOKEN", "HOOK_SECRET", "JOBS_API_KEY", "password_file"})
        BOOST_TEST(msg.find(var) != std::string::npos, var);
    BOOST_TEST(msg.find("4 secrets are missing") != std::string::npos, msg);
    BOOST_TEST(msg.find("/etc/icsbridge/secrets.env") != std::string::npos);
    BOOST_TEST(msg.find("events-secret") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_mistake_in_the_file_still_fails_whatever_is_missing) {
    // An empty variable is missing; the unknown key after it is a mistake every command refuses.
    auto r = parse(
        "[sources.jobs]\ntype = \"jobs\"\nbase_url = \"https://jobs.example.com\"\napi_key_env = \"EMPTY\"\n"
        "[feeds.a]\nsource = \"jobs\"\nselect = \"recent\"\ntilte = \"x\"\n"
    );
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message == "s.toml:8:1: unknown key 'tilte' in [feeds.a]; did you mean 'title'?");
}

BOOST_AUTO_TEST_CASE(a_cluster_without_its_database_url_still_reads_node_and_lease) {
    auto r = parse("[cluster]\ndatabase_url_env = \"DATABASE_URL\"\nnode = \"a-1\"\nlease = \"9s\"\n");
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST_REQUIRE(r->missing_secrets.size() == 1u);
    BOOST_TEST(r->missing_secrets[0].owner == "[cluster]");
    BOOST_TEST(r->cluster->node == "a-1");
    BOOST_TEST(r->cluster->lease.count() == 9);
    // A bad node is still a mistake.
    BOOST_TEST(!parse("[cluster]\ndatabase_url_env = \"DATABASE_URL\"\nnode = \"a b\"\n").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
