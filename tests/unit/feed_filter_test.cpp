// File: feed_filter_test.cpp
// `filter = { ... }`: read from the config (mistakes at FILE:LINE:COL) and applied to events and job
// posts by category, keywords in title or description (any case), exclude_keywords and online.
#include "model/feed_filter.hpp"
#include "pipeline/item_filter.hpp"
#include "support/config_text.hpp"
#include <icsbridge/config.hpp>

#include <boost/test/unit_test.hpp>

using namespace icsbridge;

BOOST_AUTO_TEST_SUITE(feed_filter_test)

namespace {

std::string config_with(std::string const& filter) {
    return "[sources.eb]\ntype = \"events\"\nbase_url = \"https://e.example\"\ntoken = \"t\"\n"
           "[sources.jobs]\ntype = \"jobs\"\nbase_url = \"https://j.example\"\napi_key = \"k\"\n"
           "[feeds.ev]\nsource = \"eb\"\nselect = \"organizer\"\n" +
           filter +
           "\n[feeds.jb]\nsource = \"jobs\"\nselect = \"recent\"\n"
           "filter = { categories = [\"Design\"], online = true }\n";
}

Event event(std::string name, std::string html, std::string category_id, bool online) {
    Event e;
    e.id = name;
    e.name = std::move(name);
    e.description_html = std::move(html);
    e.category_id = std::move(category_id);
    e.online = online;
    return e;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_key_is_read) {
    auto r = parse_config(
        config_with(
            "filter = { categories = [\"Music\", \"Arts\"], keywords = [\"rust\"], exclude_keywords = "
            "[\"sold out\"], online = false }"
        ),
        "f.toml",
        test::env_of()
    );
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
    auto const& f = r->feeds.at(0).filter;
    BOOST_TEST(f.categories == (std::vector<std::string>{"Music", "Arts"}));
    BOOST_TEST(f.keywords == (std::vector<std::string>{"rust"}));
    BOOST_TEST(f.exclude_keywords == (std::vector<std::string>{"sold out"}));
    BOOST_TEST((f.online == false));
    BOOST_TEST(r->feeds.at(1).filter.categories == (std::vector<std::string>{"Design"}));
    BOOST_TEST((r->feeds.at(1).filter.online == true));
    BOOST_TEST(parse_config(config_with(""), "f.toml", test::env_of())->feeds.at(0).filter.empty());
}

BOOST_AUTO_TEST_CASE(mistakes_are_reported_at_their_position) {
    struct Case {
        std::string filter, says;
    };
    // The filter line is line 12 of config_with().
    for (auto const& c : std::vector<Case>{
             {"filter = { keyword = [\"x\"] }",
              "f.toml:12:12: unknown key 'keyword' in [feeds.ev].filter; did you mean 'keywords'?"},
             {"filter = { colour = 1 }", "f.toml:12:12: unknown key 'colour' in [feeds.ev].filter"},
             {"filter = \"rust\"", "f.toml:12:10: filter must be a table"},
             {"filter = { keywords = \"rust\" }", "f.toml:12:23: keywords must be an array"},
             {"filter = { keywords = [\"rust\", 3] }", "f.toml:12:32: keywords must list non-empty strings"},
             {"filter = { categories = [\"\"] }", "f.toml:12:26: categories must list non-empty strings"},
             {"filter = { online = \"yes\" }", "f.toml:12:21: online must be a boolean"},
         }) {
        auto r = parse_config(config_with(c.filter), "f.toml", test::env_of());
        BOOST_TEST_REQUIRE(!r, c.filter);
        BOOST_TEST(r.error().message.starts_with(c.says), r.error().message);
    }
}

BOOST_AUTO_TEST_CASE(events_by_category_keywords_and_online) {
    std::vector<Event> events = {
        event("Rust meetup", "<p>Talks about <b>systems</b></p>", "102", false),      // Science & Technology
        event("Jazz night", "<p>Live music, RUST-coloured lights</p>", "103", false), // Music
        event("Online rust workshop", "", "102", true),
        event("Choir", "<p>Sold Out</p>", "103", false),
    };
    auto names = [&](FeedFilter const& f) {
        FeedItems in;
        in.events = events;
        std::string out;
        for (auto const& e : apply_filter(f, in).events)
            out += e.name + ";";
        return out;
    };
    BOOST_TEST(names({}) == "Rust meetup;Jazz night;Online rust workshop;Choir;");
    BOOST_TEST(names({{"music"}, {}, {}, {}}) == "Jazz night;Choir;");
    BOOST_TEST(names({{}, {"rust"}, {}, {}}) == "Rust meetup;Jazz night;Online rust workshop;");
    BOOST_TEST(names({{}, {"SYSTEMS"}, {}, {}}) == "Rust meetup;");
    // Markup is not text: a keyword never matches a tag name.
    BOOST_TEST(names({{}, {"<b>"}, {}, {}}) == "");
    BOOST_TEST(names({{"Music"}, {}, {"sold out"}, {}}) == "Jazz night;");
    BOOST_TEST(names({{}, {"rust"}, {}, true}) == "Online rust workshop;");
    BOOST_TEST(names({{}, {"rust"}, {}, false}) == "Rust meetup;Jazz night;");
}

BOOST_AUTO_TEST_CASE(job_posts_by_category_type_and_remote) {
    JobPost a, b;
    a.id = "1";
    a.title = "Product Designer";
    a.category = "Design";
    a.type = "Full-time";
    a.remote = true;
    b.id = "2";
    b.title = "Backend engineer";
    b.description_html = "<p>We design APIs</p>";
    b.category = "Engineering";
    b.type = "Contract";
    BOOST_TEST(filter_keeps({{"design"}, {}, {}, {}}, a));
    BOOST_TEST(!filter_keeps({{"design"}, {}, {}, {}}, b));
    BOOST_TEST(filter_keeps({{"contract"}, {}, {}, {}}, b));
    BOOST_TEST(filter_keeps({{}, {"design"}, {}, {}}, b)); // in the description
    BOOST_TEST(filter_keeps({{}, {}, {}, true}, a));
    BOOST_TEST(!filter_keeps({{}, {}, {}, true}, b));
    BOOST_TEST(!filter_keeps({{}, {}, {"engineer"}, {}}, b));
}

BOOST_AUTO_TEST_SUITE_END()
