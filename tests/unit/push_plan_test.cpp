// File: push_plan_test.cpp
// plan() and after_conflict() as plain functions: every edge of mirroring a feed into a calendar (first
// push, nothing changed, one change, removal, cancellation, foreign items, changes behind our back, a lost
// state, a 412), and the per-target state file.
#include "push/plan.hpp"
#include "push/state.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

using namespace icsbridge::push;

namespace push_plan_test {

Resource item(std::string const& uid, std::string const& content = "v1") {
    Resource r;
    r.uid = uid;
    r.name = resource_name(uid);
    r.body = "BODY " + content;
    r.hash = "hash-" + uid + "-" + content;
    return r;
}

/** The state and listing right after a successful push of `items`, each with ETag "e-NAME". */
std::pair<Known, Listing> pushed(std::vector<Resource> const& items) {
    Known known;
    Listing listing;
    for (auto const& r : items) {
        known[r.uid] = Written{r.name, "\"e-" + r.uid + "\"", r.hash};
        listing[r.name] = "\"e-" + r.uid + "\"";
    }
    return {known, listing};
}

} // namespace push_plan_test

BOOST_AUTO_TEST_SUITE(push_plan_test)

BOOST_AUTO_TEST_CASE(resource_names_are_derived_from_the_uid_and_mark_ours) {
    BOOST_TEST(resource_name("a@x") == resource_name("a@x"));
    BOOST_TEST(resource_name("a@x") != resource_name("b@x"));
    BOOST_TEST(resource_name("a@x").size() == std::string("icsbridge-").size() + 32 + 4);
    BOOST_TEST(is_owned(resource_name("anything/with:odd?chars")));
    BOOST_TEST(!is_owned("4f1c2e.ics"));
    BOOST_TEST(!is_owned("icsbridge-notes.txt"));
}

BOOST_AUTO_TEST_CASE(a_first_push_creates_everything_with_if_none_match) {
    auto const p = plan({item("a"), item("b")}, {}, {});
    BOOST_TEST_REQUIRE(p.ops.size() == 2u);
    for (auto const& op : p.ops) {
        BOOST_TEST((op.kind == OpKind::create));
        BOOST_TEST(op.etag.empty()); // If-None-Match: *
    }
    BOOST_TEST(p.unchanged == 0u);
}

BOOST_AUTO_TEST_CASE(nothing_changed_means_no_write) {
    std::vector<Resource> const items{item("a"), item("b"), item("c")};
    auto const [known, listing] = pushed(items);
    auto const p = plan(items, known, listing);
    BOOST_TEST(p.ops.empty());
    BOOST_TEST(p.unchanged == 3u);
    BOOST_TEST(p.forget.empty());
}

BOOST_AUTO_TEST_CASE(one_change_is_one_update_with_if_match) {
    auto const [known, listing] = pushed({item("a"), item("b")});
    // A cancellation under cancelled = "status" is such a change: STATUS:CANCELLED in the content.
    auto const p = plan({item("a"), item("b", "cancelled")}, known, listing);
    BOOST_TEST_REQUIRE(p.ops.size() == 1u);
    BOOST_TEST((p.ops[0] == Op{OpKind::update, "b", resource_name("b"), "\"e-b\"", "hash-b-cancelled"}));
    BOOST_TEST(p.unchanged == 1u);
}

BOOST_AUTO_TEST_CASE(a_removed_expired_or_dropped_item_is_one_delete_with_if_match) {
    auto const [known, listing] = pushed({item("a"), item("b")});
    auto const p = plan({item("a")}, known, listing);
    BOOST_TEST_REQUIRE(p.ops.size() == 1u);
    BOOST_TEST((p.ops[0] == Op{OpKind::remove, "b", resource_name("b"), "\"e-b\"", ""}));
}

BOOST_AUTO_TEST_CASE(foreign_items_are_never_touched) {
    auto [known, listing] = pushed({item("a")});
    listing["my-own-dentist.ics"] = "\"f1\"";
    listing["0d9b2c.ics"] = "\"f2\"";
    auto const p = plan({}, known, listing);
    BOOST_TEST_REQUIRE(p.ops.size() == 1u);
    BOOST_TEST(p.ops[0].name == resource_name("a"));
}

BOOST_AUTO_TEST_CASE(our_item_changed_or_deleted_behind_our_back_is_rewritten) {
    auto [known, listing] = pushed({item("a"), item("b")});
    listing[resource_name("a")] = "\"edited-by-someone\"";
    listing.erase(resource_name("b"));
    auto const p = plan({item("a"), item("b")}, known, listing);
    BOOST_TEST_REQUIRE(p.ops.size() == 2u);
    BOOST_TEST((p.ops[0] == Op{OpKind::update, "a", resource_name("a"), "\"edited-by-someone\"", "hash-a-v1"})
    );
    BOOST_TEST((p.ops[1] == Op{OpKind::create, "b", resource_name("b"), "", "hash-b-v1"}));
}

BOOST_AUTO_TEST_CASE(a_lost_state_adopts_ours_by_name_and_never_duplicates) {
    auto [known, listing] = pushed({item("a"), item("gone")});
    listing["foreign.ics"] = "\"f\"";
    auto const p = plan({item("a"), item("new")}, {}, listing);
    // "a" is there: rewritten in place (its content is unknown to us), never created a second time.
    BOOST_TEST_REQUIRE(p.ops.size() == 3u);
    BOOST_TEST((p.ops[0] == Op{OpKind::update, "a", resource_name("a"), "\"e-a\"", "hash-a-v1"}));
    BOOST_TEST((p.ops[1] == Op{OpKind::create, "new", resource_name("new"), "", "hash-new-v1"}));
    BOOST_TEST((p.ops[2] == Op{OpKind::remove, "", resource_name("gone"), "\"e-gone\"", ""}));
}

BOOST_AUTO_TEST_CASE(state_entries_gone_from_both_sides_are_forgotten) {
    auto [known, listing] = pushed({item("a"), item("b")});
    listing.erase(resource_name("b"));
    auto const p = plan({item("a")}, known, listing);
    BOOST_TEST(p.ops.empty());
    BOOST_TEST(p.forget == std::vector<std::string>{"b"});
}

BOOST_AUTO_TEST_CASE(a_412_is_resolved_by_the_etag_read_again_and_the_feed_wins) {
    Op const create{OpKind::create, "a", resource_name("a"), "", "h"};
    auto const retried_create = after_conflict(create, std::string("\"now\""));
    BOOST_TEST_REQUIRE(retried_create.has_value());
    BOOST_TEST((retried_create->kind == OpKind::update));
    BOOST_TEST(retried_create->etag == "\"now\"");

    Op const update{OpKind::update, "a", resource_name("a"), "\"old\"", "h"};
    BOOST_TEST((after_conflict(update, std::string("\"newer\""))->etag == "\"newer\""));
    auto const recreated = after_conflict(update, std::nullopt);
    BOOST_TEST((recreated->kind == OpKind::create));
    BOOST_TEST(recreated->etag.empty());

    Op const remove{OpKind::remove, "a", resource_name("a"), "\"old\"", ""};
    BOOST_TEST(!after_conflict(remove, std::nullopt).has_value());
    BOOST_TEST((after_conflict(remove, std::string("\"x\""))->etag == "\"x\""));
}

BOOST_AUTO_TEST_CASE(the_state_survives_a_round_trip_through_its_file) {
    TargetState s;
    s.collection = "http://127.0.0.1:5232/alice/events/";
    s.sync_token = "http://radicale.org/ns/sync/abc";
    std::tie(s.items, s.listing) = pushed({item("a\"quoted\""), item("b")});
    auto const dir = std::filesystem::temp_directory_path() / "icsbridge-push-state-test";
    std::filesystem::remove_all(dir);
    auto const path = state_path(dir.string(), "family");
    BOOST_TEST((load_state(path).value() == TargetState{}));
    BOOST_TEST_REQUIRE(save_state(path, s).has_value());
    auto const perms = std::filesystem::status(path).permissions();
    BOOST_TEST(((perms & std::filesystem::perms::others_read) == std::filesystem::perms::none));
    BOOST_TEST((load_state(path).value() == s));
    std::ofstream(path) << "{\"collection\": 3}";
    auto const bad = load_state(path);
    BOOST_TEST(!bad.has_value());
    BOOST_TEST(bad.error().message.find("malformed") != std::string::npos);
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
