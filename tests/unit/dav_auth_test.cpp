// File: dav_auth_test.cpp
// Who sees what in the CalDAV tree, without sockets (handle_request on an in-memory ServedFeeds and History):
// a subscriber's principal challenges until their own name and token, their home lists the public feeds and
// the token feeds that token opens, a login naming no subscriber is anonymous, a feed that is not public is
// 401 whether it exists or not, a revoked token 410 as for its .ics, hrefs under public_url's path, no
// token ever in an answer; and the CalDAV addresses the index page shows.
#include "server/index_page.hpp"
#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/dav.hpp>
#include <icsbridge/revoked_tokens.hpp>
#include <icsbridge/server.hpp>

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace icsbridge;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(dav_auth_test)

namespace {

sys_seconds const t0 = sys_days{2026y / March / 1} + 9h;

std::string base64(std::string_view in) {
    static constexpr char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < in.size(); i += 3) {
        unsigned v = static_cast<unsigned char>(in[i]) << 16;
        if (i + 1 < in.size())
            v |= static_cast<unsigned>(static_cast<unsigned char>(in[i + 1])) << 8;
        if (i + 2 < in.size())
            v |= static_cast<unsigned char>(in[i + 2]);
        out += abc[(v >> 18) & 63];
        out += abc[(v >> 12) & 63];
        out += i + 1 < in.size() ? abc[(v >> 6) & 63] : '=';
        out += i + 2 < in.size() ? abc[v & 63] : '=';
    }
    return out;
}

std::string basic(std::string_view user, std::string_view password) {
    return "Basic " + base64(std::string(user) + ":" + std::string(password));
}

std::string const propfind = R"(<propfind xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><prop>
  <resourcetype/><displayname/><current-user-principal/><C:calendar-home-set/><getetag/></prop></propfind>)";

/** server_test_config(): "pub" and "later" public, "secret" (single token), "team" (alice, bob). */
struct Fixture {
    Config cfg = test::server_test_config();
    ServedFeeds store{cfg};
    ViewCache views;
    Metrics metrics;
    dav::History history{hours(24 * 30)};
    RevokedTokens const* revoked = nullptr;
    Fixture() {
        for (auto const* name : {"pub", "secret", "team", "later"})
            test::publish(store, name, test::calendar_body(2, name), 2, t0);
    }
    ServerResponse
    ask(std::string_view method,
        std::string_view target,
        std::string_view authorization = {},
        std::string_view depth = "1",
        std::string_view body = propfind) {
        ServerRequest r;
        r.method = method;
        r.target = target;
        r.authorization = authorization;
        r.depth = depth;
        r.body = method == "PROPFIND" || method == "REPORT" ? body : std::string_view();
        return handle_request(r, store, views, metrics, cfg, t0 + 10min, revoked, &history);
    }
};

std::vector<std::string> hrefs(std::string const& body) {
    std::vector<std::string> out;
    for (std::size_t p = 0; (p = body.find("<response><href>", p)) != std::string::npos;) {
        p += 16;
        out.push_back(body.substr(p, body.find('<', p) - p));
    }
    return out;
}

bool has(std::string const& body, std::string_view what) {
    return body.find(what) != std::string::npos;
}

} // namespace

BOOST_FIXTURE_TEST_CASE(a_subscribers_principal_challenges_until_their_own_name_and_token, Fixture) {
    std::vector<std::string> const refused = {
        "",
        basic("alice", "wrong"),
        basic("alice", "bob-secret-2"),      // bob's token under alice's name
        basic("bob", "bob-secret-2"),        // bob himself, at alice's door
        basic("alice", "s3cret-token-value") // a token, but not one of alice's
    };
    for (auto const& auth : refused)
        for (auto const* method : {"PROPFIND", "OPTIONS", "GET", "REPORT", "PUT"})
            for (auto const* path :
                 {"/dav/users/alice/", "/dav/users/alice/feeds/", "/dav/users/alice/feeds/team/"}) {
                auto const r = ask(method, path, auth);
                BOOST_TEST(r.status == 401u, method << " " << path);
                BOOST_TEST(r.header("WWW-Authenticate") == "Basic realm=\"icsbridge\"");
                BOOST_TEST(!has(r.text, "secret"));
                BOOST_TEST((r.route == Route::dav));
            }
    auto const r = ask("PROPFIND", "/dav/users/alice/", basic("alice", "alice-secret-1"), "0");
    BOOST_TEST(r.status == 207u);
    BOOST_TEST(has(r.text, "<D:current-user-principal><D:href>/dav/users/alice/</D:href>"));
    BOOST_TEST(has(r.text, "<C:calendar-home-set><D:href>/dav/users/alice/feeds/</D:href>"));
    BOOST_TEST(has(r.text, "<D:displayname>alice</D:displayname>"));
    BOOST_TEST(!has(r.text, "alice-secret-1"));
    // The scheme's name is case-insensitive (RFC 9110); a malformed login is none.
    BOOST_TEST(
        ask("PROPFIND", "/dav/users/alice/", "basic " + base64("alice:alice-secret-1"), "0").status == 207u
    );
    for (std::string const bad : {"Basic !!!!", "Basic YWxpY2U=", "Bearer alice-secret-1", "Basic"})
        BOOST_TEST(ask("PROPFIND", "/dav/users/alice/", bad, "0").status == 401u, bad);
}

BOOST_FIXTURE_TEST_CASE(
    a_subscribers_home_lists_the_public_feeds_and_the_token_feeds_their_token_opens, Fixture
) {
    auto const alice = basic("alice", "alice-secret-1");
    auto home = ask("PROPFIND", "/dav/users/alice/feeds/", alice);
    BOOST_TEST(home.status == 207u);
    std::vector<std::string> const want = {
        "/dav/users/alice/feeds/",
        "/dav/users/alice/feeds/pub/",
        "/dav/users/alice/feeds/team/",
        "/dav/users/alice/feeds/later/"};
    BOOST_TEST(hrefs(home.text) == want, boost::test_tools::per_element());
    // A feed's single token belongs to the user "subscriber".
    auto const single =
        ask("PROPFIND", "/dav/users/subscriber/feeds/", basic("subscriber", "s3cret-token-value"));
    std::vector<std::string> const want_single = {
        "/dav/users/subscriber/feeds/",
        "/dav/users/subscriber/feeds/pub/",
        "/dav/users/subscriber/feeds/secret/",
        "/dav/users/subscriber/feeds/later/"};
    BOOST_TEST(hrefs(single.text) == want_single, boost::test_tools::per_element());
    // The token feed's collection and items under the subscriber's home: every href stays there.
    auto const coll = ask("PROPFIND", "/dav/users/alice/feeds/team/", alice);
    BOOST_TEST(coll.status == 207u);
    auto const items = hrefs(coll.text);
    BOOST_TEST_REQUIRE(items.size() == 3u);
    BOOST_TEST(items[1].starts_with("/dav/users/alice/feeds/team/"));
    auto const get = ask("GET", items[1], alice);
    BOOST_TEST(get.status == 200u);
    BOOST_TEST(has(get.text, "UID:team"));
    auto const sync =
        ask("REPORT",
            "/dav/users/alice/feeds/team/",
            alice,
            "1",
            R"(<sync-collection xmlns="DAV:"><sync-token/><prop><getetag/></prop></sync-collection>)");
    BOOST_TEST(sync.status == 207u);
    BOOST_TEST(hrefs(sync.text).size() == 2u);
    // Another subscriber's feed, and one that does not exist: the same challenge.
    for (auto const* path : {"/dav/users/alice/feeds/secret/", "/dav/users/alice/feeds/nothing/"})
        BOOST_TEST(ask("PROPFIND", path, alice).status == 401u, path);
    // The collection at /dav/feeds/NAME/ too, with the subscriber's login; the public home lists public
    // feeds.
    BOOST_TEST(ask("PROPFIND", "/dav/feeds/team/", alice).status == 207u);
    BOOST_TEST(ask("PROPFIND", "/dav/feeds/team/").status == 401u);
    auto const pub_home = ask("PROPFIND", "/dav/feeds/", alice);
    std::vector<std::string> const want_pub = {"/dav/feeds/", "/dav/feeds/pub/", "/dav/feeds/later/"};
    BOOST_TEST(hrefs(pub_home.text) == want_pub, boost::test_tools::per_element());
    // On the public principal a login names its own principal (apps that send it unasked find their home).
    auto const root = ask("PROPFIND", "/dav/", alice, "0");
    BOOST_TEST(has(root.text, "<D:current-user-principal><D:href>/dav/users/alice/</D:href>"));
    BOOST_TEST(has(root.text, "<C:calendar-home-set><D:href>/dav/feeds/</D:href>"));
}

BOOST_FIXTURE_TEST_CASE(a_subscribers_dav_sync_counts_as_their_fetch, Fixture) {
    ask("PROPFIND", "/dav/users/alice/feeds/team/", basic("alice", "alice-secret-1"));
    for (auto const& st : store.status())
        if (st.name == "team")
            for (auto const& s : st.subscribers) {
                if (s.name == "alice")
                    BOOST_TEST((s.last_fetch == t0 + 10min));
                else
                    BOOST_TEST(!s.last_fetch, s.name);
            }
}

BOOST_FIXTURE_TEST_CASE(a_login_that_names_no_subscriber_is_anonymous, Fixture) {
    for (auto const& auth :
         {std::string(), basic("anything", "anything"), basic("", ""), basic("x", "alice-secret-1")}) {
        auto const root = ask("PROPFIND", "/dav/", auth, "0");
        BOOST_TEST(root.status == 207u);
        BOOST_TEST(has(root.text, "<D:current-user-principal><D:href>/dav/</D:href>"));
        auto const home = ask("PROPFIND", "/dav/feeds/", auth);
        std::vector<std::string> const want = {"/dav/feeds/", "/dav/feeds/pub/", "/dav/feeds/later/"};
        BOOST_TEST(hrefs(home.text) == want, boost::test_tools::per_element());
        BOOST_TEST(ask("PROPFIND", "/dav/feeds/pub/", auth).status == 207u);
        // Not public, or not there at all: the same 401, the same body.
        auto const priv = ask("PROPFIND", "/dav/feeds/team/", auth);
        auto const none = ask("PROPFIND", "/dav/feeds/nothing/", auth);
        BOOST_TEST(priv.status == 401u);
        BOOST_TEST(none.status == 401u);
        BOOST_TEST(priv.text == none.text);
        BOOST_TEST(priv.header("WWW-Authenticate") == "Basic realm=\"icsbridge\"");
    }
}

BOOST_FIXTURE_TEST_CASE(every_href_carries_public_urls_path, Fixture) {
    cfg.server.public_url = "https://cal.example.org/calendars/";
    auto const alice = basic("alice", "alice-secret-1");
    auto const home = ask("PROPFIND", "/dav/users/alice/feeds/", alice);
    BOOST_TEST(hrefs(home.text).at(2) == "/calendars/dav/users/alice/feeds/team/");
    auto const root = ask("PROPFIND", "/dav/users/alice/", alice, "0");
    BOOST_TEST(has(root.text, "<D:href>/calendars/dav/users/alice/feeds/</D:href>"));
    BOOST_TEST(has(root.text, "<D:current-user-principal><D:href>/calendars/dav/users/alice/</D:href>"));
    auto const coll = ask("PROPFIND", "/dav/users/alice/feeds/team/", alice);
    BOOST_TEST(hrefs(coll.text).at(1).starts_with("/calendars/dav/users/alice/feeds/team/"));
}

BOOST_FIXTURE_TEST_CASE(a_revoked_token_gets_410_as_for_its_ics, Fixture) {
    test::TempDir dir;
    RevokedTokens gone(dir.path(), t0);
    // A reload takes bob off "team" and replaces "secret"'s token.
    Config next = cfg;
    for (auto& f : next.feeds) {
        if (f.name == "team")
            f.tokens.erase("bob");
        if (f.name == "secret")
            f.token = "s3cret-token-value-2";
    }
    BOOST_TEST_REQUIRE(gone.revoke_dropped(cfg, next, t0).has_value());
    cfg = next;
    store.reconfigure(cfg);
    revoked = &gone;
    auto const bob = basic("bob", "bob-secret-2");
    for (auto const* path :
         {"/dav/users/bob/", "/dav/users/bob/feeds/", "/dav/users/bob/feeds/team/", "/dav/feeds/team/"}) {
        auto const r = ask("PROPFIND", path, bob);
        BOOST_TEST(r.status == 410u, path);
        BOOST_TEST(r.header("Cache-Control") == "no-store");
        BOOST_TEST(r.header("WWW-Authenticate").empty());
    }
    BOOST_TEST(
        ask("PROPFIND", "/dav/users/subscriber/", basic("subscriber", "s3cret-token-value")).status == 410u
    );
    BOOST_TEST(
        ask("PROPFIND", "/dav/users/subscriber/", basic("subscriber", "s3cret-token-value-2"), "0").status ==
        207u
    );
    // Any other wrong password: the challenge, as ever; alice is untouched.
    BOOST_TEST(ask("PROPFIND", "/dav/users/bob/", basic("bob", "never-a-token")).status == 401u);
    BOOST_TEST(
        ask("PROPFIND", "/dav/users/alice/feeds/team/", basic("alice", "alice-secret-1")).status == 207u
    );
    // The public tree stays open to a revoked token, as to anyone.
    BOOST_TEST(ask("PROPFIND", "/dav/feeds/pub/", bob).status == 207u);
    // And its .ics says the same.
    BOOST_TEST(ask("GET", "/feeds/team.ics?token=bob-secret-2").status == 410u);
}

BOOST_FIXTURE_TEST_CASE(the_index_page_shows_each_public_feeds_caldav_address_and_no_other, Fixture) {
    auto const page = index_page(cfg, store, t0 + 10min);
    for (auto const* a :
         {"CalDAV: http://cal.example.org:8080/dav/feeds/pub/",
          "CalDAV: http://cal.example.org:8080/dav/feeds/later/",
          "server http://cal.example.org:8080/dav/ with any user name and password"})
        BOOST_TEST(has(page, a), a);
    BOOST_TEST(!has(page, "/dav/feeds/team/"));
    BOOST_TEST(!has(page, "/dav/users/"));
    cfg.dav.enabled = false;
    BOOST_TEST(!has(index_page(cfg, store, t0 + 10min), "/dav/"));
    // The addresses check prints and the README's steps use.
    BOOST_TEST(
        dav::address("https://cal.example.org/calendars/", "team", "alice smith") ==
        "https://cal.example.org/calendars/dav/users/alice%20smith/feeds/team/"
    );
    BOOST_TEST(dav::address("https://cal.example.org", "") == "https://cal.example.org/dav/");
}

BOOST_AUTO_TEST_CASE(the_core_serves_a_subscribers_tree_only_to_its_owner) {
    dav::History history{hours(1)};
    dav::Tree tree;
    tree.owner = "alice";
    dav::Request req;
    req.method = "PROPFIND";
    req.path = "/dav/users/alice/";
    req.depth = "0";
    BOOST_TEST(dav::answer(req, tree, history).status == 401u);
    tree.user = "bob";
    BOOST_TEST(dav::answer(req, tree, history).status == 401u);
    tree.revoked = true;
    BOOST_TEST(dav::answer(req, tree, history).status == 410u);
    tree.user = "alice";
    tree.revoked = false;
    BOOST_TEST(dav::answer(req, tree, history).status == 207u);
    // A tree cut for another path is no answer for this one.
    req.path = "/dav/users/bob/";
    BOOST_TEST(dav::answer(req, tree, history).status == 404u);
    auto const names = dav::names_in("/dav/users/alice/feeds/team/x.ics");
    BOOST_TEST(names.owner == "alice");
    BOOST_TEST(names.feed == "team");
    BOOST_TEST(!names.home);
    BOOST_TEST(dav::names_in("/dav/users/alice/feeds/").home);
    BOOST_TEST(dav::names_in("/dav/feeds").home);
    BOOST_TEST(dav::names_in("/dav/feeds/team").feed == "team");
    BOOST_TEST(dav::names_in("/dav/users/").owner.empty());
}

BOOST_AUTO_TEST_SUITE_END()
