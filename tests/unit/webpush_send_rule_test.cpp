// File: webpush_send_rule_test.cpp
// Which publications make WebDAV-Push messages (app/webpush_wiring.hpp's SendRule): alone, every change
// this process made; in a cluster, only the replica that fetched or patched it, and a merged feed's change
// only on the replica that changed one of its parts, whatever other feeds publish in between.
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

/** "all" merges "a" and "b"; "other" is in no merge. */
Config merging() {
    Config cfg;
    for (std::string name : {"a", "b", "other"}) {
        FeedConfig f;
        f.name = name;
        cfg.feeds.push_back(f);
    }
    FeedConfig all;
    all.name = "all";
    all.merge = {"a", "b"};
    cfg.feeds.push_back(all);
    return cfg;
}

BOOST_AUTO_TEST_SUITE(webpush_send_rule_test)

BOOST_AUTO_TEST_CASE(alone_every_change_made_here_sends_and_nothing_else) {
    Config const cfg = merging();
    cli::SendRule rule(false);
    BOOST_TEST(rule.sends(publication(Origin::fetched), cfg));
    BOOST_TEST(rule.sends(publication(Origin::patched), cfg));
    BOOST_TEST(rule.sends(publication(Origin::merged, true, "all"), cfg));
    BOOST_TEST(rule.sends(publication(Origin::merged, true, "all"), cfg));
    // The same bytes again, and the copy loaded at start: no change an app has not seen.
    BOOST_TEST(!rule.sends(publication(Origin::fetched, false), cfg));
    BOOST_TEST(!rule.sends(publication(Origin::restored), cfg));
    BOOST_TEST(!rule.sends(publication(Origin::merged, false, "all"), cfg));
    // Alone an adopted part (none in practice) still leaves the merged feed's change to us: nobody else
    // sends.
    BOOST_TEST(!rule.sends(publication(Origin::adopted, true, "a"), cfg));
    BOOST_TEST(rule.sends(publication(Origin::merged, true, "all"), cfg));
}

BOOST_AUTO_TEST_CASE(in_a_cluster_only_the_replica_that_fetched_sends) {
    Config const cfg = merging();
    cli::SendRule rule(true);
    BOOST_TEST(rule.sends(publication(Origin::fetched), cfg));
    BOOST_TEST(rule.sends(publication(Origin::patched), cfg));
    // Another replica's row: it sent the messages already.
    BOOST_TEST(!rule.sends(publication(Origin::adopted), cfg));
    BOOST_TEST(!rule.sends(publication(Origin::restored), cfg));
}

BOOST_AUTO_TEST_CASE(in_a_cluster_a_merged_change_sends_where_its_part_was_changed) {
    Config const cfg = merging();
    cli::SendRule rule(true);
    BOOST_TEST(rule.sends(publication(Origin::fetched, true, "a"), cfg));
    BOOST_TEST(rule.sends(publication(Origin::merged, true, "all"), cfg));
    // The part adopted from a sibling's row: the sibling sends the merged feed's message.
    BOOST_TEST(!rule.sends(publication(Origin::adopted, true, "a"), cfg));
    BOOST_TEST(!rule.sends(publication(Origin::merged, true, "all"), cfg));
    // A webhook's patch of a part is a change of ours too.
    BOOST_TEST(rule.sends(publication(Origin::patched, true, "b"), cfg));
    BOOST_TEST(rule.sends(publication(Origin::merged, true, "all"), cfg));
}

BOOST_AUTO_TEST_CASE(another_feed_published_before_the_rebuild_changes_nothing) {
    Config const cfg = merging();
    // Our part's change, then another feed's adopted row, then the queued rebuild: still ours (the rule that
    // looked at the publication just before the rebuild sent nothing here).
    cli::SendRule rule(true);
    BOOST_TEST(rule.sends(publication(Origin::fetched, true, "a"), cfg));
    BOOST_TEST(!rule.sends(publication(Origin::adopted, true, "other"), cfg));
    BOOST_TEST(rule.sends(publication(Origin::merged, true, "all"), cfg));
    // A sibling's part change, then our change of another feed, then the rebuild: not ours (that rule sent it
    // here as well as on the sibling).
    BOOST_TEST(!rule.sends(publication(Origin::adopted, true, "a"), cfg));
    BOOST_TEST(rule.sends(publication(Origin::fetched, true, "other"), cfg));
    BOOST_TEST(!rule.sends(publication(Origin::merged, true, "all"), cfg));
}

BOOST_AUTO_TEST_CASE(an_unchanged_rebuild_does_not_pay_what_is_owed) {
    Config const cfg = merging();
    cli::SendRule rule(true);
    // Part b's unchanged refresh queued a rebuild (the same bytes) before our change of part a queued its
    // own.
    BOOST_TEST(!rule.sends(publication(Origin::fetched, false, "b"), cfg));
    BOOST_TEST(rule.sends(publication(Origin::fetched, true, "a"), cfg));
    BOOST_TEST(!rule.sends(publication(Origin::merged, false, "all"), cfg));
    BOOST_TEST(rule.sends(publication(Origin::merged, true, "all"), cfg));
    BOOST_TEST(!rule.sends(publication(Origin::merged, true, "all"), cfg));
}

BOOST_AUTO_TEST_CASE(three_replicas_send_each_merged_change_exactly_once) {
    Config const cfg = merging();
    // r0 holds a's lease, r1 b's, r2 neither. Each change of a part is fetched by its holder and adopted by
    // the others, with the other feed's publications falling in between in a different order on each replica.
    std::vector<cli::SendRule> rules(3, cli::SendRule(true));
    auto merged_sent = [&](std::string const& part, std::size_t holder) {
        int sent = 0;
        for (std::size_t r = 0; r < rules.size(); ++r) {
            Origin const o = r == holder ? Origin::fetched : Origin::adopted;
            (void)rules[r].sends(publication(o, true, part), cfg);
            // Before the queued rebuild: r1 adopts another feed's change, r2 fetches one itself.
            if (r > 0)
                (void)rules[r].sends(
                    publication(r == 2 ? Origin::fetched : Origin::adopted, true, "other"),
                    cfg
                );
            sent += rules[r].sends(publication(Origin::merged, true, "all"), cfg) ? 1 : 0;
        }
        return sent;
    };
    BOOST_TEST(merged_sent("a", 0) == 1);
    BOOST_TEST(merged_sent("b", 1) == 1);
    BOOST_TEST(merged_sent("a", 0) == 1);
    BOOST_TEST(merged_sent("b", 1) == 1);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace webpush_send_rule_test
