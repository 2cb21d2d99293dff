// File: feed_groups_test.cpp
// Feeds that ask the upstream the same question share one fetch, and each still behaves as configured
// alone: a feed's keep_past or max_items never reaches its sibling, whichever is listed first. Real
// Pipeline over loopback HTTP; each feed's calendar in the group is compared with the same feed alone.
#include "integration/scripted_upstream.hpp"
#include "support/fixtures.hpp"
#include "support/run_coro.hpp"
#include "support/upstream_json.hpp"
#include <icsbridge/ical.hpp>
#include <icsbridge/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

using namespace icsbridge;
using icsbridge::test::ScriptedReply;
using icsbridge::test::ScriptedRequest;
using icsbridge::test::ScriptedUpstream;
namespace net = boost::asio;

namespace feed_groups_test {

sys_seconds const now = std::chrono::sys_days{std::chrono::year{2026} / 11 / 23} + std::chrono::hours{12};

/** A complete event (no detail request needed) starting `from_now` from now, two hours long. */
std::string event_json(std::string const& id, std::chrono::seconds from_now) {
    auto const start = now + from_now;
    return test::UpstreamEvent(id).between(start, start + std::chrono::hours(2)).json();
}

std::string page(std::vector<std::string> const& events) {
    return test::events_page(events, test::numbered_pagination(1, 1));
}

/** An organizer with three events to come and two that ended in the last week. */
ScriptedUpstream organizer() {
    using std::chrono::days;
    return ScriptedUpstream([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.param("time_filter") == "past")
            return {200, page({event_json("p1", -days(2)), event_json("p2", -days(6))})};
        return {200, page({event_json("f1", days(1)), event_json("f2", days(3)), event_json("f3", days(9))})};
    });
}

struct Feed {
    std::string name;
    std::chrono::seconds keep_past{std::chrono::days(30)};
    std::size_t max_items = 100000;
};

Config config_of(std::string const& base_url, std::vector<Feed> const& feeds) {
    Config cfg;
    SourceConfig src;
    src.name = "eb";
    src.type = SourceType::events;
    src.base_url = base_url;
    src.secret = "group-token";
    cfg.sources["eb"] = src;
    for (auto const& f : feeds) {
        FeedConfig fc;
        fc.name = f.name;
        fc.source = "eb";
        fc.select = "organizer";
        fc.keep_past = f.keep_past;
        fc.max_items = f.max_items;
        cfg.feeds.push_back(fc);
    }
    return cfg;
}

/** Each feed's calendar (or error message) from one refresh of each group of `feeds`, by feed name. */
std::map<std::string, std::string> refresh(std::string const& base_url, std::vector<Feed> const& feeds) {
    auto const cfg = config_of(base_url, feeds);
    std::map<std::string, std::string> out;
    test::run_coro([&](net::any_io_executor ex) -> net::awaitable<void> {
        Pipeline pipeline(cfg, ex);
        auto fetch = pipeline_fetch(pipeline);
        for (auto const& g : group_feeds(cfg)) {
            auto results = co_await fetch(g, now);
            for (std::size_t i = 0; i < g.feeds.size(); ++i)
                out[g.feeds[i]->name] = results[i] ? results[i]->ics : "error: " + results[i].error().message;
        }
    });
    return out;
}

int count_of(std::string const& ics, std::string const& what) {
    int n = 0;
    for (auto p = ics.find(what); p != std::string::npos; p = ics.find(what, p + 1))
        ++n;
    return n;
}

struct LibicalFixture {
    LibicalFixture() { init_libical(); }
};

} // namespace feed_groups_test

BOOST_FIXTURE_TEST_SUITE(feed_groups_test, LibicalFixture)

BOOST_AUTO_TEST_CASE(one_question_is_one_group_whatever_keep_past_and_max_items) {
    auto const cfg = config_of("http://127.0.0.1:9", {{"a", std::chrono::seconds(0), 5}, {"b"}});
    auto const groups = group_feeds(cfg);
    BOOST_TEST_REQUIRE(groups.size() == 1u);
    BOOST_TEST(groups[0].feeds.size() == 2u);
    // The shared fetch reads as far back and as many as the most demanding feed.
    BOOST_TEST(groups[0].query.keep_past.count() == std::chrono::seconds(std::chrono::days(30)).count());
    BOOST_TEST(groups[0].query.max_items == 100000u);
}

BOOST_AUTO_TEST_CASE(keep_past_is_each_feeds_own_in_both_orders) {
    auto up = organizer();
    Feed const none{"none", std::chrono::seconds(0)};
    Feed const month{"month"};
    auto const alone_none = refresh(up.base_url(), {none}).at("none");
    auto const alone_month = refresh(up.base_url(), {month}).at("month");
    // The two feeds differ alone: ended events are kept a month by one, dropped by the other.
    BOOST_TEST(count_of(alone_none, "BEGIN:VEVENT") == 3);
    BOOST_TEST(count_of(alone_month, "BEGIN:VEVENT") == 5);
    for (auto const& order : {std::vector<Feed>{none, month}, std::vector<Feed>{month, none}}) {
        auto const together = refresh(up.base_url(), order);
        BOOST_TEST(together.at("none") == alone_none);
        BOOST_TEST(together.at("month") == alone_month);
    }
}

BOOST_AUTO_TEST_CASE(max_items_is_each_feeds_own_in_both_orders) {
    auto up = organizer();
    Feed const small{"small", std::chrono::days(30), 4};
    Feed const big{"big"};
    auto const alone_small = refresh(up.base_url(), {small}).at("small");
    auto const alone_big = refresh(up.base_url(), {big}).at("big");
    BOOST_TEST(alone_small.find("error: ") == 0u); // 5 events, 4 allowed: the refresh fails
    BOOST_TEST(alone_small.find("max_items") != std::string::npos);
    BOOST_TEST(count_of(alone_big, "BEGIN:VEVENT") == 5);
    for (auto const& order : {std::vector<Feed>{small, big}, std::vector<Feed>{big, small}}) {
        auto const together = refresh(up.base_url(), order);
        BOOST_TEST(together.at("small") == alone_small);
        BOOST_TEST(together.at("big") == alone_big); // never held back by its sibling's limit
    }
}

BOOST_AUTO_TEST_SUITE_END()
