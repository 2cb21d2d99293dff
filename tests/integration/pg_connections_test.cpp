// File: pg_connections_test.cpp
// The self-serve connections in a real PostgreSQL 15 (support/postgres_server.hpp), two store objects
// standing for two replicas: what one writes the other lists, a claim one made the other refuses, the
// generation moves on put and remove only, a status write never brings back a disconnected row.
#include "cluster/connection_rows.hpp"
#include "cluster/pg.hpp"
#include "cluster/schema.hpp"
#include "support/fixtures.hpp"
#include "support/postgres_server.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <thread>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::cluster;
using icsbridge::connect::Connection;
using icsbridge::test::shared_postgres;
using icsbridge::test::StringLogger;
using std::chrono::sys_seconds;

namespace pg_connections_test {

constexpr char const* sealed_sentinel = "SEALED-v1.c2VjcmV0LXJlZnJlc2gtdG9rZW4";

sys_seconds now_s() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

Connection sample(std::string id) {
    Connection c;
    c.id = std::move(id);
    c.provider = "microsoft";
    c.feed = "family";
    c.view = "days=90";
    c.token_hash = connect::connection_hash("feed-token");
    c.key_hash = connect::connection_hash("management-secret");
    c.client_id = "00000000-0000-0000-0000-000000000000";
    c.scope = "offline_access Calendars.ReadWrite";
    c.sealed_token = sealed_sentinel;
    c.calendar = "Family ✓";
    c.created_at = sys_seconds{std::chrono::seconds{1795000000}};
    return c;
}

/** Runs statements on a connection of its own (to change rows behind the stores' backs). */
void sql(std::string const& url, std::string const& stmt) {
    PgConnection c(url);
    auto r = c.exec(stmt);
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
}

std::int64_t count(std::string const& url, std::string const& stmt) {
    PgConnection c(url);
    auto r = c.query(stmt, {}, true);
    BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
    return PgRow{r->get(), 0}.int8(0).value_or(-1);
}

} // namespace pg_connections_test

BOOST_AUTO_TEST_SUITE(pg_connections_test)

BOOST_AUTO_TEST_CASE(what_one_replica_writes_the_other_sees) {
    // Setup: two replicas on a fresh database (the first call migrates it).
    auto const url = shared_postgres().fresh_database("connections");
    StringLogger log;
    auto a = pg_connections(url, "node-a", log.logger());
    auto b = pg_connections(url, "node-b", log.logger());
    BOOST_TEST(b->list().value().empty());
    auto const g0 = b->generation().value();
    // Run: a connects two calendars, replaces one.
    auto one = sample("AAAAAAAAAAAAAAAAAAAAAA");
    auto two = sample("BBBBBBBBBBBBBBBBBBBBBB");
    BOOST_TEST_REQUIRE(a->put(one).has_value());
    BOOST_TEST_REQUIRE(a->put(two).has_value());
    one.view = "days=30";
    BOOST_TEST_REQUIRE(a->put(one).has_value());
    // Check: b lists and gets them exactly, and sees the generation move.
    auto const g1 = b->generation().value();
    BOOST_TEST(g1 != g0);
    auto all = b->list().value();
    BOOST_TEST_REQUIRE(all.size() == 2u);
    BOOST_TEST(((all[0] == one && all[1] == two) || (all[0] == two && all[1] == one)));
    BOOST_TEST((b->get(one.id).value() == one));
    BOOST_TEST(!b->get("CCCCCCCCCCCCCCCCCCCCCC").value().has_value());
    BOOST_TEST(!b->get("'; DROP TABLE x; --").value().has_value());
    BOOST_TEST(
        count(url, "SELECT count(*)::bigint FROM icsbridge_connections WHERE saved_by = 'node-a'") == 2
    );
    // b disconnects one: a sees it gone and the generation moved; a second removal is false and moves
    // nothing.
    BOOST_TEST(b->remove(two.id).value());
    auto const g2 = a->generation().value();
    BOOST_TEST(g2 != g1);
    BOOST_TEST(!a->remove(two.id).value());
    BOOST_TEST(a->generation().value() == g2);
    BOOST_TEST(a->list().value().size() == 1u);
    BOOST_TEST(log.joined().empty(), log.joined());
}

BOOST_AUTO_TEST_CASE(a_status_write_keeps_the_rest_and_never_resurrects) {
    auto const url = shared_postgres().fresh_database("connection_status");
    auto web = pg_connections(url, "node-a", icsbridge::null_logger());
    auto pusher = pg_connections(url, "node-b", icsbridge::null_logger());
    auto const kept = sample("AAAAAAAAAAAAAAAAAAAAAA");
    BOOST_TEST_REQUIRE(web->put(kept).has_value());
    auto const g = web->generation().value();
    // Run: the pusher's copy, its status new and its other fields stale.
    auto status = kept;
    status.last_success = now_s();
    status.last_error = "Microsoft answered 503";
    status.items = 12;
    status.stopped = true;
    status.sealed_token = "stale";
    status.calendar = "stale";
    BOOST_TEST(pusher->put_status(status).value());
    // Check: the status taken, the rest as the web replica wrote it, no generation change.
    auto want = kept;
    connect::copy_status(status, want);
    BOOST_TEST((web->get(kept.id).value() == want));
    BOOST_TEST(web->generation().value() == g);
    // The same status again is no change and succeeds.
    BOOST_TEST(pusher->put_status(status).value());
    // Disconnected meanwhile: the status write is a no-op, the row stays gone.
    BOOST_TEST(web->remove(kept.id).value());
    BOOST_TEST(!pusher->put_status(status).value());
    BOOST_TEST(count(url, "SELECT count(*)::bigint FROM icsbridge_connections") == 0);
}

BOOST_AUTO_TEST_CASE(concurrent_status_writes_and_puts_lose_nothing) {
    // A web replica rewriting the record (a reconnect) while the pusher writes status: both land.
    auto const url = shared_postgres().fresh_database("connection_race");
    auto web = pg_connections(url, "node-a", icsbridge::null_logger());
    auto pusher = pg_connections(url, "node-b", icsbridge::null_logger());
    auto c = sample("AAAAAAAAAAAAAAAAAAAAAA");
    BOOST_TEST_REQUIRE(web->put(c).has_value());
    std::atomic<int> put_failures{0};
    std::thread writer([&] {
        // No Boost.Test assertion off the main thread: count, check after.
        auto w = c;
        for (int i = 0; i < 30; ++i) {
            w.calendar = "title " + std::to_string(i);
            put_failures += web->put(w).has_value() ? 0 : 1;
        }
    });
    int saved = 0;
    for (int i = 1; i <= 30; ++i) {
        auto s = c;
        s.items = static_cast<std::size_t>(i);
        auto r = pusher->put_status(s);
        saved += r.has_value() && *r ? 1 : 0;
    }
    writer.join();
    BOOST_TEST(put_failures.load() == 0);
    // Check: the last of each kind is there together (a later put carries its own status, so write once
    // more).
    BOOST_TEST(saved >= 1);
    auto last = c;
    last.items = 99;
    BOOST_TEST(pusher->put_status(last).value());
    auto got = web->get(c.id).value();
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(got->calendar == "title 29");
    BOOST_TEST(got->items == 99u);
}

BOOST_AUTO_TEST_CASE(a_claim_made_on_one_replica_is_refused_on_the_other) {
    auto const url = shared_postgres().fresh_database("connect_claims");
    auto a = pg_connections(url, "node-a", icsbridge::null_logger());
    auto b = pg_connections(url, "node-b", icsbridge::null_logger());
    auto const later = now_s() + std::chrono::minutes(10);
    BOOST_TEST(a->claim("state-1", later).value());
    BOOST_TEST(!b->claim("state-1", later).value());
    BOOST_TEST(!a->claim("state-1", later).value());
    BOOST_TEST(b->claim("state-2", later).value());
    // Expired states are refused, and only hashes are kept.
    BOOST_TEST(!a->claim("state-3", now_s() - std::chrono::seconds(5)).value());
    BOOST_TEST(
        count(url, "SELECT count(*)::bigint FROM icsbridge_connect_claims WHERE nonce LIKE 'state%'") == 0
    );
    // Expired rows are forgotten by the next claim; live ones stay.
    sql(url,
        "INSERT INTO icsbridge_connect_claims (nonce, expires_at) VALUES ('old-1', 1000), ('old-2', 2000)");
    BOOST_TEST(b->claim("state-4", later).value());
    BOOST_TEST(count(url, "SELECT count(*)::bigint FROM icsbridge_connect_claims") == 3);
    // Racing replicas: each state granted exactly once.
    std::atomic<int> granted{0};
    std::vector<std::thread> threads;
    for (int r = 0; r < 4; ++r)
        threads.emplace_back([&, r] {
            auto mine = pg_connections(url, "node-" + std::to_string(r), icsbridge::null_logger());
            for (int n = 0; n < 20; ++n) {
                auto r = mine->claim("race-" + std::to_string(n), later);
                granted += r.has_value() && *r ? 1 : 0;
            }
        });
    for (auto& t : threads)
        t.join();
    BOOST_TEST(granted.load() == 20);
}

BOOST_AUTO_TEST_CASE(a_corrupt_row_is_skipped_with_one_warning) {
    auto const url = shared_postgres().fresh_database("connection_corrupt");
    StringLogger log;
    auto store = pg_connections(url, "node-a", log.logger());
    BOOST_TEST_REQUIRE(store->put(sample("AAAAAAAAAAAAAAAAAAAAAA")).has_value());
    sql(url,
        "INSERT INTO icsbridge_connections (id, body) VALUES ('BBBBBBBBBBBBBBBBBBBBBB', "
        "'{\"version\":1,\"sealed_token\":\"" +
            std::string(sealed_sentinel) + "'), ('../x', '{}')");
    BOOST_TEST(store->list().value().size() == 1u);
    BOOST_TEST(store->list().value().size() == 1u);
    BOOST_TEST(log.lines().size() == 2u, log.joined());
    BOOST_TEST(log.joined().find("BBBBBBBBBBBBBBBBBBBBBB") != std::string::npos, log.joined());
    BOOST_TEST(log.joined().find(sealed_sentinel) == std::string::npos);
    auto got = store->get("BBBBBBBBBBBBBBBBBBBBBB");
    BOOST_TEST_REQUIRE(!got.has_value());
    BOOST_TEST(got.error().message.find(sealed_sentinel) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_schema_has_the_connection_tables) {
    auto const url = shared_postgres().fresh_database("connection_schema");
    PgConnection c(url);
    BOOST_TEST_REQUIRE(migrate(c).value() == schema_version);
    BOOST_TEST(count(url, "SELECT generation FROM icsbridge_connections_generation") == 1);
    BOOST_TEST(count(url, "SELECT count(*)::bigint FROM icsbridge_connect_claims") == 0);
}

BOOST_AUTO_TEST_SUITE_END()
