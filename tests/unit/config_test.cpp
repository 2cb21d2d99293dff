// File: config_test.cpp
// The config loader: a full valid file, and one fixture per kind of mistake with its exact FILE:LINE:COL.
#include "support/config_text.hpp"
#include "support/fixtures.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/store.hpp>

#include <boost/test/unit_test.hpp>

#include <map>
#include <string>

using namespace icsbridge;
using namespace std::chrono_literals;
using icsbridge::test::fixture_path;

namespace config_test {

using test::env_of;

EnvLookup test_env() {
    return env_of({{"TEST_EVENTS_TOKEN", "env-bearer-token"}, {"EVENTS_TOKEN", "x"}});
}

struct Mistake {
    char const* file;     // under tests/fixtures/configs/
    char const* position; // "LINE:COL"
    char const* says;     // a part of the message
};

// One per kind of mistake the loader must catch, with where it must point.
Mistake const mistakes[] = {
    {"invalid_syntax.toml", "2:25", "string"},
    {"invalid_top_level.toml", "4:2", "unknown key 'feed' in the top level; did you mean 'feeds'?"},
    {"invalid_unknown_key.toml", "9:1", "unknown key 'tilte' in [feeds.a]; did you mean 'title'?"},
    {"invalid_unknown_source.toml", "7:10", "unknown source 'ebb' in [feeds.a]; did you mean 'eb'?"},
    {"invalid_token_and_env.toml", "5:1", "give either token or token_env in [sources.eb], not both"},
    {"invalid_no_token.toml", "1:1", "[sources.jobs] needs api_key or api_key_env"},
    {"invalid_wrong_secret_key.toml",
     "4:1",
     "'token' is not valid in [sources.jobs] (a jobs source takes api_key"},
    {"invalid_duration.toml", "9:11", "refresh = \"15 minutes\" is not a duration"},
    {"invalid_duration_zero.toml", "9:9", "alarm = \"0s\" is not a duration"},
    {"invalid_duration_negative.toml", "9:11", "refresh = \"-1m\" is not a duration"},
    {"invalid_feed_name.toml", "6:8", "feed name 'my events' may only contain letters, digits"},
    {"invalid_select.toml",
     "8:10",
     "select = \"recent\" does not fit events source 'eb'; use one of: organizer, "
     "organization, search"},
    {"invalid_listen.toml", "2:10", "listen = \"localhost\" is not host:port"},
    {"invalid_public_url.toml", "3:14", "public_url must start with http:// or https://"},
    {"invalid_threads.toml", "2:11", "threads must be between 1 and 1024, not 0"},
    {"invalid_cancelled.toml", "9:13", "cancelled = \"hide\" is not one of: status, prefix, drop"},
    {"invalid_jobs_as.toml", "9:11", "jobs_as = \"vjournal\" is not one of: vtodo, vevent, both"},
    {"invalid_wrong_source_kind.toml",
     "9:1",
     "'due_after' is not valid in [feeds.a] (it applies only to feeds of a "
     "jobs source"},
    {"invalid_params.toml", "9:33", "params.online must be a string or an integer, not a boolean"},
    {"invalid_tokens.toml", "9:32", "tokens.bob must be a string, not an integer"},
    {"invalid_window.toml", "9:1", "window applies only to select = \"search\""},
    {"invalid_organization_id.toml", "9:1", "organization_id applies only to select = \"organization\""},
    {"invalid_ticket_classes.toml", "9:18", "ticket_classes must be a boolean, not a string"},
    {"invalid_timeout.toml", "5:11", "timeout must be a duration string"},
    {"invalid_max_concurrency.toml", "5:19", "max_concurrency must be between 1 and 64, not 100"},
    {"invalid_max_response_mb.toml", "5:19", "max_response_mb must be between 1 and 1024, not 0"},
    {"invalid_ca_file.toml", "5:11", "ca_file \"/nonexistent/icsbridge-ca.pem\" cannot be read"},
    {"invalid_base_url.toml", "3:12", "base_url must be an absolute URL starting with http:// or https://"},
    {"invalid_source_type.toml", "2:8", "type = \"meetup\" is not one of: events, jobs"},
    {"invalid_missing_select.toml",
     "6:1",
     "[feeds.a] needs select = one of: organizer, organization, search"},
};

} // namespace config_test

BOOST_AUTO_TEST_SUITE(config_test)

BOOST_AUTO_TEST_CASE(valid_file_sets_every_key) {
    // Run
    auto r = load_config(fixture_path("configs/valid.toml"), test_env());

    // Check
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    Config const& c = *r;
    BOOST_TEST(c.path == fixture_path("configs/valid.toml"));
    BOOST_TEST(c.server.host == "0.0.0.0");
    BOOST_TEST(c.server.port == 9090);
    BOOST_TEST(c.server.public_url == "https://cal.example.org");
    BOOST_TEST(c.server.threads == 3);
    BOOST_TEST(!c.server.gzip);
    BOOST_TEST(c.server.max_connections == 200u);
    BOOST_TEST(c.server.request_timeout.count() == 5);
    BOOST_TEST(c.server.idle_timeout.count() == 120);
    BOOST_TEST(c.storage.dir == "/tmp/icsbridge-valid");

    BOOST_TEST_REQUIRE(c.sources.size() == 2u);
    SourceConfig const& eb = c.sources.at("eb");
    BOOST_TEST(eb.name == "eb");
    BOOST_TEST((eb.type == SourceType::events));
    BOOST_TEST(eb.base_url == "https://events.example.com");
    BOOST_TEST(eb.secret == "env-bearer-token");
    BOOST_TEST(eb.user_agent == "test-agent/1");
    BOOST_TEST(eb.timeout.count() == 30000);
    BOOST_TEST(eb.max_concurrency == 8);
    BOOST_TEST(eb.max_response_mb == 64);
    SourceConfig const& jobs = c.sources.at("jobs");
    BOOST_TEST((jobs.type == SourceType::jobs));
    BOOST_TEST(jobs.base_url == "http://127.0.0.1:8081/prefix");
    BOOST_TEST(jobs.secret == "inline-api-key");
    BOOST_TEST(jobs.timeout.count() == 20000);
    BOOST_TEST(jobs.max_concurrency == 4);
    BOOST_TEST(jobs.max_response_mb == 32);

    // Feeds keep file order, not the TOML library's sorted order.
    BOOST_TEST_REQUIRE(c.feeds.size() == 5u);
    BOOST_TEST(c.feeds[0].name == "my-events");
    BOOST_TEST(c.feeds[1].name == "org_events");
    BOOST_TEST(c.feeds[2].name == "sf.tech");
    BOOST_TEST(c.feeds[3].name == "design-jobs");
    BOOST_TEST(c.feeds[4].name == "recent-jobs");

    FeedConfig const& mine = c.feeds[0];
    BOOST_TEST(mine.line == 28);
    BOOST_TEST(mine.source == "eb");
    BOOST_TEST(mine.select == "organizer");
    BOOST_TEST(mine.title == "My events");
    BOOST_TEST(mine.description == "Everything I organise");
    BOOST_TEST(mine.refresh.count() == 5400);
    BOOST_TEST_REQUIRE(mine.alarm.has_value());
    BOOST_TEST(mine.alarm->count() == 3600);
    BOOST_TEST((mine.cancelled == CancelledPolicy::prefix));
    BOOST_TEST(mine.ticket_classes);
    BOOST_TEST(mine.token == "feed-secret");
    BOOST_TEST(!mine.is_public());

    FeedConfig const& org = c.feeds[1];
    BOOST_TEST(org.title == "org_events");
    BOOST_TEST(org.organization_id == "12345");
    BOOST_TEST((org.cancelled == CancelledPolicy::drop));
    BOOST_TEST(org.refresh.count() == 900);
    BOOST_TEST(!org.alarm.has_value());
    BOOST_TEST(org.tokens.size() == 2u);
    BOOST_TEST(org.tokens.at("alice") == "secret-1");
    BOOST_TEST(org.tokens.at("phone") == "secret-2");

    FeedConfig const& sf = c.feeds[2];
    BOOST_TEST_REQUIRE(sf.window.has_value());
    BOOST_TEST(sf.window->count() == 90 * 86400);
    BOOST_TEST(sf.is_public());
    // Params keep file order; integers become text.
    using P = std::pair<std::string, std::string>;
    std::vector<P> const expected_params{
        {"q", "rust"},
        {"location.address", "San Francisco"},
        {"location.within", "25mi"},
        {"categories", "102"}};
    BOOST_TEST((sf.params == expected_params));

    FeedConfig const& design = c.feeds[3];
    BOOST_TEST(design.source == "jobs");
    BOOST_TEST(design.due_after.count() == 14 * 86400);
    BOOST_TEST((design.jobs_as == JobsAs::both));
    FeedConfig const& recent = c.feeds[4];
    BOOST_TEST(recent.select == "recent");
    BOOST_TEST(recent.due_after.count() == 30 * 86400);
    BOOST_TEST((recent.jobs_as == JobsAs::vtodo));

    BOOST_TEST(c.find_feed("sf.tech") == &c.feeds[2]);
    BOOST_TEST(c.find_feed("nope") == nullptr);
    BOOST_TEST(c.find_source("jobs") == &jobs);
    BOOST_TEST(feed_url(c, sf) == "https://cal.example.org/feeds/sf.tech.ics");
}

BOOST_AUTO_TEST_CASE(empty_file_gives_defaults) {
    auto r = parse_config("", "empty.toml", env_of({}));
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->server.host == "127.0.0.1");
    BOOST_TEST(r->server.port == 8080);
    BOOST_TEST(r->server.public_url == "http://127.0.0.1:8080");
    BOOST_TEST(r->server.gzip);
    BOOST_TEST(r->storage.dir == "var/icsbridge");
    BOOST_TEST(r->feeds.empty());
}

BOOST_AUTO_TEST_CASE(public_url_defaults_to_the_listen_address) {
    auto r = parse_config("[server]\nlisten = \"[::1]:9000\"\n", "v6.toml", env_of({}));
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST(r->server.host == "::1");
    BOOST_TEST(r->server.public_url == "http://[::1]:9000");
}

BOOST_AUTO_TEST_CASE(each_mistake_is_reported_at_its_position) {
    for (auto const& m : mistakes) {
        BOOST_TEST_CONTEXT(m.file) {
            std::string const path = fixture_path(std::string("configs/") + m.file);

            // Run
            auto r = load_config(path, test_env());

            // Check
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST((r.error().code == errc::config_invalid));
            std::string const& msg = r.error().message;
            std::string const prefix = path + ":" + m.position + ": ";
            BOOST_TEST(msg.substr(0, prefix.size()) == prefix);
            BOOST_TEST(msg.find(m.says) != std::string::npos, msg);
            BOOST_TEST(msg.find('\n') == std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(structural_mistakes_point_at_the_value) {
    struct Case {
        char const* text;
        char const* message; // the whole expected message
    };
    Case const cases[] = {
        {"feeds = 3\n", "t.toml:1:9: feeds must be a table ([feeds])"},
        {"[[feeds]]\nsource = \"eb\"\n", "t.toml:1:1: feeds must be a table ([feeds])"},
        {"[server]\nlisten = \"127.0.0.1:70000\"\n",
         "t.toml:2:10: listen = \"127.0.0.1:70000\" is not host:port "
         "(e.g. \"127.0.0.1:8080\", \"[::1]:8080\")"},
        {"[server]\nlisten = \"::1:80\"\n",
         "t.toml:2:10: listen = \"::1:80\" is not host:port (e.g. "
         "\"127.0.0.1:8080\", \"[::1]:8080\")"},
        {"[sources]\neb = \"events\"\n", "t.toml:2:6: sources.eb must be a table ([sources.eb])"},
        {"[sources.eb]\ntype = \"events\"\ntoken = \"t\"\n",
         "t.toml:1:1: [sources.eb] needs base_url (e.g. \"https://events.example.com\")"},
        {"[sources.eb]\ntype = \"events\"\nbase_url = \"https://u:p@e.example\"\ntoken = \"t\"\n",
         "t.toml:3:12: base_url must not carry a user name or password"},
        {"[sources.eb]\ntype = \"events\"\nbase_url = \"https://e.example/?a=1\"\ntoken = \"t\"\n",
         "t.toml:3:12: base_url must not have a query or fragment"},
        {"[feeds.a]\nselect = \"search\"\n",
         "t.toml:1:1: [feeds.a] needs source = \"NAME\" (one of the "
         "[sources.NAME] tables), or merge = [\"FEED\", ...]"},
        {"[feeds.a]\nsource = \"eb\"\n",
         "t.toml:2:10: unknown source 'eb' in [feeds.a] (no [sources.NAME] table "
         "is defined)"},
        {"[storage]\ndir = \"\"\n", "t.toml:2:7: dir must not be empty"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text) {
            auto r = parse_config(c.text, "t.toml", env_of({}));
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST(r.error().message == c.message);
        }
    }
}

BOOST_AUTO_TEST_CASE(empty_environment_variable_is_a_missing_secret) {
    auto r = load_config(
        fixture_path("configs/invalid_missing_env.toml"),
        env_of({{"ICSBRIDGE_TEST_UNSET_TOKEN", ""}})
    );
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST_REQUIRE(r->missing_secrets.size() == 1u);
    BOOST_TEST(r->missing_secrets[0].owner == "[sources.eb]");
    BOOST_TEST(
        r->missing_secrets[0].message ==
        fixture_path("configs/invalid_missing_env.toml") +
            ":4:13: environment variable ICSBRIDGE_TEST_UNSET_TOKEN (token_env of [sources.eb]) is empty"
    );
}

BOOST_AUTO_TEST_CASE(messages_never_contain_a_secret) {
    // A secret of the wrong type and a repeated subscriber secret: the message names the key, not the value.
    std::string const text =
        "[sources.eb]\ntype = \"events\"\nbase_url = \"https://e.example\"\ntoken = \"t\"\n"
        "[feeds.a]\nsource = \"eb\"\nselect = \"organizer\"\n"
        "tokens = { alice = \"hunter2-secret\", bob = \"hunter2-secret\" }\n";
    auto r = parse_config(text, "dup.toml", env_of({}));
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message.find("repeats another subscriber's secret") != std::string::npos);
    BOOST_TEST(r.error().message.find("hunter2") == std::string::npos);

    auto env = parse_config(
        "[sources.eb]\ntype = \"events\"\nbase_url = \"https://e.example\"\ntoken_env = \"TOK\"\n"
        "[feeds.a]\nsource = \"eb\"\nselect = \"nope\"\n",
        "env.toml",
        env_of({{"TOK", "env-secret-value"}})
    );
    BOOST_TEST_REQUIRE(!env.has_value());
    BOOST_TEST(env.error().message.find("env-secret-value") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(admin_token_inline_or_from_the_environment) {
    auto inline_ = parse_config("[server]\nadmin_token = \"adm-1\"\n", "a.toml", env_of({}));
    BOOST_TEST_REQUIRE(inline_.has_value());
    BOOST_TEST(inline_->server.admin_token == "adm-1");
    auto env = parse_config("[server]\nadmin_token_env = \"ADM\"\n", "a.toml", env_of({{"ADM", "adm-2"}}));
    BOOST_TEST_REQUIRE(env.has_value());
    BOOST_TEST(env->server.admin_token == "adm-2");
    auto none = parse_config("[server]\n", "a.toml", env_of({}));
    BOOST_TEST_REQUIRE(none.has_value());
    BOOST_TEST(none->server.admin_token.empty());
    auto both = parse_config(
        "[server]\nadmin_token = \"adm-3\"\nadmin_token_env = \"ADM\"\n",
        "a.toml",
        env_of({{"ADM", "x"}})
    );
    BOOST_TEST_REQUIRE(!both.has_value());
    BOOST_TEST(both.error().message.find("adm-3") == std::string::npos);
    // Unset: a missing secret of [server], which only serve and check need.
    auto unset = parse_config("[server]\nadmin_token_env = \"ADM\"\n", "a.toml", env_of({}));
    BOOST_TEST_REQUIRE(unset.has_value());
    BOOST_TEST_REQUIRE(unset->missing_secrets.size() == 1u);
    BOOST_TEST(unset->missing_secrets[0].owner == "[server]");
    BOOST_TEST(unset->missing_secrets[0].message.find("ADM") != std::string::npos);
    BOOST_TEST(!parse_config("[server]\nadmin_token = \"\"\n", "a.toml", env_of({})).has_value());
}

BOOST_AUTO_TEST_CASE(feed_names_are_limited_so_their_snapshot_can_be_written) {
    // Issue 29.5: a 250-character name passed check, then every snapshot write failed (File name too long).
    auto with_name = [](std::string const& name) {
        return parse_config(
            "[sources.eb]\ntype = \"events\"\nbase_url = \"https://e.example\"\ntoken = \"t\"\n[feeds." +
                name + "]\nsource = \"eb\"\nselect = \"organizer\"\n",
            "n.toml",
            env_of({})
        );
    };
    std::string const longest(128, 'n'); // the documented limit
    auto ok = with_name(longest);
    BOOST_TEST_REQUIRE(ok.has_value(), (ok ? "" : ok.error().message));
    // The longest allowed name's snapshot really is writable.
    test::TempDir dir;
    Snapshot snap;
    snap.body = std::string("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n");
    auto saved = save_snapshot(dir.path(), longest, snap, std::nullopt);
    BOOST_TEST(saved.has_value(), (saved ? "" : saved.error().message));

    auto bad = with_name(std::string(250, 'n'));
    BOOST_TEST_REQUIRE(!bad.has_value());
    BOOST_TEST(
        bad.error().message ==
        "n.toml:5:8: feed name 'nnnnnnnnnnnnnnnnnnnn...' is 250 characters long; the limit is 128"
    );
}

BOOST_AUTO_TEST_CASE(unreadable_file_is_a_config_error_at_1_1) {
    auto r = load_config("/nonexistent/icsbridge.toml", env_of({}));
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error().code == errc::config_invalid));
    BOOST_TEST(r.error().message.rfind("/nonexistent/icsbridge.toml:1:1: cannot read", 0) == 0);
}

BOOST_AUTO_TEST_SUITE_END()

// Reopened: the keys of an event feed's life (keep_past, max_items).
BOOST_AUTO_TEST_SUITE(config_test)

// Each `feed` stanza below follows this source; line 6 is the feed's first key.
std::string const life_source =
    "[sources.eb]\ntype = \"events\"\nbase_url = \"https://e.example\"\ntoken = \"t\"\n[feeds.a]\n";

BOOST_AUTO_TEST_CASE(keep_past_and_max_items_have_defaults_and_accept_zero_where_it_means_something) {
    auto r = parse_config(life_source + "source = \"eb\"\nselect = \"organizer\"\n", "t.toml", env_of({}));
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST((r->feeds[0].keep_past == std::chrono::days(30)));
    BOOST_TEST(r->feeds[0].max_items == 100000u);

    for (std::string zero : {"0s", "0m", "0h0m", "00d"}) {
        auto z = parse_config(
            life_source + "source = \"eb\"\nselect = \"organization\"\nkeep_past = \"" + zero +
                "\"\nmax_items = 5\n",
            "t.toml",
            env_of({})
        );
        BOOST_TEST_REQUIRE(z.has_value(), zero << ": " << z.error().message);
        BOOST_TEST((z->feeds[0].keep_past == std::chrono::seconds(0)));
        BOOST_TEST(z->feeds[0].max_items == 5u);
    }
    auto d = parse_config(
        life_source + "source = \"eb\"\nselect = \"organizer\"\nkeep_past = \"90d\"\n",
        "t.toml",
        env_of({})
    );
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST((d->feeds[0].keep_past == std::chrono::days(90)));
}

BOOST_AUTO_TEST_CASE(keep_past_and_max_items_mistakes_point_at_the_value) {
    struct Case {
        std::string feed;
        char const* message;
    };
    Case const cases[] = {
        {"source = \"eb\"\nselect = \"organizer\"\nkeep_past = \"0\"\n",
         "t.toml:8:13: keep_past = \"0\" is not a duration: use a positive number and a unit (s, m, h, d), "
         "e.g. \"15m\" or \"1h30m\""},
        {"source = \"eb\"\nselect = \"organizer\"\nkeep_past = \"-1d\"\n",
         "t.toml:8:13: keep_past = \"-1d\" is not a duration: use a positive number and a unit (s, m, h, d), "
         "e.g. \"15m\" or \"1h30m\""},
        {"source = \"eb\"\nselect = \"search\"\nkeep_past = \"1d\"\n",
         "t.toml:8:1: keep_past applies only to select = \"organizer\" or \"organization\" (a search keeps "
         "its window)"},
        {"source = \"eb\"\nselect = \"organizer\"\nmax_items = 0\n",
         "t.toml:8:13: max_items must be between 1 and 10000000, not 0"},
        {"source = \"eb\"\nselect = \"organizer\"\nmax_items = \"many\"\n",
         "t.toml:8:13: max_items must be an integer, not a string"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.feed) {
            auto r = parse_config(life_source + c.feed, "t.toml", env_of({}));
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST(r.error().message == c.message);
        }
    }
    // A jobs feed has no event life.
    auto j = parse_config(
        "[sources.j]\ntype = \"jobs\"\nbase_url = \"https://j.example\"\napi_key = \"k\"\n[feeds.a]\n"
        "source = \"j\"\nselect = \"recent\"\nkeep_past = \"1d\"\n",
        "t.toml",
        env_of({})
    );
    BOOST_TEST_REQUIRE(!j.has_value());
    BOOST_TEST(
        j.error().message.find("t.toml:8:1: 'keep_past' is not valid in [feeds.a]") == 0u,
        j.error().message
    );
}

BOOST_AUTO_TEST_CASE(webhook_secret_of_an_events_source_inline_or_from_the_environment) {
    std::string const head =
        "[sources.eb]\ntype = \"events\"\nbase_url = \"https://e.example\"\ntoken = \"t\"\n";
    auto none = parse_config(head, "h.toml", env_of({}));
    BOOST_TEST_REQUIRE(none.has_value(), (none ? "" : none.error().message));
    BOOST_TEST(none->sources.at("eb").webhook_secret.empty());

    auto inline_secret =
        parse_config(head + "webhook_secret = \"0123456789abcdef_-.~X\"\n", "h.toml", env_of({}));
    BOOST_TEST_REQUIRE(inline_secret.has_value(), (inline_secret ? "" : inline_secret.error().message));
    BOOST_TEST(inline_secret->sources.at("eb").webhook_secret == "0123456789abcdef_-.~X");

    auto env = parse_config(
        head + "webhook_secret_env = \"HOOK\"\n",
        "h.toml",
        env_of({{"HOOK", "fedcba9876543210fedcba"}})
    );
    BOOST_TEST_REQUIRE(env.has_value(), (env ? "" : env.error().message));
    BOOST_TEST(env->sources.at("eb").webhook_secret == "fedcba9876543210fedcba");

    struct Case {
        std::string text;
        char const* position;
        char const* says;
    };
    std::vector<Case> const cases = {
        {head + "webhook_secret = \"short-secret\"\n", "h.toml:5:18", "shorter than 16 characters"},
        {head + "webhook_secret = \"0123456789abcdef/x\"\n",
         "h.toml:5:18",
         "only letters, digits and - _ . ~"},
        {head + "webhook_secret = \"0123456789abcdef0\"\nwebhook_secret_env = \"HOOK\"\n",
         "h.toml:6:1",
         "give either webhook_secret or webhook_secret_env"},
        {head + "webhook_secret_env = \"UNSET_HOOK\"\n", "h.toml:5:22", "UNSET_HOOK"},
        {"[sources.j]\ntype = \"jobs\"\nbase_url = \"https://j.example\"\napi_key = \"k\"\n"
         "webhook_secret = \"0123456789abcdef0\"\n",
         "h.toml:5:1",
         "only events sources send webhooks"},
    };
    for (auto const& c : cases) {
        auto r = parse_config(c.text, "h.toml", env_of({}));
        // An unset variable is a missing secret (serve's alone), not a mistake in the file.
        if (r && !r->missing_secrets.empty())
            r = fail(errc::config_invalid, r->missing_secrets.front().message);
        BOOST_TEST_CONTEXT(c.text) {
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST(r.error().message.find(c.position) != std::string::npos, r.error().message);
            BOOST_TEST(r.error().message.find(c.says) != std::string::npos, r.error().message);
            // The value itself is never echoed.
            BOOST_TEST(r.error().message.find("0123456789abcdef") == std::string::npos, r.error().message);
            BOOST_TEST(r.error().message.find("short-secret") == std::string::npos, r.error().message);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
