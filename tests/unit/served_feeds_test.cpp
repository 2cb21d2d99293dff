// File: served_feeds_test.cpp
// ServedFeeds: snapshot swap, identical bytes keep their validators, failures keep the snapshot,
// tokens, and the last-good copy on disk (round trip, the last success it carries, corrupt files ignored).
#include "store/gzip.hpp"
#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include <icsbridge/files.hpp>
#include <icsbridge/store.hpp>

#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <string_view>
#include <vector>

using namespace icsbridge;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(served_feeds_test)

namespace {
sys_seconds t0 = sys_days{2026y / March / 1} + 9h;
} // namespace

BOOST_AUTO_TEST_CASE(publish_swaps_and_readers_keep_their_copy) {
    // Setup
    ServedFeeds store(test::server_test_config());
    BOOST_TEST(!store.get("pub"));
    // Run
    auto [first, changed1] = test::publish(store, "pub", test::calendar_body(3), 3, t0);
    auto held = store.get("pub");
    auto [second, changed2] = test::publish(store, "pub", test::calendar_body(4), 4, t0 + 1h);
    // Check
    BOOST_TEST(changed1);
    BOOST_TEST(changed2);
    BOOST_TEST(held->body == test::calendar_body(3)); // a reader's snapshot never changes under it
    BOOST_TEST(store.get("pub")->body == test::calendar_body(4));
    BOOST_TEST(store.get("pub")->etag != held->etag);
    BOOST_TEST(store.get("pub")->last_modified_http == "Sun, 01 Mar 2026 10:00:00 GMT");
    BOOST_TEST(test::gunzipped(store.get("pub")->gzip_body) == test::calendar_body(4));
    BOOST_TEST(!test::publish(store, "nope", "x", 1, t0).first);
}

BOOST_AUTO_TEST_CASE(identical_bytes_keep_etag_and_last_modified) {
    ServedFeeds store(test::server_test_config());
    auto [a, c1] = test::publish(store, "pub", test::calendar_body(3), 3, t0);
    auto [b, c2] = test::publish(store, "pub", test::calendar_body(3), 3, t0 + 2h);
    BOOST_TEST(!c2);
    BOOST_TEST(a == b);
    BOOST_TEST(store.get("pub")->last_modified == t0);
    BOOST_TEST(store.get("pub")->etag == a->etag);
    auto st = store.status();
    BOOST_TEST(st[0].last_success.value() == t0 + 2h); // but the success is recorded
    BOOST_TEST(st[0].refreshes_ok == 2u);
}

BOOST_AUTO_TEST_CASE(failure_keeps_snapshot_and_records_error) {
    ServedFeeds store(test::server_test_config());
    auto [a, c] = test::publish(store, "pub", test::calendar_body(3), 3, t0);
    store.record_failure("pub", Error{errc::upstream_timeout, "events API: timed out"}, t0 + 1h);
    BOOST_TEST(store.get("pub") == a);
    auto st = store.status()[0];
    BOOST_TEST(st.last_error == "events API: timed out");
    BOOST_TEST(st.refreshes_failed == 1u);
    BOOST_TEST(!st.stale(t0 + 30min));
    BOOST_TEST(st.stale(t0 + 36min + 5min)); // 2 x 15 min + 5 min margin
    BOOST_TEST(store.status()[1].stale(t0)); // never fetched
}

BOOST_AUTO_TEST_CASE(tokens_are_checked_per_feed) {
    ServedFeeds store(test::server_test_config());
    BOOST_TEST(store.authorize("pub", "").allowed);
    BOOST_TEST(store.authorize("secret", "s3cret-token-value").allowed);
    BOOST_TEST(!store.authorize("secret", "").allowed);
    BOOST_TEST(!store.authorize("secret", "s3cret-token-valu").allowed);
    BOOST_TEST(!store.authorize("secret", "s3cret-token-value ").allowed);
    BOOST_TEST(!store.authorize("secret", "alice-secret-1").allowed);
    BOOST_TEST(store.authorize("team", "bob-secret-2").subscriber == 1);
    BOOST_TEST(store.authorize("team", "alice-secret-1").subscriber == 0);
    BOOST_TEST(!store.authorize("team", "s3cret-token-value").allowed);
    BOOST_TEST(!store.authorize("unknown", "").allowed);
    store.record_subscriber_fetch("team", 1, t0);
    auto team = store.status()[2];
    BOOST_TEST(team.subscribers.size() == 2u);
    BOOST_TEST(!team.subscribers[0].last_fetch.has_value());
    BOOST_TEST(team.subscribers[1].name == "bob");
    BOOST_TEST(team.subscribers[1].last_fetch.value() == t0);
}

BOOST_AUTO_TEST_CASE(snapshot_survives_a_restart) {
    // Setup
    test::TempDir dir;
    auto cfg = test::server_test_config();
    {
        ServedFeeds store(cfg);
        auto [snap, changed] = test::publish(store, "pub", test::calendar_body(5), 5, t0);
        BOOST_TEST_REQUIRE(save_snapshot(dir.path(), "pub", *snap).has_value());
        auto perms = std::filesystem::status(dir.file("pub.snapshot")).permissions();
        BOOST_TEST((perms == (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write)));
    }
    // Run
    ServedFeeds restarted(cfg);
    test::StringLogger logs;
    auto n = test::restore(restarted, dir.path(), logs.logger());
    // Check
    BOOST_TEST(n == 1u);
    auto snap = restarted.get("pub");
    BOOST_TEST_REQUIRE(snap);
    BOOST_TEST(snap->body == test::calendar_body(5));
    BOOST_TEST(snap->items == 5u);
    BOOST_TEST(snap->last_modified == t0);
    BOOST_TEST(snap->etag == make_snapshot(test::calendar_body(5), 5, t0, t0)->etag);
    BOOST_TEST(test::gunzipped(snap->gzip_body) == snap->body);
    BOOST_TEST(logs.joined().empty()); // missing files for the other feeds are normal
    // Identical bytes after the restart keep the stored Last-Modified.
    test::publish(restarted, "pub", test::calendar_body(5), 5, t0 + 5h);
    BOOST_TEST(restarted.get("pub")->last_modified == t0);
    // No temp file is left behind.
    for (auto const& e : std::filesystem::directory_iterator(dir.path()))
        BOOST_TEST(e.path().filename().string() == "pub.snapshot");
}

BOOST_AUTO_TEST_CASE(a_restart_takes_the_last_success_from_the_stored_snapshot) {
    // Setup: the bytes first fetched at t0 were fetched again, unchanged, 3 hours later.
    test::TempDir dir;
    auto cfg = test::server_test_config();
    {
        ServedFeeds store(cfg);
        auto [snap, changed] = test::publish(store, "pub", test::calendar_body(5), 5, t0);
        BOOST_TEST_REQUIRE(save_snapshot(dir.path(), "pub", *snap, t0 + 3h).has_value());
    }
    // Run
    ServedFeeds restarted(cfg);
    test::StringLogger logs;
    BOOST_TEST_REQUIRE(test::restore(restarted, dir.path(), logs.logger()) == 1u);
    // Check: fresh before any refresh in this process; Last-Modified is still when the bytes changed.
    auto st = restarted.status();
    BOOST_TEST(st[0].name == "pub");
    BOOST_TEST_REQUIRE(st[0].last_success.has_value());
    BOOST_TEST(*st[0].last_success == t0 + 3h);
    BOOST_TEST(!st[0].stale(t0 + 3h + 1min));
    BOOST_TEST(st[0].stale(t0 + 3h + 36min)); // 2 x 15m + 5m later without a refresh
    BOOST_TEST(st[0].refreshes_ok == 0u);
    BOOST_TEST(restarted.get("pub")->last_modified == t0);
    BOOST_TEST(!st[1].last_success); // no stored snapshot: never
    BOOST_TEST(st[1].stale(t0));
}

BOOST_AUTO_TEST_CASE(corrupt_snapshots_are_ignored_with_a_warning) {
    test::TempDir dir;
    auto cfg = test::server_test_config();
    ServedFeeds store(cfg);
    auto [snap, c] = test::publish(store, "pub", test::calendar_body(5), 5, t0);
    BOOST_TEST_REQUIRE(save_snapshot(dir.path(), "pub", *snap).has_value());
    auto good = read_file(dir.file("pub.snapshot")).value();
    // A flipped byte in the body, a truncated file, and garbage.
    std::string flipped = good;
    flipped[flipped.size() - 20] ^= 1;
    BOOST_TEST_REQUIRE(write_file_atomically(dir.file("pub.snapshot"), flipped).has_value());
    BOOST_TEST_REQUIRE(
        write_file_atomically(dir.file("secret.snapshot"), good.substr(0, good.size() - 3)).has_value()
    );
    BOOST_TEST_REQUIRE(write_file_atomically(dir.file("team.snapshot"), "garbage").has_value());
    // A foreign file: well formed, its ETag the true hash of its body, but the body is no calendar.
    auto page = make_snapshot("<html><body>Not found</body></html>\r\n", 0, t0, t0);
    BOOST_TEST_REQUIRE(save_snapshot(dir.path(), "later", *page).has_value());
    test::StringLogger logs;
    ServedFeeds restarted(cfg);
    BOOST_TEST(test::restore(restarted, dir.path(), logs.logger()) == 0u);
    BOOST_TEST(!restarted.get("pub"));
    BOOST_TEST(!restarted.get("secret"));
    BOOST_TEST(!restarted.get("team"));
    BOOST_TEST(!restarted.get("later"));
    BOOST_TEST(logs.lines().size() == 4u);
    BOOST_TEST(logs.joined().find("does not match its ETag") != std::string::npos);
    BOOST_TEST(logs.joined().find("later.snapshot: body is not an iCalendar stream") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(gzip_off_computes_no_gzip_body) {
    auto cfg = test::server_test_config();
    cfg.server.gzip = false;
    ServedFeeds store(cfg);
    test::publish(store, "pub", test::calendar_body(2), 2, t0);
    BOOST_TEST(store.get("pub")->gzip_body.empty());
}

BOOST_AUTO_TEST_CASE(large_gzip_bodies_are_also_kept_in_a_sealed_file) {
    auto t0 = std::chrono::sys_seconds{std::chrono::hours{500000}};
    auto small = make_snapshot(test::calendar_body(3), 3, t0, t0);
    BOOST_TEST(small->gzip_body.size() < sendfile_min_bytes);
    BOOST_TEST(small->gzip_file == nullptr); // one write with the header is cheaper
    auto large = make_snapshot(test::calendar_body(20000), 20000, t0, t0);
    BOOST_TEST_REQUIRE(large->gzip_body.size() >= sendfile_min_bytes);
    BOOST_TEST_REQUIRE(large->gzip_file != nullptr);
    int fd = large->gzip_file->fd();
    std::string copy(large->gzip_body.size() + 1, '\0');
    auto n = ::pread(fd, copy.data(), copy.size(), 0);
    BOOST_TEST(n == static_cast<ssize_t>(large->gzip_body.size())); // exactly the gzip bytes, nothing after
    copy.resize(large->gzip_body.size());
    BOOST_TEST((copy == large->gzip_body));
    // Sealed: nobody can change the bytes while the kernel sends them.
    BOOST_TEST(::pwrite(fd, "x", 1, 0) == -1);
    BOOST_TEST(::ftruncate(fd, 1) == -1);
}

BOOST_AUTO_TEST_CASE(a_large_body_lives_in_its_sealed_file_and_on_the_heap_when_none_can_be_had) {
    // Setup
    auto t0 = std::chrono::sys_seconds{std::chrono::hours{500000}};
    auto const text = test::calendar_body(2000);
    BOOST_TEST_REQUIRE(text.size() >= sendfile_min_bytes);
    // Run the test: a large body is the sealed file's mapping, a small one stays on the heap.
    auto large = make_snapshot(text, 2000, t0, t0);
    BOOST_TEST_REQUIRE(large->body.file() != nullptr);
    BOOST_TEST(large->body.data() == large->body.file()->bytes().data()); // held once: no heap copy
    BOOST_TEST(large->body == text);
    std::string copy(text.size() + 1, '\0');
    BOOST_TEST(
        ::pread(large->body.file()->fd(), copy.data(), copy.size(), 0) == static_cast<ssize_t>(text.size())
    );
    BOOST_TEST((std::string_view(copy).substr(0, text.size()) == text));
    BOOST_TEST(::pwrite(large->body.file()->fd(), "x", 1, 0) == -1); // sealed
    BOOST_TEST(make_snapshot(test::calendar_body(3), 3, t0, t0)->body.file() == nullptr);
    // Descriptors short: with the spare ones (64) not free, or none at all (EMFILE), the bytes stay on the
    // heap, whole, whether a memfd or a file in storage.dir was asked for (and nothing is left in the
    // directory). The limit is the process's: restored before any check can end the test.
    test::TempDir dir;
    SnapshotFiles const files(dir.path());
    rlimit const saved = [] {
        rlimit r{};
        ::getrlimit(RLIMIT_NOFILE, &r);
        return r;
    }();
    int const next_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC); // the lowest free descriptor
    BOOST_TEST_REQUIRE(next_fd >= 0);
    ::close(next_fd);
    std::vector<std::shared_ptr<Snapshot const>> heap;
    for (rlim_t limit : {static_cast<rlim_t>(next_fd) + 64, static_cast<rlim_t>(next_fd)}) {
        rlimit lowered = saved;
        lowered.rlim_cur = limit;
        ::setrlimit(RLIMIT_NOFILE, &lowered);
        heap.push_back(make_snapshot(text, 2000, t0, t0));
        heap.push_back(make_snapshot(text, 2000, t0, t0, true, {}, {}, &files));
        ::setrlimit(RLIMIT_NOFILE, &saved);
    }
    for (auto const& snap : heap) {
        BOOST_TEST(snap->body.file() == nullptr);
        BOOST_TEST(snap->gzip_file == nullptr);
        BOOST_TEST(snap->body == text);
        BOOST_TEST(test::gunzipped(snap->gzip_body) == text);
    }
    BOOST_TEST(heap.size() == 4u);
    BOOST_TEST(std::filesystem::is_empty(dir.path()));
}

BOOST_AUTO_TEST_SUITE_END()
