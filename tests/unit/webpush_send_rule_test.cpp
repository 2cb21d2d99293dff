// File: webpush_send_rule_test.cpp
// Which publications make WebDAV-Push messages (app/webpush_wiring.hpp's SendRule): alone, every change
// this process made; in a cluster, only the replica that fetched or patched it, and a merged feed's rebuild
// only where the part's publication that set it off was that replica's own.
#include "app/webpush_wiring.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;

namespace webpush_send_rule_test {

Publication publication(Origin origin, bool changed = true, std::string feed = "pub") {
    Publication p;
    p.feed = std::move(feed);
    p.origin = origin;
    p.changed = changed;
    return p;
}

BOOST_AUTO_TEST_SUITE(webpush_send_rule_test)

BOOST_AUTO_TEST_CASE(alone_every_change_made_here_sends_and_nothing_else) {
    cli::SendRule rule(false);
    BOOST_TEST(rule.sends(publication(Origin::fetched)));
    BOOST_TEST(rule.sends(publication(Origin::patched)));
    BOOST_TEST(rule.sends(publication(Origin::merged, true, "all")));
    // The same bytes again, and the copy loaded at start: no change an app has not seen.
    BOOST_TEST(!rule.sends(publication(Origin::fetched, false)));
    BOOST_TEST(!rule.sends(publication(Origin::restored)));
    BOOST_TEST(!rule.sends(publication(Origin::merged, false, "all")));
}

BOOST_AUTO_TEST_CASE(in_a_cluster_only_the_replica_that_fetched_sends) {
    cli::SendRule rule(true);
    BOOST_TEST(rule.sends(publication(Origin::fetched)));
    BOOST_TEST(rule.sends(publication(Origin::patched)));
    // Another replica's row: it sent the messages already.
    BOOST_TEST(!rule.sends(publication(Origin::adopted)));
    BOOST_TEST(!rule.sends(publication(Origin::restored)));
}

BOOST_AUTO_TEST_CASE(in_a_cluster_a_merged_rebuild_sends_where_its_part_was_fetched) {
    cli::SendRule rule(true);
    BOOST_TEST(rule.sends(publication(Origin::fetched, true, "part")));
    BOOST_TEST(rule.sends(publication(Origin::merged, true, "all")));
    // The part adopted from a sibling's row: the sibling rebuilt and sent the merged feed's message.
    BOOST_TEST(!rule.sends(publication(Origin::adopted, true, "part")));
    BOOST_TEST(!rule.sends(publication(Origin::merged, true, "all")));
    // Alone, the same sequence sends every rebuild (nobody else could).
    cli::SendRule alone(false);
    BOOST_TEST(!alone.sends(publication(Origin::adopted, true, "part")));
    BOOST_TEST(alone.sends(publication(Origin::merged, true, "all")));
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace webpush_send_rule_test
