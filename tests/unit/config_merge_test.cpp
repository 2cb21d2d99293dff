// File: config_merge_test.cpp
// Merged feeds in the config: what a merge may list (other, fetched feeds, each once, in any file order)
// and which keys it takes, each mistake with its exact FILE:LINE:COL.
#include "support/config_text.hpp"
#include <icsbridge/config.hpp>

#include <boost/test/unit_test.hpp>

#include <string>

using namespace icsbridge;

namespace config_merge_test {

// Lines 1-7; each case's text starts on line 8.
std::string const base = "[sources.eb]\ntype = \"events\"\nbase_url = \"http://127.0.0.1:9\"\ntoken = \"t\"\n"
                         "[feeds.ev]\nsource = \"eb\"\nselect = \"organizer\"\n";

Result<Config> parse(std::string const& text) {
    return test::parse_config_text(base + text, "t.toml");
}

} // namespace config_merge_test

BOOST_AUTO_TEST_SUITE(config_merge_test)

BOOST_AUTO_TEST_CASE(mistakes_point_at_the_offending_part) {
    struct Case {
        char const* text;
        char const* message;
    };
    std::string const not_valid =
        " (a merged feed publishes its parts' items as they rendered them: set it "
        "on the parts; a merge takes only title, description, timezone, color, token/tokens, filter, "
        "alarm and push)";
    Case const cases[] = {
        {"[feeds.m1]\nmerge = [\"ev\"]\n[feeds.m2]\nmerge = [\"m1\"]\n",
         "t.toml:11:10: 'm1' in [feeds.m2] merge is itself a merged feed; list its parts instead (a merge of "
         "a merge, and so a loop, is not allowed)"},
        {"[feeds.a]\nmerge = [\"b\"]\n[feeds.b]\nmerge = [\"a\"]\n",
         "t.toml:9:10: 'b' in [feeds.a] merge is itself a merged feed; list its parts instead (a merge of a "
         "merge, and so a loop, is not allowed)"},
        {"[feeds.a]\nmerge = [\"ev\", \"a\"]\n",
         "t.toml:9:16: [feeds.a] merge lists the feed itself; list the feeds it is made of"},
        {"[feeds.a]\nmerge = [\"evv\"]\n",
         "t.toml:9:10: unknown feed 'evv' in [feeds.a] merge; did you mean 'ev'?"},
        {"[feeds.a]\nmerge = [\"zzzzzz\"]\n",
         "t.toml:9:10: unknown feed 'zzzzzz' in [feeds.a] merge (defined: ev, a)"},
        {"[feeds.a]\nsource = \"eb\"\nmerge = [\"ev\"]\n",
         "t.toml:9:1: give either source or merge in [feeds.a], not both: a merged feed is built from other "
         "feeds and never fetched"},
        {"[feeds.a]\nmerge = []\n",
         "t.toml:9:9: merge must list at least one feed, e.g. merge = [\"events\", \"jobs\"]"},
        {"[feeds.a]\nmerge = [\"ev\", \"ev\"]\n", "t.toml:9:16: merge lists 'ev' twice"},
        {"[feeds.a]\nmerge = [1]\n", "t.toml:9:10: merge must list feed names (non-empty strings)"},
        {"[feeds.a]\nmerge = \"ev\"\n", "t.toml:9:9: merge must be an array, not a string"},
        {"[feeds.a]\nmerge = [\"ev\"]\nselect = \"search\"\n",
         "t.toml:10:1: 'select' is not valid in [feeds.a]"},
        {"[feeds.a]\nmerge = [\"ev\"]\ncancelled = \"drop\"\n",
         "t.toml:10:1: 'cancelled' is not valid in [feeds.a]"},
        // The merge's own filter and alarm are read as a fetched feed's are, mistakes and all.
        {"[feeds.a]\nmerge = [\"ev\"]\nfilter = { keyword = [\"x\"] }\n",
         "t.toml:10:12: unknown key 'keyword' in [feeds.a].filter; did you mean 'keywords'?"},
        {"[feeds.a]\nmerge = [\"ev\"]\nfilter = { online = \"yes\" }\n",
         "t.toml:10:21: online must be a boolean, not a string"},
        {"[feeds.a]\nmerge = [\"ev\"]\nalarm = \"soon\"\n", "t.toml:10:9: "},
        {"[feeds.a]\nmerge = [\"ev\"]\nfilter = \"rust\"\n",
         "t.toml:10:10: filter must be a table, e.g. filter = { keywords = [\"rust\"] }"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.text) {
            auto r = parse(c.text);
            BOOST_TEST_REQUIRE(!r.has_value());
            std::string want = c.message;
            if (want.ends_with("is not valid in [feeds.a]"))
                want += not_valid;
            // A message ending in ": " only pins the position (the duration parser words the rest).
            if (want.ends_with(": "))
                BOOST_TEST(r.error().message.starts_with(want), r.error().message);
            else
                BOOST_TEST(r.error().message == want);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_merge_may_name_feeds_written_after_it) {
    auto r = parse("[feeds.all]\nmerge = [\"ev\", \"later\"]\ntitle = \"All\"\ntokens = { alice = \"s1\" }\n"
                   "[feeds.later]\nsource = \"eb\"\nselect = \"search\"\nrefresh = \"5m\"\n");
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    auto const* all = r->find_feed("all");
    BOOST_REQUIRE(all);
    BOOST_TEST(all->merge == std::vector<std::string>({"ev", "later"}));
    BOOST_TEST(all->title == "All");
    BOOST_TEST(!all->is_public());
    BOOST_TEST((all->refresh == std::chrono::minutes(5))); // the busiest part's
    BOOST_TEST(!r->find_feed("ev")->is_merged());
}

BOOST_AUTO_TEST_CASE(a_merge_takes_its_own_filter_and_alarm) {
    auto r = parse("[feeds.all]\nmerge = [\"ev\"]\nalarm = \"30m\"\n"
                   "filter = { categories = [\"Music\"], keywords = [\"jazz\"], exclude_keywords = [\"sold "
                   "out\"], online = false }\n");
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
    auto const* all = r->find_feed("all");
    BOOST_REQUIRE(all);
    BOOST_TEST((all->alarm == std::chrono::minutes(30)));
    BOOST_TEST(all->filter.categories == std::vector<std::string>{"Music"});
    BOOST_TEST(all->filter.keywords == std::vector<std::string>{"jazz"});
    BOOST_TEST(all->filter.exclude_keywords == std::vector<std::string>{"sold out"});
    BOOST_TEST((all->filter.online == false));
}

BOOST_AUTO_TEST_CASE(a_public_merge_of_a_token_feed_is_refused) {
    // Issue 29.4: a public merge served a token part's items to anyone (check only warned).
    auto r = parse("[feeds.secret]\nsource = \"eb\"\nselect = \"search\"\ntoken = \"s\"\n"
                   "[feeds.all]\nmerge = [\"ev\", \"secret\"]\n");
    BOOST_REQUIRE(!r.has_value());
    BOOST_TEST(
        r.error().message == "t.toml:13:16: 'secret' in [feeds.all] merge needs a token, so [feeds.all] must "
                             "have one too: give it token or tokens (a public merge would serve the part's "
                             "items to anyone)"
    );
    BOOST_TEST(r.error().message.find("\"s\"") == std::string::npos);
    // With a token of its own (either kind) the same merge is fine.
    for (auto own : {"token = \"m\"\n", "tokens = { ann = \"m\" }\n"}) {
        auto ok = parse(
            "[feeds.secret]\nsource = \"eb\"\nselect = \"search\"\ntoken = \"s\"\n"
            "[feeds.all]\nmerge = [\"ev\", \"secret\"]\n" +
            std::string(own)
        );
        BOOST_TEST(ok.has_value(), own);
    }
}

BOOST_AUTO_TEST_SUITE_END()
