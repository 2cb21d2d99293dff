// File: pg_cluster_test.cpp
// Cluster mode against a real PostgreSQL 15 (support/postgres_server.hpp): schema migration (twice and
// concurrently), snapshot rows round trip byte for byte, the fence, the catch-up after a degraded period,
// corrupt rows, NOTIFY, and leases that exactly one node wins and another takes over after expiry.
#include "cluster/cluster_snapshots.hpp"
#include "cluster/lease.hpp"
#include "cluster/oauth_token_rows.hpp"
#include "cluster/pg_snapshots.hpp"
#include "cluster/push_state_rows.hpp"
#include "cluster/schema.hpp"
#include "support/fixtures.hpp"
#include "support/postgres_server.hpp"
#include "support/server_fixtures.hpp"

#include <boost/test/unit_test.hpp>

#include <poll.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::cluster;
using namespace std::chrono_literals;
using icsbridge::test::shared_postgres;

namespace pg_cluster_test {

sys_seconds at(long long s) {
    return sys_seconds{std::chrono::seconds{s}};
}

/** A calendar (rows are checked like disk snapshots: only calendars are served) that carries `label`. */
std::string calendar(std::string const& label) {
    return "BEGIN:VCALENDAR\r\nX-TEST:" + label + "\r\nEND:VCALENDAR\r\n";
}

/** The label calendar() put in `body`. */
std::string label_of(std::string_view body) {
    auto const from = body.find("X-TEST:");
    return std::string(
        from == std::string::npos ? body : body.substr(from + 7, body.find('\r', from) - from - 7)
    );
}

std::shared_ptr<Snapshot const> snapshot(std::string const& label, long long fetched) {
    return make_snapshot(calendar(label), 2, at(1700000000), at(fetched), false);
}

/** Runs one statement on its own connection (to alter rows behind PgSnapshots' back). */
void sql(std::string const& url, std::string const& stmt) {
    PgConnection c(url);
    auto r = c.exec(stmt);
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
}

std::string body_of(PgSnapshots& db, std::string const& feed) {
    auto s = db.load(feed, false);
    BOOST_REQUIRE(s);
    BOOST_REQUIRE(*s);
    return label_of((*s)->body);
}

} // namespace pg_cluster_test

BOOST_AUTO_TEST_SUITE(pg_cluster_test)

BOOST_AUTO_TEST_CASE(migration_is_safe_twice_and_concurrently) {
    // Setup: four replicas starting at once on an empty database.
    auto const url = shared_postgres().fresh_database("migrate");
    std::atomic<int> ok{0};
    std::vector<std::thread> starts;
    for (int i = 0; i < 4; ++i)
        starts.emplace_back([&] {
            PgConnection c(url);
            if (auto v = migrate(c); v && *v == schema_version)
                ++ok;
        });
    for (auto& t : starts)
        t.join();
    // Check: every one found the schema in place, and a later start changes nothing.
    BOOST_TEST(ok.load() == 4);
    PgConnection c(url);
    auto again = migrate(c);
    BOOST_REQUIRE(again);
    BOOST_TEST(*again == schema_version);
    auto rows = c.query("SELECT count(*)::bigint FROM icsbridge_schema", {}, true);
    BOOST_REQUIRE(rows);
    PgRow const count{rows->get(), 0};
    BOOST_TEST(count.int8(0).value_or(-1) == 1);
}

BOOST_AUTO_TEST_CASE(a_newer_schema_is_refused) {
    auto const url = shared_postgres().fresh_database("newer");
    PgConnection c(url);
    BOOST_REQUIRE(migrate(c));
    sql(url, "UPDATE icsbridge_schema SET version = 99");
    auto v = migrate(c);
    BOOST_REQUIRE(!v);
    BOOST_TEST(v.error().message.find("upgrade icsbridge") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(round_trip_is_byte_identical) {
    auto const url = shared_postgres().fresh_database("roundtrip");
    PgSnapshots db(url, "node-a");
    // Bytes a text column would mangle: NUL, CRLF, invalid UTF-8, a backslash.
    std::string body = "BEGIN:VCALENDAR\r\nX:\\a";
    body.append(std::string("\0b\xff\xfe\0\x01\x02", 7));
    body += "\r\nEND:VCALENDAR\r\n";
    auto snap = make_snapshot(body, 2, at(1700000000), at(1700000100), false);
    BOOST_REQUIRE(db.save("feed-a", *snap, at(1700000200)));

    auto loaded = db.load("feed-a", true);
    BOOST_REQUIRE(loaded);
    BOOST_REQUIRE(*loaded);
    auto const& s = **loaded;
    BOOST_TEST(s.body == body);
    BOOST_TEST(s.etag == snap->etag);
    BOOST_TEST(s.last_modified_http == snap->last_modified_http);
    BOOST_TEST(s.fetched_at.time_since_epoch().count() == 1700000200);
    BOOST_TEST(s.items == 2u);
    // gzip is rebuilt on load, as from a disk snapshot.
    BOOST_TEST(!s.gzip_body.empty());

    auto none = db.load("no-such-feed", true);
    BOOST_REQUIRE(none);
    BOOST_TEST(!*none);
}

BOOST_AUTO_TEST_CASE(the_fence_refuses_older_writes) {
    auto const url = shared_postgres().fresh_database("fence");
    PgSnapshots db(url, "node-a");
    BOOST_REQUIRE(db.store("f", *snapshot("epoch 2, t=200", 200), at(200), 2).value());
    // Same epoch, an older fetch (a replica paused mid-refresh): refused, the row stays.
    BOOST_TEST(!db.store("f", *snapshot("epoch 2, t=100", 100), at(100), 2).value());
    // An older epoch (the lease changed hands since), even with a later clock: refused.
    BOOST_TEST(!db.store("f", *snapshot("epoch 1, t=900", 900), at(900), 1).value());
    BOOST_TEST(body_of(db, "f") == "epoch 2, t=200");
    // save() says so, for the refresher's log, and tells the replica to serve the row again.
    std::vector<std::string> refused;
    db.on_refused([&](std::string const& feed) { refused.push_back(feed); });
    auto saved = db.save("f", *snapshot("epoch 0", 300), at(300));
    BOOST_REQUIRE(!saved);
    BOOST_TEST(saved.error().message.find("newer snapshot of feed f") != std::string::npos);
    BOOST_TEST(refused == std::vector<std::string>{"f"});
    // The same epoch with a fetch as new or newer, or a newer epoch: written.
    BOOST_TEST(db.store("f", *snapshot("epoch 2, t=200 again", 200), at(200), 2).value());
    BOOST_TEST(db.store("f", *snapshot("epoch 3, t=150", 150), at(150), 3).value());
    BOOST_TEST(body_of(db, "f") == "epoch 3, t=150");
}

BOOST_AUTO_TEST_CASE(catch_up_writes_only_a_newer_fetch) {
    // Setup: the row of a lease holder (epoch 5, fetched at 200).
    auto const url = shared_postgres().fresh_database("catchup");
    PgSnapshots db(url, "node-a");
    BOOST_REQUIRE(db.store("f", *snapshot("holder's, t=200", 200), at(200), 5).value());
    // An older fetch of another calendar, and the same calendar fetched later: the row stays.
    BOOST_TEST(!db.catch_up("f", *snapshot("alone, t=150", 150), at(150)).value());
    BOOST_TEST(!db.catch_up("f", *snapshot("holder's, t=200", 200), at(400)).value());
    // A newer calendar fetched alone while the database was away: written, epoch kept.
    BOOST_TEST(db.catch_up("f", *snapshot("alone, t=300", 300), at(300)).value());
    BOOST_TEST(body_of(db, "f") == "alone, t=300");
    // The lease holder's next publish (epoch 5, a later fetch) still goes in; an older epoch still not.
    BOOST_TEST(!db.store("f", *snapshot("old epoch", 900), at(900), 4).value());
    BOOST_TEST(db.store("f", *snapshot("holder's, t=310", 310), at(310), 5).value());
    // No row at all: the catch-up creates it.
    BOOST_TEST(db.catch_up("g", *snapshot("first", 100), at(100)).value());
}

BOOST_AUTO_TEST_CASE(corrupt_and_foreign_rows_are_refused) {
    auto const url = shared_postgres().fresh_database("corrupt");
    PgSnapshots db(url, "node-a");
    for (auto const* feed : {"altered", "impossible", "foreign"})
        BOOST_REQUIRE(db.save(feed, *snapshot("the real body", 100), at(100)));
    // One byte of the body changed; a field out of range; a row written by something else, consistent
    // (its ETag is the true hash of its body) but not a calendar.
    sql(url,
        "UPDATE icsbridge_snapshots SET body = overlay(body placing 'x'::bytea from 18 for 1) "
        "WHERE feed = 'altered'");
    sql(url, "UPDATE icsbridge_snapshots SET items = -1 WHERE feed = 'impossible'");
    sql(url,
        "UPDATE icsbridge_snapshots SET body = '<html>gone</html>'::bytea, "
        "etag = '\"' || encode(sha256('<html>gone</html>'::bytea), 'hex') || '\"' WHERE feed = 'foreign'");
    std::map<std::string, std::string> const why = {
        {"altered", "does not match its ETag"},
        {"impossible", "impossible last_modified, fetched_at or items"},
        {"foreign", "is not an iCalendar stream"},
    };
    for (auto const& [feed, reason] : why) {
        auto r = db.load(feed, true);
        BOOST_REQUIRE(!r);
        BOOST_TEST((r.error().code == errc::snapshot_corrupt));
        BOOST_TEST(r.error().message.find("the row of feed " + feed + " ") != std::string::npos);
        BOOST_TEST(r.error().message.find(reason) != std::string::npos, r.error().message);
    }
}

BOOST_AUTO_TEST_CASE(a_lease_holder_replaces_an_unusable_row) {
    auto const url = shared_postgres().fresh_database("replace");
    std::int64_t epoch = 0;
    test::StringLogger logs;
    PgSnapshots db(
        url,
        "node-a",
        [&](std::string const&) { return epoch; },
        logs.logger()
    );
    std::vector<std::string> refused;
    db.on_refused([&](std::string const& feed) { refused.push_back(feed); });
    BOOST_REQUIRE(db.store("f", *snapshot("good", 100), at(100), 1).value());
    // A forged row whose fence fields would hold off every publish: a huge epoch, a fetch far ahead.
    sql(url,
        "UPDATE icsbridge_snapshots SET body = 'forged'::bytea, lease_epoch = 9000000000000000, "
        "fetched_at = 32503680000 WHERE feed = 'f'");
    // Without a lease (epoch 0): the fence refuses, nothing is replaced.
    BOOST_TEST(!db.save("f", *snapshot("no lease", 200), at(200)));
    BOOST_TEST(refused == std::vector<std::string>{"f"});
    BOOST_TEST(!db.load("f", false));
    // The lease holder: the unusable row gives way to its calendar, logged; peers are told as usual.
    epoch = 2;
    BOOST_REQUIRE(db.save("f", *snapshot("holder's", 200), at(200)));
    BOOST_TEST(body_of(db, "f") == "holder's");
    BOOST_TEST(refused.size() == 1u);
    BOOST_TEST(
        logs.joined().find("the row of feed f has a body that is not an iCalendar stream") !=
        std::string::npos
    );
    // The row it wrote carries its epoch again: the ordinary fence works from there.
    BOOST_TEST(!db.store("f", *snapshot("older epoch", 900), at(900), 1).value());
    BOOST_TEST(db.store("f", *snapshot("next", 300), at(300), 2).value());
    // A good row newer than the holder's calendar is never replaced.
    BOOST_TEST(db.store("f", *snapshot("newer epoch", 400), at(400), 3).value());
    BOOST_TEST(!db.save("f", *snapshot("holder's late", 500), at(500)));
    BOOST_TEST(body_of(db, "f") == "newer epoch");
}

BOOST_AUTO_TEST_CASE(a_replica_falls_back_on_its_cache) {
    // Setup: a replica's backend (rows + disk cache), one feed saved through it.
    auto const url = shared_postgres().fresh_database("cache");
    test::TempDir dir;
    test::StringLogger logs;
    auto rows = std::make_shared<PgSnapshots>(url, "node-a");
    ClusterSnapshots replica(rows, dir.path(), logs.logger());
    BOOST_REQUIRE(replica.save("c", *snapshot("cached body", 100), at(100)));
    // A peer's newer row wins over the cache, and refreshes it.
    BOOST_REQUIRE(rows->store("c", *snapshot("peer body", 200), at(200), 1).value());
    auto peer = replica.load("c", false);
    BOOST_REQUIRE(peer);
    BOOST_REQUIRE(*peer);
    BOOST_TEST(label_of((*peer)->body) == "peer body");
    BOOST_TEST(label_of(DiskSnapshots(dir.path()).load("c", false).value()->body) == "peer body");
    // A corrupt row: logged, never served; the cache stands in.
    sql(url,
        "UPDATE icsbridge_snapshots SET body = overlay(body placing 'x'::bytea from 18 for 1) WHERE feed = "
        "'c'");
    auto cached = replica.load("c", false);
    BOOST_REQUIRE(cached);
    BOOST_REQUIRE(*cached);
    BOOST_TEST(label_of((*cached)->body) == "peer body");
    BOOST_TEST(logs.joined().find("does not match its ETag") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_large_row_is_kept_in_a_nameless_file_in_storage_dir) {
    // Setup: a peer's large row, read by a replica whose served table keeps bodies in storage.dir.
    auto const url = shared_postgres().fresh_database("files");
    test::TempDir dir;
    auto const files = std::make_shared<SnapshotFiles const>(dir.path());
    auto rows = std::make_shared<PgSnapshots>(url, "node-a");
    ClusterSnapshots replica(rows, dir.path(), null_logger(), files);
    auto const text = test::calendar_body(2000);
    BOOST_REQUIRE(rows->store("big", *make_snapshot(text, 2000, at(100), at(100), false), at(100), 1).value()
    );
    // Run
    auto const loaded = replica.load("big", true);
    // Check: an unlinked O_TMPFILE (sent with sendfile() at any size), not a memfd; the same bytes.
    BOOST_REQUIRE(loaded && *loaded);
    auto const& body = (*loaded)->body;
    BOOST_REQUIRE(body.file() != nullptr);
    auto const target =
        std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(body.file()->fd())).string();
    BOOST_TEST(target.starts_with(std::filesystem::canonical(dir.path()).string() + "/#"));
    BOOST_TEST(body == text);
    BOOST_TEST(test::gunzipped((*loaded)->gzip_body) == text);
}

BOOST_AUTO_TEST_CASE(a_save_notifies_peers) {
    auto const url = shared_postgres().fresh_database("notify");
    PgSnapshots db(url, "node-a");
    BOOST_REQUIRE(db.prepare());
    PgConnection listener(url);
    BOOST_REQUIRE(listener.exec("LISTEN icsbridge_snapshot"));

    BOOST_REQUIRE(db.store("n1", *snapshot("v1", 100), at(100), 1).value());
    BOOST_REQUIRE(!db.store("n1", *snapshot("old", 50), at(50), 1).value());

    std::vector<std::string> heard;
    auto const deadline = std::chrono::steady_clock::now() + 5s;
    while (heard.empty() && std::chrono::steady_clock::now() < deadline) {
        pollfd p{PQsocket(listener.raw()), POLLIN, 0};
        ::poll(&p, 1, 100);
        PQconsumeInput(listener.raw());
        while (PGnotify* n = PQnotifies(listener.raw())) {
            heard.emplace_back(n->extra);
            PQfreemem(n);
        }
    }
    // Let a (wrong) second notification arrive if there were one.
    std::this_thread::sleep_for(200ms);
    PQconsumeInput(listener.raw());
    while (PGnotify* n = PQnotifies(listener.raw())) {
        heard.emplace_back(n->extra);
        PQfreemem(n);
    }
    // One write, one notification: the refused write announced nothing.
    BOOST_TEST(heard == std::vector<std::string>{"n1"});
}

BOOST_AUTO_TEST_CASE(two_replicas_given_the_same_node_name_still_take_turns) {
    // One config file copied to every box names the same node everywhere: the lease is still one
    // process's, and one of them releasing (stopping) leaves the other's lease alone.
    auto const url = shared_postgres().fresh_database("samename");
    PgConnection ca(url), cb(url);
    BOOST_REQUIRE(migrate(ca));
    Leases a(ca, "replica", 30s), b(cb, "replica", 30s);
    BOOST_TEST(a.holder() != b.holder());
    auto holds = [](Leases& l) {
        auto claim = l.claim("group-1");
        BOOST_REQUIRE_MESSAGE(claim, (claim ? "" : claim.error().message));
        return claim->held;
    };
    BOOST_TEST(holds(a));
    BOOST_TEST(!holds(b));
    BOOST_REQUIRE(b.release("group-1"));
    BOOST_TEST(!holds(b));
    BOOST_TEST(holds(a));
}

BOOST_AUTO_TEST_CASE(one_node_wins_a_lease_another_takes_over_after_expiry) {
    auto const url = shared_postgres().fresh_database("leases");
    PgConnection ca(url), cb(url);
    BOOST_REQUIRE(migrate(ca));
    Leases a(ca, "node-a", 2s), b(cb, "node-b", 2s);

    auto first = a.claim("group-1");
    BOOST_REQUIRE(first);
    BOOST_TEST(first->held);
    auto lost = b.claim("group-1");
    BOOST_REQUIRE(lost);
    BOOST_TEST(!lost->held);
    BOOST_TEST(lost->holder == a.holder());
    BOOST_TEST(lost->holder.starts_with("node-a/"));
    BOOST_TEST(lost->remaining.count() > 0);
    BOOST_TEST((refresh_turn(lost, 500ms) == RefreshTurn::theirs));
    // Renewing keeps the epoch: no one else wrote in between.
    auto renewed = a.claim("group-1");
    BOOST_REQUIRE(renewed);
    BOOST_TEST(renewed->held);
    BOOST_TEST(renewed->epoch == first->epoch);

    // node-a stops renewing (killed, paused): node-b gets it once the claim lapses, with a newer epoch.
    std::this_thread::sleep_for(renewed->remaining + 200ms);
    auto taken = b.claim("group-1");
    BOOST_REQUIRE(taken);
    BOOST_TEST(taken->held);
    BOOST_TEST(taken->epoch == first->epoch + 1);
    auto back = a.claim("group-1");
    BOOST_REQUIRE(back);
    BOOST_TEST(!back->held);
    BOOST_TEST(back->holder == b.holder());

    // A release hands it over at once.
    BOOST_REQUIRE(b.release("group-1"));
    auto after_release = a.claim("group-1");
    BOOST_REQUIRE(after_release);
    BOOST_TEST(after_release->held);
}

BOOST_AUTO_TEST_CASE(concurrent_claims_have_one_winner) {
    auto const url = shared_postgres().fresh_database("contend");
    {
        PgConnection c(url);
        BOOST_REQUIRE(migrate(c));
    }
    constexpr int nodes = 6;
    std::atomic<int> ready{0}, winners{0}, answered{0};
    std::vector<std::thread> ts;
    for (int i = 0; i < nodes; ++i)
        ts.emplace_back([&, i] {
            PgConnection c(url);
            (void)c.ensure();
            Leases l(c, "node-" + std::to_string(i), 30s);
            // Start together, so the claims really race.
            ++ready;
            while (ready.load() < nodes)
                std::this_thread::yield();
            if (auto r = l.claim("contended")) {
                ++answered;
                winners += r->held ? 1 : 0;
            }
        });
    for (auto& t : ts)
        t.join();
    BOOST_TEST(answered.load() == nodes);
    BOOST_TEST(winners.load() == 1);
}

BOOST_AUTO_TEST_CASE(a_backend_that_stops_answering_is_given_up_and_the_statement_runs_on_a_new_one) {
    // The backend serving the connection stopped (as a hung server or a partition looks from here): the
    // statement must give it up by its deadline instead of holding the control thread for as long as TCP
    // waits, and run once more on a new connection (the postmaster still answers).
    auto const url = shared_postgres().fresh_database("stopped");
    PgConnection c(url, 1000ms);
    auto pid = c.query("SELECT pg_backend_pid()");
    BOOST_REQUIRE_MESSAGE(pid, (pid ? "" : pid.error().message));
    pid_t const backend = std::stoi(PQgetvalue(pid->get(), 0, 0));
    BOOST_REQUIRE(::kill(backend, SIGSTOP) == 0);
    auto again = c.query("SELECT pg_backend_pid()");
    ::kill(backend, SIGCONT);
    BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().message));
    BOOST_TEST(std::stoi(PQgetvalue(again->get(), 0, 0)) != backend);
    // A multi-statement exec() reports the statement that failed, not a later one.
    auto bad = c.exec("SELECT 1; SELECT * FROM no_such_table; SELECT 2");
    BOOST_REQUIRE(!bad);
    BOOST_TEST(bad.error().message.find("no_such_table") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_connection_that_heard_nothing_makes_its_siblings_start_afresh) {
    // A server gone without a reset takes every connection to it along: once one has waited out its
    // deadline, the others of the same PgServer connect anew at their next statement rather than each wait
    // as long. A connection to the same URL through another PgServer (another replica) is left alone.
    auto const url = shared_postgres().fresh_database("silence");
    auto server = std::make_shared<PgServer>(url);
    PgConnection a(server, 1000ms), b(server, 1000ms), in_tx(server, 1000ms), elsewhere(url, 1000ms);
    auto backend_of = [](PgConnection& c) -> pid_t {
        auto r = c.query("SELECT pg_backend_pid()");
        BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
        return std::stoi(PQgetvalue(r->get(), 0, 0));
    };
    pid_t const a0 = backend_of(a), b0 = backend_of(b), elsewhere0 = backend_of(elsewhere);
    pid_t const in_tx0 = backend_of(in_tx);
    BOOST_REQUIRE(in_tx.exec("BEGIN"));
    BOOST_TEST(server->silences() == 0u);
    BOOST_REQUIRE(::kill(a0, SIGSTOP) == 0);
    auto const again = a.query("SELECT 1");
    ::kill(a0, SIGCONT);
    BOOST_REQUIRE_MESSAGE(again, (again ? "" : again.error().message));
    BOOST_TEST(server->silences() == 1u);
    auto const connects = b.connects();
    BOOST_TEST(backend_of(b) != b0);
    BOOST_TEST(b.connects() == connects + 1);
    BOOST_TEST(backend_of(b) != b0); // and only once: the silence was heard
    BOOST_TEST(b.connects() == connects + 1);
    BOOST_TEST(backend_of(elsewhere) == elsewhere0);
    // A connection inside a transaction keeps it: a new one would run the rest outside the transaction.
    BOOST_TEST(backend_of(in_tx) == in_tx0);
    BOOST_CHECK(in_tx.exec("COMMIT"));
}

BOOST_AUTO_TEST_CASE(errors_never_show_the_password) {
    // Nothing listens in this directory: the connection fails, and its message must not carry the password.
    PgConnection c("postgresql://icsbridge:hunter2-secret@/nodb?host=/nonexistent-dir");
    auto r = c.ensure();
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.error().message.find("hunter2") == std::string::npos);
    BOOST_TEST(r.error().message.find("icsbridge:***@") != std::string::npos);
    PgSnapshots db("postgresql://u:hunter2-secret@/nodb?host=/nonexistent-dir", "n");
    auto l = db.load("x", false);
    BOOST_REQUIRE(!l);
    BOOST_TEST((l.error().code == errc::io_error));
    BOOST_TEST(l.error().message.find("hunter2") == std::string::npos);
    BOOST_TEST(db.where().find("hunter2") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(errors_are_one_log_line) {
    // A statement's error: libpq adds the SQL with a caret under it, on lines of their own.
    PgConnection c(shared_postgres().fresh_database("oneline"));
    auto r = c.query("SELECT 1\nFROM no_such_table");
    BOOST_REQUIRE(!r);
    auto const& m = r.error().message;
    BOOST_TEST(m.find('\n') == std::string::npos, m);
    BOOST_TEST(m.find("relation \"no_such_table\" does not exist") != std::string::npos, m);
    BOOST_TEST(m.find('^') == std::string::npos, m);
    // A connection's error keeps each of its lines, joined.
    PgConnection away("postgresql:///nodb?host=/nonexistent-dir");
    auto e = away.ensure();
    BOOST_REQUIRE(!e);
    BOOST_TEST(e.error().message.find('\n') == std::string::npos, e.error().message);
}

BOOST_AUTO_TEST_CASE(a_database_replaced_by_an_empty_one_gets_its_schema_again) {
    // A backend that migrated once, then its database is emptied under it and the connection lost, as when
    // a replica's database is restored empty or fails over to a fresh server.
    auto const url = shared_postgres().fresh_database("emptied");
    PgSnapshots db(url, "node-a");
    BOOST_REQUIRE(db.save("f", *snapshot("before", 100), at(100)));
    // Every table of ours, so a later migration's table cannot survive the emptying and fail the next one.
    sql(url,
        "DO $$DECLARE t text; BEGIN FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
        "AND tablename LIKE 'icsbridge%' LOOP EXECUTE 'DROP TABLE ' || quote_ident(t) || ' CASCADE'; END "
        "LOOP; "
        "END$$; SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()");
    {
        PgConnection c(url);
        auto left =
            c.query("SELECT count(*)::bigint FROM pg_tables WHERE tablename LIKE 'icsbridge%'", {}, true);
        BOOST_REQUIRE(left);
        PgRow const tables{left->get(), 0};
        BOOST_TEST(tables.int8(0).value_or(-1) == 0);
    }
    // The first call meets the lost connection; the next reconnects, creates the schema, and works.
    (void)db.save("f", *snapshot("after", 200), at(200));
    BOOST_REQUIRE(db.save("f", *snapshot("after", 200), at(200)));
    BOOST_TEST(body_of(db, "f") == "after");
}

BOOST_AUTO_TEST_CASE(a_push_targets_state_row_is_what_the_last_replica_saved) {
    auto const url = shared_postgres().fresh_database("push_state");
    PgSnapshots schema(url, "node-a"); // migrates on first use
    BOOST_REQUIRE(schema.save("f", *snapshot("x", 100), at(100)));
    PushStateRows a(url, "node-a");
    PushStateRows b(url, "node-b");
    auto none = b.load("family");
    BOOST_REQUIRE(none);
    BOOST_TEST(!none->has_value());
    BOOST_REQUIRE(a.save("family", R"({"v":1})"));
    BOOST_REQUIRE(b.save("family", R"({"v":2})")); // the replica that took over the lease
    auto seen = a.load("family");
    BOOST_REQUIRE(seen);
    BOOST_TEST(seen->value() == R"({"v":2})");
    auto other = a.load("work");
    BOOST_REQUIRE(other);
    BOOST_TEST(!other->has_value());
}

BOOST_AUTO_TEST_CASE(an_oauth_token_row_is_what_the_last_replica_saved_and_makes_its_own_schema) {
    // `icsbridge connect` runs without a cluster node: the rows migrate the database themselves.
    auto const url = shared_postgres().fresh_database("oauth_tokens");
    OAuthTokenRows a(url, "node-a");
    OAuthTokenRows b(url, "node-b");
    auto none = b.load("work");
    BOOST_REQUIRE(none);
    BOOST_TEST(!none->has_value());
    BOOST_REQUIRE(a.save("work", R"({"refresh_token":"r1"})"));
    BOOST_REQUIRE(b.save("work", R"({"refresh_token":"r2"})")); // rotated on the other replica
    auto seen = a.load("work");
    BOOST_REQUIRE(seen);
    BOOST_TEST(seen->value() == R"({"refresh_token":"r2"})");
    auto other = a.load("office");
    BOOST_REQUIRE(other);
    BOOST_TEST(!other->has_value());
}

BOOST_AUTO_TEST_SUITE_END()
