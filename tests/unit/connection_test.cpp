// File: connection_test.cpp
// The self-serve connection records (src/connect/): their JSON both ways, every field's error, the id
// check, and the disk store (files and modes, the status write, corrupt files, claims, the generation).
#include "connect/connection.hpp"
#include "connect/connection_store.hpp"
#include "support/fixtures.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::connect;
using icsbridge::test::StringLogger;
using icsbridge::test::TempDir;
using std::chrono::sys_seconds;

namespace connection_test {

// Stand-ins for what must never reach a message or a log.
constexpr char const* sealed_sentinel = "SEALED-v1.c2VjcmV0LXJlZnJlc2gtdG9rZW4";

sys_seconds at(long long s) {
    return sys_seconds{std::chrono::seconds{s}};
}

sys_seconds now_s() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

/** A connection with every field set to something other than its default. */
Connection sample(std::string id = "AAAAAAAAAAAAAAAAAAAAAA") {
    Connection c;
    c.id = std::move(id);
    c.provider = "google";
    c.feed = "family";
    c.view = "days=90&alarm=none";
    c.token_hash = connection_hash("feed-token");
    c.key_hash = connection_hash("management-secret");
    c.client_id = "123.apps.googleusercontent.com";
    c.scope = "https://www.googleapis.com/auth/calendar.app.created";
    c.sealed_token = sealed_sentinel;
    c.calendar = "Family – \"events\" ✓";
    c.created_at = at(1795000000);
    c.last_success = at(1795000600);
    c.last_failure = at(1795000300);
    c.last_error = "Google answered 503";
    c.items = 42;
    c.stopped = true;
    return c;
}

/** sample()'s JSON with `key` set to `to`, or removed when `drop`. */
std::string with(std::string const& key, boost::json::value to, bool drop = false) {
    auto v = boost::json::parse(to_json(sample()));
    auto& o = v.as_object();
    if (drop)
        o.erase(key);
    else
        o[key] = std::move(to);
    return boost::json::serialize(v);
}

std::string error_of(std::string const& text) {
    auto r = connection_from_json(text);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error().code == errc::io_error));
    BOOST_TEST(r.error().message.find(sealed_sentinel) == std::string::npos, r.error().message);
    return r.error().message;
}

unsigned mode_of(std::string const& path) {
    struct stat st {};
    BOOST_TEST_REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

void write_text(std::string const& path, std::string const& text) {
    std::ofstream(path, std::ios::binary) << text;
}

} // namespace connection_test

BOOST_AUTO_TEST_SUITE(connection_test)

BOOST_AUTO_TEST_CASE(json_round_trip_keeps_every_field) {
    // Setup: every field set, then the optional times absent and the flags at their defaults.
    auto const full = sample();
    auto bare = sample("abcdefghijklmnopqrstu_");
    bare.view.clear();
    bare.token_hash.clear();
    bare.last_success.reset();
    bare.last_failure.reset();
    bare.last_error.clear();
    bare.items = 0;
    bare.stopped = false;
    for (auto const& c : {full, bare}) {
        // Run
        auto const text = to_json(c);
        auto back = connection_from_json(text);
        // Check
        BOOST_TEST_REQUIRE(back.has_value(), text);
        BOOST_TEST((*back == c), text);
    }
    auto const text = to_json(full);
    BOOST_TEST(text.find(R"("version":1)") != std::string::npos, text);
    BOOST_TEST(text.find(R"("created_at":"2026-11-18T)") != std::string::npos, text);
    BOOST_TEST(to_json(bare).find(R"("last_success":null)") != std::string::npos);
    // Keys in another order read the same.
    auto v = boost::json::parse(text).as_object();
    boost::json::object reversed;
    for (auto it = v.end(); it != v.begin();) {
        --it;
        reversed[it->key()] = it->value();
    }
    BOOST_TEST((connection_from_json(boost::json::serialize(reversed)).value() == full));
}

BOOST_AUTO_TEST_CASE(each_wrong_field_is_named_never_its_value) {
    BOOST_TEST(error_of("not json") == "the connection record is not a JSON object");
    BOOST_TEST(error_of("[1]") == "the connection record is not a JSON object");
    BOOST_TEST(error_of(with("version", 2)).find("not version 1") != std::string::npos);
    BOOST_TEST(error_of(with("version", 1, true)).find("not version 1") != std::string::npos);
    std::vector<std::string> const texts = {
        "id",
        "provider",
        "feed",
        "view",
        "token_hash",
        "key_hash",
        "client_id",
        "scope",
        "sealed_token",
        "calendar",
        "last_error"};
    for (auto const& key : texts) {
        BOOST_TEST(
            error_of(with(key, 7)) == "the connection record is malformed: " + key + " is not a string"
        );
        BOOST_TEST(
            error_of(with(key, nullptr, true)) == "the connection record is malformed: " + key + " is missing"
        );
    }
    for (std::string key : {"created_at", "last_success", "last_failure", "items", "stopped"})
        BOOST_TEST(
            error_of(with(key, nullptr, true)) == "the connection record is malformed: " + key + " is missing"
        );
    // Values each field refuses.
    auto const why = [](std::string const& key, boost::json::value v) {
        auto const m = error_of(with(key, std::move(v)));
        BOOST_TEST(m.find("malformed: " + key + " is not") != std::string::npos, m);
    };
    why("id", "AAAA/AAAAAAAAAAAAAAAAA");
    why("id", "AAAAAAAAAAAAAAAAAAAAA");
    why("provider", "yahoo");
    why("token_hash", "abc");
    why("key_hash", "");
    why("key_hash", boost::json::string(64, 'A'));
    why("created_at", "yesterday");
    why("created_at", nullptr);
    why("created_at", "2026-11-18T10:00:00+01:00");
    why("created_at", "2026-13-18T10:00:00Z");
    why("created_at", "2026-11-18T10:61:00Z");
    why("last_success", 1795000000);
    why("last_failure", "2026-11-18 10:00:00");
    why("items", -1);
    why("items", 1.5);
    why("items", "3");
    why("stopped", "yes");
    why("stopped", 1);
    // A sealed token that is not text is named, and its neighbours' values never appear.
    BOOST_TEST(
        error_of(with("calendar", boost::json::array{sealed_sentinel})).find("calendar") != std::string::npos
    );
}

BOOST_AUTO_TEST_CASE(a_connection_id_is_22_base64url_characters) {
    BOOST_TEST(valid_connection_id("AAAAAAAAAAAAAAAAAAAAAA"));
    BOOST_TEST(valid_connection_id("aZ09-_aZ09-_aZ09-_aZ09"));
    BOOST_TEST(!valid_connection_id(""));
    BOOST_TEST(!valid_connection_id("AAAAAAAAAAAAAAAAAAAAA"));
    BOOST_TEST(!valid_connection_id("AAAAAAAAAAAAAAAAAAAAAAA"));
    for (char bad : std::string("/.+=%\\ \n'\"\0", 12)) {
        std::string id(22, 'A');
        id[10] = bad;
        BOOST_TEST(!valid_connection_id(id), "character " << int(bad));
    }
    BOOST_TEST(!valid_connection_id("../../../../etc/passwd"));
    BOOST_TEST(connection_hash("x").size() == 64u);
    BOOST_TEST(connection_hash("x") != connection_hash("y"));
}

BOOST_AUTO_TEST_CASE(disk_store_puts_gets_lists_and_removes) {
    // Setup
    TempDir dir;
    StringLogger log;
    auto store = disk_connections(dir.path(), log.logger());
    BOOST_TEST(store->list().value().empty());
    BOOST_TEST(!store->get("AAAAAAAAAAAAAAAAAAAAAA").value().has_value());
    auto const g0 = store->generation().value();
    // Run: two connections, one replaced.
    auto a = sample("AAAAAAAAAAAAAAAAAAAAAA");
    auto b = sample("BBBBBBBBBBBBBBBBBBBBBB");
    b.provider = "microsoft";
    BOOST_TEST_REQUIRE(store->put(a).has_value());
    auto const g1 = store->generation().value();
    BOOST_TEST(g1 != g0);
    BOOST_TEST_REQUIRE(store->put(b).has_value());
    a.calendar = "renamed";
    BOOST_TEST_REQUIRE(store->put(a).has_value());
    auto const g2 = store->generation().value();
    BOOST_TEST(g2 != g1);
    // Check: files and modes, then what is read back.
    auto const file = dir.file("connections/AAAAAAAAAAAAAAAAAAAAAA.json");
    BOOST_TEST(mode_of(file) == 0600u);
    BOOST_TEST(mode_of(dir.file("connections")) == 0700u);
    BOOST_TEST((store->get(a.id).value() == a));
    auto all = store->list().value();
    BOOST_TEST_REQUIRE(all.size() == 2u);
    BOOST_TEST(((all[0] == a && all[1] == b) || (all[0] == b && all[1] == a)));
    // A second store on the directory (a restart) finds them.
    BOOST_TEST(disk_connections(dir.path(), log.logger())->list().value().size() == 2u);
    // Remove: true once, then false, and only a removal moves the generation.
    BOOST_TEST(store->remove(a.id).value());
    auto const g3 = store->generation().value();
    BOOST_TEST(g3 != g2);
    BOOST_TEST(!store->remove(a.id).value());
    BOOST_TEST(store->generation().value() == g3);
    BOOST_TEST(!store->get(a.id).value().has_value());
    BOOST_TEST(store->list().value().size() == 1u);
    BOOST_TEST(log.joined().empty(), log.joined());
}

BOOST_AUTO_TEST_CASE(disk_store_refuses_ids_that_are_not_ids) {
    TempDir dir;
    auto store = disk_connections(dir.path(), icsbridge::null_logger());
    BOOST_TEST(!store->put(sample("../../../tmp/x")).has_value());
    BOOST_TEST(!store->get("../connections").value().has_value());
    BOOST_TEST(!store->remove("..").value());
    BOOST_TEST(!store->put_status(sample("x")).value());
}

BOOST_AUTO_TEST_CASE(put_status_writes_only_the_status_and_never_resurrects) {
    // Setup
    TempDir dir;
    auto store = disk_connections(dir.path(), icsbridge::null_logger());
    auto const kept = sample();
    BOOST_TEST_REQUIRE(store->put(kept).has_value());
    auto const g = store->generation().value();
    // Run: a pusher's copy with new status and (stale) other fields.
    auto status = kept;
    status.last_success = at(1795009999);
    status.last_failure.reset();
    status.last_error = "";
    status.items = 7;
    status.stopped = false;
    status.calendar = "stale title";
    status.sealed_token = "stale";
    BOOST_TEST(store->put_status(status).value());
    // Check: status taken, the rest kept, the generation unmoved.
    auto want = kept;
    copy_status(status, want);
    BOOST_TEST((store->get(kept.id).value() == want));
    BOOST_TEST(store->generation().value() == g);
    // After a disconnect, a status write is a no-op: no file comes back.
    BOOST_TEST(store->remove(kept.id).value());
    BOOST_TEST(!store->put_status(status).value());
    BOOST_TEST(!store->get(kept.id).value().has_value());
    BOOST_TEST(store->list().value().empty());
}

BOOST_AUTO_TEST_CASE(a_corrupt_file_is_skipped_with_one_warning) {
    // Setup: one good record, one corrupt, one naming another id, and a writer's leftover temp file.
    TempDir dir;
    StringLogger log;
    auto store = disk_connections(dir.path(), log.logger());
    BOOST_TEST_REQUIRE(store->put(sample()).has_value());
    auto const bad = std::string("CCCCCCCCCCCCCCCCCCCCCC");
    write_text(
        dir.file("connections/" + bad + ".json"),
        R"({"version":1,"id":")" + std::string(sealed_sentinel)
    );
    write_text(dir.file("connections/DDDDDDDDDDDDDDDDDDDDDD.json"), to_json(sample()));
    write_text(dir.file("connections/.AAAAAAAAAAAAAAAAAAAAAA.json.tmp-1"), "partial");
    write_text(dir.file("connections/notes.txt"), "x");
    // Run: list twice.
    auto first = store->list();
    auto second = store->list();
    // Check: the good one each time; one warning per bad file, naming it, never its content.
    BOOST_TEST_REQUIRE(first.has_value());
    BOOST_TEST(first->size() == 1u);
    BOOST_TEST(second.value().size() == 1u);
    auto const lines = log.lines();
    BOOST_TEST(lines.size() == 2u, log.joined());
    BOOST_TEST(log.joined().find(bad + ".json") != std::string::npos, log.joined());
    BOOST_TEST(log.joined().find("id is not its file name") != std::string::npos, log.joined());
    BOOST_TEST(log.joined().find(sealed_sentinel) == std::string::npos);
    // get() says what is wrong.
    auto got = store->get(bad);
    BOOST_TEST_REQUIRE(!got.has_value());
    BOOST_TEST(got.error().message.find("not a JSON object") != std::string::npos, got.error().message);
    BOOST_TEST(got.error().message.find(sealed_sentinel) == std::string::npos);
    // A repaired file is listed again.
    BOOST_TEST_REQUIRE(store->put(sample(bad)).has_value());
    BOOST_TEST(store->list().value().size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_claim_is_single_use_until_it_expires) {
    TempDir dir;
    auto store = disk_connections(dir.path(), icsbridge::null_logger());
    auto const soon = now_s() + std::chrono::seconds(1);
    // Single use; each nonce on its own.
    BOOST_TEST(store->claim("nonce-1", soon).value());
    BOOST_TEST(!store->claim("nonce-1", soon).value());
    BOOST_TEST(!store->claim("nonce-1", soon + std::chrono::hours(1)).value());
    BOOST_TEST(store->claim("nonce-2", now_s() + std::chrono::minutes(10)).value());
    // An expired state is refused, claimed before or not.
    BOOST_TEST(!store->claim("nonce-3", now_s() - std::chrono::seconds(1)).value());
    BOOST_TEST(!store->claim("nonce-3", now_s()).value());
    // Once past its expiry a claim is forgotten (pruned); one that has not expired stays.
    while (now_s() <= soon)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    BOOST_TEST(store->claim("nonce-1", now_s() + std::chrono::minutes(10)).value());
    BOOST_TEST(!store->claim("nonce-2", now_s() + std::chrono::minutes(10)).value());
    // Claims stay in memory: no file.
    BOOST_TEST(!std::filesystem::exists(dir.file("connections")));
}

BOOST_AUTO_TEST_CASE(racing_claims_grant_exactly_one) {
    TempDir dir;
    auto store = disk_connections(dir.path(), icsbridge::null_logger());
    std::atomic<int> granted{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&] {
            for (int n = 0; n < 50; ++n) {
                auto r = store->claim("state-" + std::to_string(n), now_s() + std::chrono::minutes(5));
                granted += r.has_value() && *r ? 1 : 0;
            }
        });
    for (auto& t : threads)
        t.join();
    BOOST_TEST(granted.load() == 50);
}

BOOST_AUTO_TEST_SUITE_END()
