// File: push_plan_test.cpp
// plan() and after_conflict() as plain functions: every edge of mirroring a feed into a calendar (first
// push, nothing changed, one change, removal, cancellation, foreign items, changes behind our back, a lost
// state, a 412), and the per-target state file.
#include "push/calendar_claims.hpp"
#include "push/plan.hpp"
#include "push/state.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

using namespace icsbridge::push;

namespace push_plan_test {

Resource
resource(std::string const& uid, std::string const& name, std::string const& body, std::string const& hash) {
    Resource r;
    r.uid = uid;
    r.name = name;
    r.body = body;
    r.hash = hash;
    return r;
}

Resource item(std::string const& uid, std::string const& content = "v1") {
    return resource(uid, resource_name(uid, "w"), "BODY " + content, "hash-" + uid + "-" + content);
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

BOOST_AUTO_TEST_CASE(resource_names_are_derived_from_the_writer_and_the_uid_and_mark_ours) {
    BOOST_TEST(resource_name("a@x", "w") == resource_name("a@x", "w"));
    BOOST_TEST(resource_name("a@x", "w") != resource_name("b@x", "w"));
    BOOST_TEST(resource_name("a@x", "w") != resource_name("a@x", "v"));
    BOOST_TEST(resource_name("a@x", "w").size() == std::string("icsbridge-").size() + 8 + 1 + 32 + 4);
    BOOST_TEST(is_owned(resource_name("anything/with:odd?chars", "w")));
    BOOST_TEST(written_by(resource_name("a@x", "w"), "w"));
    BOOST_TEST(!written_by(resource_name("a@x", "w"), "v"));
    // An earlier version's name: icsbridge's, but no writer's by its name (the state says whose).
    BOOST_TEST(is_owned("icsbridge-0123456789abcdef0123456789abcdef.ics"));
    BOOST_TEST(!written_by("icsbridge-0123456789abcdef0123456789abcdef.ics", "w"));
    BOOST_TEST(!is_owned("4f1c2e.ics"));
    BOOST_TEST(!is_owned("icsbridge-notes.txt"));
    BOOST_TEST(!is_owned("icsbridge-notes.ics"));
}

BOOST_AUTO_TEST_CASE(a_first_push_creates_everything_with_if_none_match) {
    auto const p = plan({item("a"), item("b")}, {}, {}, "w");
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
    auto const p = plan(items, known, listing, "w");
    BOOST_TEST(p.ops.empty());
    BOOST_TEST(p.unchanged == 3u);
    BOOST_TEST(p.forget.empty());
}

BOOST_AUTO_TEST_CASE(one_change_is_one_update_with_if_match) {
    auto const [known, listing] = pushed({item("a"), item("b")});
    // A cancellation under cancelled = "status" is such a change: STATUS:CANCELLED in the content.
    auto const p = plan({item("a"), item("b", "cancelled")}, known, listing, "w");
    BOOST_TEST_REQUIRE(p.ops.size() == 1u);
    BOOST_TEST((p.ops[0] == Op{OpKind::update, "b", resource_name("b", "w"), "\"e-b\"", "hash-b-cancelled"}));
    BOOST_TEST(p.unchanged == 1u);
}

BOOST_AUTO_TEST_CASE(a_removed_expired_or_dropped_item_is_one_delete_with_if_match) {
    auto const [known, listing] = pushed({item("a"), item("b")});
    auto const p = plan({item("a")}, known, listing, "w");
    BOOST_TEST_REQUIRE(p.ops.size() == 1u);
    BOOST_TEST((p.ops[0] == Op{OpKind::remove, "b", resource_name("b", "w"), "\"e-b\"", ""}));
}

BOOST_AUTO_TEST_CASE(foreign_items_are_never_touched) {
    auto [known, listing] = pushed({item("a")});
    listing["my-own-dentist.ics"] = "\"f1\"";
    listing["0d9b2c.ics"] = "\"f2\"";
    auto const p = plan({}, known, listing, "w");
    BOOST_TEST_REQUIRE(p.ops.size() == 1u);
    BOOST_TEST(p.ops[0].name == resource_name("a", "w"));
}

BOOST_AUTO_TEST_CASE(our_item_changed_or_deleted_behind_our_back_is_rewritten) {
    auto [known, listing] = pushed({item("a"), item("b")});
    listing[resource_name("a", "w")] = "\"edited-by-someone\"";
    listing.erase(resource_name("b", "w"));
    auto const p = plan({item("a"), item("b")}, known, listing, "w");
    BOOST_TEST_REQUIRE(p.ops.size() == 2u);
    BOOST_TEST(
        (p.ops[0] == Op{OpKind::update, "a", resource_name("a", "w"), "\"edited-by-someone\"", "hash-a-v1"})
    );
    BOOST_TEST((p.ops[1] == Op{OpKind::create, "b", resource_name("b", "w"), "", "hash-b-v1"}));
}

BOOST_AUTO_TEST_CASE(a_lost_state_adopts_ours_by_name_and_never_duplicates) {
    auto [known, listing] = pushed({item("a"), item("gone")});
    listing["foreign.ics"] = "\"f\"";
    auto const p = plan({item("a"), item("new")}, {}, listing, "w");
    // "a" is there: rewritten in place (its content is unknown to us), never created a second time.
    BOOST_TEST_REQUIRE(p.ops.size() == 3u);
    BOOST_TEST((p.ops[0] == Op{OpKind::update, "a", resource_name("a", "w"), "\"e-a\"", "hash-a-v1"}));
    BOOST_TEST((p.ops[1] == Op{OpKind::create, "new", resource_name("new", "w"), "", "hash-new-v1"}));
    BOOST_TEST((p.ops[2] == Op{OpKind::remove, "", resource_name("gone", "w"), "\"e-gone\"", ""}));
}

BOOST_AUTO_TEST_CASE(another_writers_items_in_the_same_calendar_are_never_touched) {
    // Targets a and b write into one calendar (two configs, or a target and a connection): a's run sees
    // b's items in the listing, and neither deletes nor updates them, with or without its state.
    auto const b_items = std::vector<Resource>{
        resource("b1", resource_name("b1", "b"), "BODY", "h1"),
        resource("b2", resource_name("b2", "b"), "BODY", "h2")};
    auto [known, listing] = pushed({item("a")});
    for (auto const& r : b_items)
        listing[r.name] = "\"e-" + r.uid + "\"";
    for (auto const& state : {known, Known{}}) {
        auto const p = plan({item("a")}, state, listing, "w");
        BOOST_TEST(p.count(OpKind::remove) == 0u);
        for (auto const& op : p.ops)
            BOOST_TEST(written_by(op.name, "w"));
    }
    BOOST_TEST(plan({item("a")}, known, listing, "w").ops.empty());
    // The same UID in both writers' feeds: each writes its own resource, and a's never names b's.
    auto const both = plan({item("b1")}, known, listing, "w");
    BOOST_TEST_REQUIRE(both.count(OpKind::create) == 1u);
    BOOST_TEST(both.ops[0].name != b_items[0].name);
}

BOOST_AUTO_TEST_CASE(an_earlier_versions_items_are_adopted_from_the_state_never_written_twice) {
    // An earlier version named a's resource without a writer mark; its state records it.
    std::string const old_name = "icsbridge-0123456789abcdef0123456789abcdef.ics";
    std::string const other_old = "icsbridge-fedcba9876543210fedcba9876543210.ics"; // another target's
    Known const known{{"a", Written{old_name, "\"e-a\"", "hash-a-v1"}}};
    Listing const listing{{old_name, "\"e-a\""}, {other_old, "\"e-x\""}};
    std::vector<Resource> desired{
        resource("a", "", "BODY v1", "hash-a-v1"),
        resource("n", "", "BODY", "hash-n")};
    name_resources(desired, "w", known, listing);
    BOOST_TEST(desired[0].name == old_name);                // kept under the name it has
    BOOST_TEST(desired[1].name == resource_name("n", "w")); // a new item: the writer's name
    auto const p = plan(desired, known, listing, "w");
    BOOST_TEST_REQUIRE(p.ops.size() == 1u); // "a" unchanged, "n" created, the unknown old name left alone
    BOOST_TEST((p.ops[0] == Op{OpKind::create, "n", resource_name("n", "w"), "", "hash-n"}));
    // Changed: updated in place; dropped: deleted under its old name.
    desired[0].hash = "hash-a-v2";
    auto const changed = plan(desired, known, listing, "w");
    BOOST_TEST((changed.ops[0] == Op{OpKind::update, "a", old_name, "\"e-a\"", "hash-a-v2"}));
    auto const dropped = plan({}, known, listing, "w");
    BOOST_TEST_REQUIRE(dropped.ops.size() == 1u);
    BOOST_TEST((dropped.ops[0] == Op{OpKind::remove, "a", old_name, "\"e-a\"", ""}));
    // Gone from the calendar meanwhile: written again under the writer's own name.
    std::vector<Resource> again{resource("a", "", "BODY v1", "hash-a-v1")};
    name_resources(again, "w", known, Listing{});
    BOOST_TEST(again[0].name == resource_name("a", "w"));
}

BOOST_AUTO_TEST_CASE(a_second_writer_of_one_calendar_is_refused_naming_both) {
    // Two spellings of one collection, as two targets' servers resolve them.
    CalendarClaims claims;
    BOOST_TEST(static_cast<bool>(claims.claim("a", "http://DAV.example:80/u/shared")));
    auto const second = claims.claim("b", "http://dav.example/u/shared/");
    BOOST_TEST_REQUIRE(!second);
    BOOST_TEST(
        second.error().message.find("targets a and b both write into the calendar") != std::string::npos
    );
    BOOST_TEST(static_cast<bool>(claims.claim("a", "http://dav.example/u/shared/")));  // its own, again
    BOOST_TEST(static_cast<bool>(claims.claim("b", "https://dav.example/u/shared/"))); // another origin
    BOOST_TEST(static_cast<bool>(claims.claim("c", "abc@group.calendar.google.com")));
    BOOST_TEST(!claims.claim("d", "abc@group.calendar.google.com"));
    claims.release("a");
    BOOST_TEST(static_cast<bool>(claims.claim("d", "http://dav.example/u/shared/")));
}

BOOST_AUTO_TEST_CASE(state_entries_gone_from_both_sides_are_forgotten) {
    auto [known, listing] = pushed({item("a"), item("b")});
    listing.erase(resource_name("b", "w"));
    auto const p = plan({item("a")}, known, listing, "w");
    BOOST_TEST(p.ops.empty());
    BOOST_TEST(p.forget == std::vector<std::string>{"b"});
}

BOOST_AUTO_TEST_CASE(a_412_is_resolved_by_the_etag_read_again_and_the_feed_wins) {
    Op const create{OpKind::create, "a", resource_name("a", "w"), "", "h"};
    auto const retried_create = after_conflict(create, std::string("\"now\""));
    BOOST_TEST_REQUIRE(retried_create.has_value());
    BOOST_TEST((retried_create->kind == OpKind::update));
    BOOST_TEST(retried_create->etag == "\"now\"");

    Op const update{OpKind::update, "a", resource_name("a", "w"), "\"old\"", "h"};
    BOOST_TEST((after_conflict(update, std::string("\"newer\""))->etag == "\"newer\""));
    auto const recreated = after_conflict(update, std::nullopt);
    BOOST_TEST((recreated->kind == OpKind::create));
    BOOST_TEST(recreated->etag.empty());

    Op const remove{OpKind::remove, "a", resource_name("a", "w"), "\"old\"", ""};
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
