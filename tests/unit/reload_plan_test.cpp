// File: reload_plan_test.cpp
// plan_reload: which feeds a reload adds, removes, fetches again or keeps, and what needs a restart.
#include "app/reload_plan.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(reload_plan_test)

namespace {

Config base() {
    Config c;
    SourceConfig eb;
    eb.name = "eb";
    eb.base_url = "https://events.example.com";
    eb.secret = "t";
    c.sources["eb"] = eb;
    for (auto name : {"a", "b", "c"}) {
        FeedConfig f;
        f.name = name;
        f.source = "eb";
        f.select = "organizer";
        f.line = 10;
        c.feeds.push_back(f);
    }
    c.feeds[1].tokens = {{"alice", "s1"}, {"bob", "s2"}};
    return c;
}

using Names = std::vector<std::string>;

} // namespace

BOOST_AUTO_TEST_CASE(the_same_config_keeps_every_feed) {
    auto p = plan_reload(base(), base());
    BOOST_TEST(p.kept == (Names{"a", "b", "c"}), boost::test_tools::per_element());
    BOOST_TEST(p.added.empty());
    BOOST_TEST(p.removed.empty());
    BOOST_TEST(p.changed.empty());
    BOOST_TEST(p.restart_needed.empty());
    BOOST_TEST(!p.sources_changed);
}

BOOST_AUTO_TEST_CASE(tokens_and_position_do_not_refetch_but_calendar_settings_do) {
    auto next = base();
    next.feeds[1].tokens.erase("bob"); // revoke bob: access only
    next.feeds[0].line = 42;           // moved in the file
    next.feeds[2].alarm = 30min;       // the calendar changes
    auto p = plan_reload(base(), next);
    BOOST_TEST(p.kept == (Names{"a", "b"}), boost::test_tools::per_element());
    BOOST_TEST(p.changed == (Names{"c"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(added_and_removed_feeds_by_name) {
    auto next = base();
    next.feeds.erase(next.feeds.begin());
    FeedConfig d = next.feeds.back();
    d.name = "d";
    next.feeds.push_back(d);
    auto p = plan_reload(base(), next);
    BOOST_TEST(p.added == (Names{"d"}), boost::test_tools::per_element());
    BOOST_TEST(p.removed == (Names{"a"}), boost::test_tools::per_element());
    BOOST_TEST(p.kept == (Names{"b", "c"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_changed_source_or_public_url_refetches_its_feeds) {
    auto next = base();
    next.sources["eb"].secret = "new-token";
    auto p = plan_reload(base(), next);
    BOOST_TEST(p.sources_changed);
    BOOST_TEST(p.changed.size() == 3u);
    BOOST_TEST(p.kept.empty());

    auto url = base();
    url.server.public_url = "https://cal.example.org";
    BOOST_TEST(plan_reload(base(), url).changed.size() == 3u);
}

BOOST_AUTO_TEST_CASE(process_settings_are_reported_as_needing_a_restart) {
    auto next = base();
    next.server.port = 9999;
    next.server.threads = 7;
    next.server.admin_token = "x"; // applies at once: not listed
    next.storage.dir = "/elsewhere";
    next.server.trusted_proxies = {"127.0.0.1"};
    auto p = plan_reload(base(), next);
    BOOST_TEST(
        p.restart_needed ==
            (Names{"listen", "threads", "max_connections_per_client/trusted_proxies", "storage.dir"}),
        boost::test_tools::per_element()
    );
    BOOST_TEST(p.kept.size() == 3u); // none of it changes a calendar
}

BOOST_AUTO_TEST_SUITE_END()
