// File: dav_history_test.cpp
// The CalDAV change history kept beside the snapshot: written with each snapshot kept, read back by a new
// History (a restart, another replica) that goes on under the same epoch, so an old token syncs exactly the
// change; a kept history that does not reach the snapshot, is damaged, or was forgotten starts anew, and a
// token the kept history never recorded (given out by a run that crashed first) is refused. A snapshot cut
// ahead of its publication (prepare) is recorded as the same change.
#include "dav/history_files.hpp"
#include "dav/history_state.hpp"
#include "support/fixtures.hpp"
#include <icsbridge/dav.hpp>
#include <icsbridge/files.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>

using namespace icsbridge;

namespace dav_history_test {

std::string event(std::string const& uid, std::string const& summary) {
    std::string const text = "BEGIN:VEVENT\nUID:" + uid +
                             "\nDTSTAMP:20260101T000000Z\nDTSTART:20260301T190000Z\nDTEND:20260301T200000Z"
                             "\nSUMMARY:" +
                             summary + "\nEND:VEVENT\n";
    return text;
}

std::shared_ptr<Snapshot const> snap(std::string const& items) {
    std::string body;
    for (char c : "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//icsbridge//EN\n" + items + "END:VCALENDAR\n")
        body += c == '\n' ? std::string("\r\n") : std::string(1, c);
    auto const t = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    return make_snapshot(body, 2, t, t, false);
}

std::string const v1 = event("a@x", "Berlin") + event("b@x", "Online");
std::string const v2 = event("a@x", "Berlin, moved") + event("b@x", "Online");
std::string const v3 = event("a@x", "Berlin, moved") + event("c@x", "New");

sys_seconds const t0 = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
auto const month = std::chrono::hours(24 * 30);

/** A History whose kept history lives in `dir`, as serve wires it: a snapshot kept is followed by it. */
struct Box {
    std::string dir;
    std::shared_ptr<dav::History> history = std::make_shared<dav::History>(month);
    explicit Box(std::string d)
        : dir(std::move(d)) {
        history->keep_with(std::make_shared<dav::HistoryFiles>(dir));
    }
    /** The snapshot kept as the keeper keeps it: the file, then the history up to it beside it. */
    void keep(std::string const& feed, Snapshot const& s) const {
        auto backend = dav::HistoryBeside(
            std::make_shared<DiskSnapshots>(dir),
            dir,
            [this](auto const& f, auto const& s) { return history->kept_form(f, s.etag); }
        );
        BOOST_TEST_REQUIRE(backend.save(feed, s, s.fetched_at).has_value());
    }
};

} // namespace dav_history_test

BOOST_AUTO_TEST_SUITE(dav_history_test)

using namespace dav_history_test;

BOOST_AUTO_TEST_CASE(a_token_from_before_a_restart_syncs_exactly_the_change) {
    test::TempDir dir;
    std::string token;
    std::uint64_t epoch = 0;
    {
        Box box(dir.path());
        auto const s1 = snap(v1);
        auto const c1 = box.history->collection("f", s1, t0);
        auto const s2 = snap(v2);
        auto const c2 = box.history->collection("f", s2, t0);
        box.keep("f", *s2);
        token = c2->token();
        epoch = c2->epoch;
        BOOST_TEST(std::filesystem::exists(dav::history_path(dir.path(), "f")));
    }
    // The next run: the kept snapshot (other objects, the same bytes) takes up the kept history.
    Box box(dir.path());
    auto const restored = load_snapshot(dir.path(), "f", false);
    BOOST_TEST_REQUIRE(restored.has_value());
    auto const again = box.history->adopt("f", *restored, t0);
    BOOST_TEST(again->epoch == epoch);
    BOOST_TEST(again->token() == token);
    BOOST_TEST(box.history->since("f", *again, token)->changed.empty());
    // An upstream change after the restart: the old token lists exactly it (c@x appeared, b@x went away).
    auto const c3 = box.history->collection("f", snap(v3), t0);
    auto const changes = box.history->since("f", *c3, token);
    BOOST_TEST_REQUIRE(changes.has_value());
    BOOST_TEST(changes->changed.size() == 1u);
    BOOST_TEST(changes->gone.size() == 1u);
    BOOST_TEST(c3->find(changes->changed[0]) != nullptr);
    BOOST_TEST(again->find(changes->gone[0]) != nullptr);
    BOOST_TEST(c3->epoch == epoch);
}

BOOST_AUTO_TEST_CASE(a_snapshot_cut_ahead_is_recorded_as_the_same_change) {
    // The Publisher's preparer cuts each snapshot before it is served; recording it then is as cutting it
    // then.
    dav::History plain(month);
    dav::History ahead(month);
    auto const s1 = snap(v1);
    auto const s2 = snap(v2);
    auto const p1 = plain.collection("f", s1, t0);
    auto const p2 = plain.collection("f", s2, t0);
    ahead.prepare("f", s1);
    auto const a1 = ahead.collection("f", s1, t0);
    ahead.prepare("f", s2);
    ahead.prepare("f", s1); // recorded already: nothing to cut
    auto const a2 = ahead.collection("f", s2, t0);
    BOOST_TEST(a2->seq == p2->seq);
    BOOST_TEST(a2->items.size() == p2->items.size());
    auto const from_plain = plain.since("f", *p2, p1->token());
    auto const from_ahead = ahead.since("f", *a2, a1->token());
    BOOST_TEST_REQUIRE(from_ahead.has_value());
    BOOST_TEST(from_ahead->changed == from_plain->changed);
    BOOST_TEST(from_ahead->changed.size() == 1u);
    // Cut against v2, but another snapshot (v1's bytes again) was recorded first: its changes are found anew,
    // from v1 to v3 (a@x changed, c@x appeared, b@x gone), not v2's to v3.
    auto const s3 = snap(v3);
    ahead.prepare("f", s3);
    auto const back = ahead.collection("f", snap(v1), t0);
    auto const a3 = ahead.collection("f", s3, t0);
    auto const changes = ahead.since("f", *a3, back->token());
    BOOST_TEST_REQUIRE(changes.has_value());
    BOOST_TEST(changes->changed.size() == 2u);
    BOOST_TEST(changes->gone.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_token_the_kept_history_never_recorded_is_refused) {
    test::TempDir dir;
    std::string lost;
    {
        Box box(dir.path());
        auto const s1 = snap(v1);
        (void)box.history->collection("f", s1, t0);
        box.keep("f", *s1);
        // Published and handed out, but the run ended before its keeper wrote it.
        lost = box.history->collection("f", snap(v2), t0)->token();
    }
    Box box(dir.path());
    auto const restored = box.history->adopt("f", *load_snapshot(dir.path(), "f", false), t0);
    BOOST_TEST(!box.history->since("f", *restored, lost)); // ahead of the history
    // The next publication must not give that sequence another meaning: it skips past it.
    auto const next = box.history->collection("f", snap(v3), t0);
    BOOST_TEST(next->token() != lost);
    BOOST_TEST(!box.history->since("f", *next, lost));
    auto const since_restored = box.history->since("f", *next, restored->token());
    BOOST_TEST(since_restored->changed.size() == 2u); // a@x renamed, c@x new
    BOOST_TEST(since_restored->gone.size() == 1u);    // b@x
}

BOOST_AUTO_TEST_CASE(a_history_that_does_not_reach_the_snapshot_starts_anew) {
    test::TempDir dir;
    std::string token;
    {
        Box box(dir.path());
        auto const s1 = snap(v1);
        token = box.history->collection("f", s1, t0)->token();
        box.keep("f", *s1);
    }
    // Other bytes than the kept history's: nothing to go on from, a new epoch, the old token refused.
    Box box(dir.path());
    auto const other = box.history->collection("f", snap(v3), t0);
    BOOST_TEST(other->token() != token);
    BOOST_TEST(!box.history->since("f", *other, token));
    // A damaged file alike.
    BOOST_TEST_REQUIRE(
        write_file_atomically(dav::history_path(dir.path(), "g"), "{\"format\":1,\"epoch\":").has_value()
    );
    Box third(dir.path());
    BOOST_TEST(third.history->adopt("g", snap(v1), t0)->seq == 1u);
}

BOOST_AUTO_TEST_CASE(a_forgotten_feed_loses_its_kept_history) {
    test::TempDir dir;
    Box box(dir.path());
    auto const s1 = snap(v1);
    auto const c1 = box.history->collection("f", s1, t0);
    box.keep("f", *s1);
    box.history->forget("f"); // removed by a reload
    BOOST_TEST(!std::filesystem::exists(dav::history_path(dir.path(), "f")));
    auto const back = box.history->adopt("f", *load_snapshot(dir.path(), "f", false), t0);
    BOOST_TEST(back->epoch != c1->epoch);
    BOOST_TEST(!box.history->since("f", *back, c1->token()));
}

BOOST_AUTO_TEST_CASE(a_peers_history_is_taken_whole) {
    // Replica A publishes and keeps; replica B adopts A's rows and answers A's tokens, and after B takes the
    // feed over, A's old token still lists exactly the change.
    dav::History a(month);
    auto const s1 = snap(v1);
    auto const c1 = a.collection("f", s1, t0);
    auto const s2 = snap(v2);
    auto const c2 = a.collection("f", s2, t0);
    test::TempDir b_dir;
    dav::History b(month);
    b.keep_with(std::make_shared<dav::HistoryFiles>(b_dir.path()));
    // B had a collection of its own first (a request before the row's publication reached its history).
    auto const own = b.collection("f", snap(v1), t0);
    BOOST_TEST(own->epoch != c1->epoch);
    BOOST_TEST_REQUIRE(dav::save_history_file(b_dir.path(), "f", a.kept_form("f", s2->etag)).has_value());
    auto const on_b = b.adopt("f", snap(v2), t0);
    BOOST_TEST(on_b->token() == c2->token());
    BOOST_TEST(b.since("f", *on_b, c1->token())->changed.size() == 1u);
    auto const b3 = b.collection("f", snap(v3), t0);
    BOOST_TEST(b3->epoch == c1->epoch);
    BOOST_TEST(b.since("f", *b3, c2->token())->changed.size() == 1u);
    BOOST_TEST(b.since("f", *b3, c2->token())->gone.size() == 1u);
}

BOOST_AUTO_TEST_CASE(the_kept_form_is_trimmed_and_checked) {
    dav::detail::HistoryState s;
    s.epoch = 0xfedcba9876543210ULL; // above 2^53: kept as text
    s.floor = 1;
    s.floor_etag = "\"e1\"";
    s.entries.push_back({2, t0 - std::chrono::hours(48), "\"e2\"", {"x.ics"}});
    s.entries.push_back({3, t0, "\"e3\"", {"y.ics", "z.ics"}});
    auto const back = dav::detail::from_kept(dav::detail::to_kept(s, 3));
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST(back->epoch == s.epoch);
    BOOST_TEST(back->entries.size() == 2u);
    BOOST_TEST(back->entries[1].names.size() == 2u);
    BOOST_TEST(dav::detail::from_kept(dav::detail::to_kept(s, 2))->entries.size() == 1u);
    BOOST_TEST(*back->point_of("\"e2\"") == 2u);
    BOOST_TEST(back->is_point(1));
    BOOST_TEST(back->is_point(3));
    BOOST_TEST(!back->is_point(4));
    auto trimmed = *back;
    trimmed.trim(t0 - std::chrono::hours(24));
    BOOST_TEST(trimmed.floor == 2u);
    BOOST_TEST(trimmed.floor_etag == "\"e2\"");
    BOOST_TEST(!trimmed.is_point(1));
    // Sequences that do not rise, or an epoch that is no number: not a kept form.
    auto bad = s;
    bad.entries[1].seq = 2;
    BOOST_TEST(!dav::detail::from_kept(dav::detail::to_kept(bad, 9)));
    BOOST_TEST(!dav::detail::from_kept(R"({"format":1,"epoch":"-1","floor":1,"floor_etag":"","entries":[]})")
    );
    BOOST_TEST(!dav::detail::from_kept("not json"));
    BOOST_TEST(!dav::detail::from_kept(""));
}

BOOST_AUTO_TEST_SUITE_END()
