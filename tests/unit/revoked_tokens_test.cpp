// File: revoked_tokens_test.cpp
// Tokens a reload takes away: which ones (per feed, `token` and `tokens` alike), for how long, kept across
// a restart in storage.dir as digests only, owner-only; and the 410 they get from the feed and agenda
// routes while an unknown token keeps its 404.
#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/files.hpp>
#include <icsbridge/revoked_tokens.hpp>
#include <icsbridge/server.hpp>

#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

using namespace icsbridge;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(revoked_tokens_test)

namespace {

sys_seconds const t0 = sys_days{2026y / March / 1} + 9h;

/** server_test_config() with bob taken off "team" and the single token of "secret" replaced. */
Config after_reload() {
    Config next = test::server_test_config();
    for (auto& f : next.feeds) {
        if (f.name == "team")
            f.tokens.erase("bob");
        if (f.name == "secret")
            f.token = "s3cret-token-value-2";
    }
    return next;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_reload_revokes_the_tokens_it_takes_away_for_a_week) {
    test::TempDir dir;
    RevokedTokens revoked(dir.path(), t0);
    auto n = revoked.revoke_dropped(test::server_test_config(), after_reload(), t0);
    BOOST_TEST_REQUIRE(n.has_value(), (n ? "" : n.error().message));
    BOOST_TEST(*n == 2u);
    BOOST_TEST(revoked.revoked("team", "bob-secret-2", t0 + 1h));
    BOOST_TEST(revoked.revoked("secret", "s3cret-token-value", t0 + 1h));
    BOOST_TEST(!revoked.revoked("team", "alice-secret-1", t0)); // still valid
    BOOST_TEST(!revoked.revoked("team", "never-a-token", t0));  // unknown
    BOOST_TEST(!revoked.revoked("pub", "bob-secret-2", t0));    // another feed
    BOOST_TEST(!revoked.revoked("team", "", t0));
    BOOST_TEST(revoked.revoked("team", "bob-secret-2", t0 + days(7) - 1s));
    BOOST_TEST(!revoked.revoked("team", "bob-secret-2", t0 + days(7)));

    // A restart reads them back; the file holds digests only, and only its owner may read it.
    RevokedTokens restarted(dir.path(), t0 + days(1));
    BOOST_TEST(restarted.revoked("team", "bob-secret-2", t0 + days(1)));
    auto text = read_file(revoked.path());
    BOOST_TEST_REQUIRE(text.has_value());
    for (auto secret : {"bob-secret-2", "s3cret-token-value", "team", "bob"})
        BOOST_TEST(text->find(secret) == std::string::npos, "the file shows " << secret);
    struct stat st {};
    BOOST_TEST_REQUIRE(::stat(revoked.path().c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    // Past the week, a restart forgets them.
    RevokedTokens later(dir.path(), t0 + days(8));
    BOOST_TEST(!later.revoked("team", "bob-secret-2", t0 + days(8)));

    // Given back by the next reload: forgotten (it is valid again anyway).
    auto back = restarted.revoke_dropped(after_reload(), test::server_test_config(), t0 + days(2));
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST(*back == 1u); // the replacement single token goes
    BOOST_TEST(!restarted.revoked("team", "bob-secret-2", t0 + days(2)));
}

BOOST_AUTO_TEST_CASE(a_revoked_token_gets_410_and_an_unknown_one_404) {
    test::TempDir dir;
    Config const before = test::server_test_config();
    Config cfg = after_reload();
    RevokedTokens revoked(dir.path(), t0);
    BOOST_TEST_REQUIRE(revoked.revoke_dropped(before, cfg, t0).has_value());
    ServedFeeds store{cfg};
    ViewCache views;
    Metrics metrics;
    test::publish(store, "team", test::calendar_body(1, "t"), 1, t0);
    auto get = [&](std::string_view target, RevokedTokens const* list) {
        ServerRequest r;
        r.method = "GET";
        r.target = target;
        return handle_request(r, store, views, metrics, cfg, t0 + 1h, list);
    };
    for (auto page : {".ics", ".html"}) {
        std::string const feed = std::string("/feeds/team") + page;
        auto gone = get(feed + "?token=bob-secret-2", &revoked);
        BOOST_TEST(gone.status == 410u, feed);
        BOOST_TEST(gone.header("Cache-Control") == "no-store");
        BOOST_TEST(std::string(gone.body()).find("bob") == std::string::npos);
        BOOST_TEST(get(feed + "?token=bob-secret-2", nullptr).status == 404u); // no list: as before
        BOOST_TEST(get(feed + "?token=someone-else", &revoked).status == 404u);
        BOOST_TEST(get(feed, &revoked).status == 404u);
        BOOST_TEST(get(feed + "?token=alice-secret-1", &revoked).status == 200u);
    }
    BOOST_TEST(get("/feeds/secret.ics?token=s3cret-token-value", &revoked).status == 410u);
    BOOST_TEST(get("/feeds/pub.ics?token=bob-secret-2", &revoked).status != 410u);
}

BOOST_AUTO_TEST_SUITE_END()
