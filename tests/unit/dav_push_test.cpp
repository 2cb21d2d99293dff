// File: dav_push_test.cpp
// WebDAV-Push registration without sockets: the push-register body (as DAVx⁵ sends it, the draft's other
// forms, hostile ones), the checks of a subscription (keys, https, literal private addresses) and answer():
// the collection's advertisement, OPTIONS, POST (201, 204, every refusal) and DELETE.
#include "dav/dav_detail.hpp"
#include "dav/push_detail.hpp"
#include "dav/push_registry.hpp"
#include "util/base64url.hpp"
#include "webpush/p256.hpp"
#include <icsbridge/dav.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>

using namespace icsbridge;

namespace dav_push_test {

using namespace std::chrono_literals;

sys_seconds const t0 =
    std::chrono::floor<std::chrono::seconds>(std::chrono::sys_days(std::chrono::year(2026) / 3 / 1));

/** A real subscription key (a point on P-256) and auth secret, base64url as a client sends them. */
struct ClientKeys {
    std::string p256dh, auth;
    ClientKeys() {
        auto key = webpush::make_p256_key();
        BOOST_TEST_REQUIRE(key.has_value());
        p256dh = base64url(*webpush::p256_point(key->get()));
        auth = base64url(std::string(16, '\x07'));
    }
};

std::string body(
    std::string const& resource,
    ClientKeys const& k,
    std::string const& trigger =
        "<P:trigger><P:content-update><D:depth>1</D:depth></P:content-update></P:trigger>",
    std::string const& extra = ""
) {
    return R"(<?xml version="1.0" encoding="utf-8"?><P:push-register xmlns:P="https://bitfire.at/webdav-push" xmlns:D="DAV:">)"
           "<P:subscription><P:web-push-subscription><P:push-resource>" +
           resource + "</P:push-resource><P:subscription-public-key type=\"p256dh\">" + k.p256dh +
           "</P:subscription-public-key><P:auth-secret>" + k.auth +
           "</P:auth-secret></P:web-push-subscription></P:subscription>" + trigger + extra +
           "</P:push-register>";
}

std::string header(dav::Response const& r, std::string_view name) {
    for (auto const& [n, v] : r.headers)
        if (n == name)
            return v;
    return {};
}

/** A tree with a public feed and a token feed the login "ann" opened, and push on. */
struct Fixture {
    dav::History history{std::chrono::hours(24)};
    dav::PushRegistry registry{"BPUBLIC", std::string(32, 'k'), nullptr, dav::PushCaps{3, 5}};
    dav::Tree tree;
    ClientKeys keys;
    Fixture() {
        tree.feeds = {{"meetups", "Meetups", "", {"VEVENT"}, nullptr, false}};
        tree.push = &registry;
        tree.now = t0;
    }
    dav::Response ask(std::string_view method, std::string_view path, std::string_view b = {}) const {
        dav::Request req;
        req.method = method;
        req.path = path;
        req.body = b;
        req.depth = "0";
        return dav::answer(req, tree, history);
    }
};

BOOST_AUTO_TEST_SUITE(dav_push_test)

BOOST_AUTO_TEST_CASE(a_push_register_as_davx5_sends_it) {
    ClientKeys const k;
    // DAVx⁵ 4.4.9: no content-encoding, a trigger with depth, an expires.
    auto const r = dav::detail::parse_push_register(body(
        "https://push.example.net/x?y=1&amp;z=2",
        k,
        "<P:trigger><P:content-update><D:depth>infinity</D:depth>"
        "</P:content-update></P:trigger>",
        "<P:expires>Sun, 08 Mar 2026 10:00:00 GMT</P:expires>"
    ));
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->push_resource == "https://push.example.net/x?y=1&z=2");
    BOOST_TEST(r->key_type == "p256dh");
    BOOST_TEST(r->public_key == k.p256dh);
    BOOST_TEST(r->auth_secret == k.auth);
    BOOST_TEST(r->content_encoding.empty());
    BOOST_TEST(r->depth.value_or("") == "infinity");
    BOOST_TEST_REQUIRE(r->expires.has_value());
    BOOST_TEST((*r->expires == t0 + std::chrono::days(7) + 10h));
    BOOST_TEST(!dav::detail::subscription_problem(*r, false).has_value());
}

BOOST_AUTO_TEST_CASE(sync_level_no_trigger_and_property_update_only) {
    ClientKeys const k;
    auto sync = dav::detail::parse_push_register(body(
        "https://p.example/1",
        k,
        "<P:trigger><P:content-update><P:sync-level>0</P:sync-level></P:content-update></P:trigger>"
    ));
    BOOST_TEST(sync->depth.value_or("") == "0");
    auto none = dav::detail::parse_push_register(body("https://p.example/1", k, ""));
    BOOST_TEST(none->depth.value_or("") == "1");
    auto prop = dav::detail::parse_push_register(body(
        "https://p.example/1",
        k,
        "<P:trigger><P:property-update><D:depth>0</D:depth></P:property-update></P:trigger>"
    ));
    BOOST_TEST(!prop->depth.has_value());
    auto bad_date =
        dav::detail::parse_push_register(body("https://p.example/1", k, "", "<P:expires>soon</P:expires>"));
    BOOST_TEST(!bad_date.has_value());
}

BOOST_AUTO_TEST_CASE(hostile_and_foreign_bodies_are_malformed) {
    std::string deep;
    for (int i = 0; i < 100000; ++i)
        deep += "<P:a xmlns:P=\"https://bitfire.at/webdav-push\">";
    std::string const bomb =
        R"(<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>
      <P:push-register xmlns:P="https://bitfire.at/webdav-push"><P:expires>&b;</P:expires></P:push-register>)";
    std::string const xxe = R"(<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
      <P:push-register xmlns:P="https://bitfire.at/webdav-push">&x;</P:push-register>)";
    for (auto const& b :
         {deep,
          bomb,
          xxe,
          std::string("<push-register>"),
          std::string(""),
          std::string(R"(<D:propfind xmlns:D="DAV:"/>)"),
          std::string(R"(<push-register xmlns="https://bitfire.at/other"/>)")})
        BOOST_TEST(!dav::detail::parse_push_register(b).has_value());
}

BOOST_AUTO_TEST_CASE(subscriptions_that_cannot_be_pushed_to) {
    ClientKeys const k;
    auto problem =
        [&](std::string const& resource, bool allow = false, std::string pub = "", std::string auth = "") {
            auto r = dav::detail::parse_push_register(body(resource, k));
            BOOST_TEST_REQUIRE(r.has_value());
            if (!pub.empty())
                r->public_key = pub;
            if (!auth.empty())
                r->auth_secret = auth;
            return dav::detail::subscription_problem(*r, allow).has_value();
        };
    BOOST_TEST(!problem("https://fcm.googleapis.com/fcm/send/abc"));
    BOOST_TEST(!problem("https://8.8.8.8/x"));
    BOOST_TEST(problem("http://push.example.net/x"));
    BOOST_TEST(problem("ftp://push.example.net/x"));
    BOOST_TEST(problem("/relative"));
    BOOST_TEST(problem("https://user:pw@push.example.net/x"));
    for (auto host :
         {"127.0.0.1",
          "10.0.0.2",
          "192.168.1.1",
          "172.20.0.1",
          "169.254.169.254",
          "100.64.1.1",
          "[::1]",
          "[fc00::1]",
          "[fe80::1]",
          "[::ffff:127.0.0.1]",
          "0.0.0.0",
          "localhost",
          "LOCALHOST",
          "a.localhost",
          "127.1",
          "2130706433",
          "0x7f.0.0.1"})
        BOOST_TEST(problem(std::string("https://") + host + ":8443/push"), host);
    // The test switch: loopback and http are fine.
    BOOST_TEST(!problem("http://127.0.0.1:9999/push", true));
    // Keys: not a point, not 16 bytes, not base64url; a padded key in the standard alphabet is fine.
    BOOST_TEST(problem("https://p.example/1", false, base64url(std::string(65, '\x04'))));
    BOOST_TEST(problem("https://p.example/1", false, "", base64url(std::string(15, 'a'))));
    BOOST_TEST(problem("https://p.example/1", false, "not*base64"));
    BOOST_TEST(!problem("https://p.example/1", false, "", "BwcHBwcHBwcHBwcHBwcHBw=="));
    auto enc = dav::detail::parse_push_register(body("https://p.example/1", k, "", ""));
    enc->content_encoding = "aesgcm";
    BOOST_TEST(dav::detail::subscription_problem(*enc, false).has_value());
    enc->content_encoding = "aes128gcm";
    BOOST_TEST(!dav::detail::subscription_problem(*enc, false).has_value());
}

BOOST_AUTO_TEST_CASE(the_collection_advertises_push_and_options_says_so) {
    Fixture f;
    auto const r = f.ask(
        "PROPFIND",
        "/dav/feeds/meetups/",
        R"(<D:propfind xmlns:D="DAV:" xmlns:P="https://bitfire.at/webdav-push"><D:prop><P:transports/>)"
        R"(<P:supported-triggers/><P:topic/></D:prop></D:propfind>)"
    );
    BOOST_TEST(r.status == 207u);
    BOOST_TEST(
        r.body.find(R"(<P:vapid-public-key type="p256ecdsa">BPUBLIC</P:vapid-public-key>)") !=
        std::string::npos
    );
    BOOST_TEST(r.body.find("<P:content-update><D:depth>1</D:depth></P:content-update>") != std::string::npos);
    BOOST_TEST(
        r.body.find("<P:topic xmlns:P=\"https://bitfire.at/webdav-push\">" + f.registry.topic("meetups")) !=
        std::string::npos
    );
    BOOST_TEST(r.body.find("404 Not Found") == std::string::npos);
    BOOST_TEST(
        header(f.ask("OPTIONS", "/dav/feeds/meetups/"), "DAV") == "1, 3, calendar-access, webdav-push"
    );
    BOOST_TEST(f.ask("PROPFIND", "/dav/feeds/meetups/", "").status == 207u); // allprop still answers
    f.tree.push = nullptr;
    auto const off = f.ask(
        "PROPFIND",
        "/dav/feeds/meetups/",
        R"(<D:propfind xmlns:D="DAV:" xmlns:P="https://bitfire.at/webdav-push"><D:prop><P:topic/></D:prop></D:propfind>)"
    );
    BOOST_TEST(off.body.find("404 Not Found") != std::string::npos);
    BOOST_TEST(header(f.ask("OPTIONS", "/dav/feeds/meetups/"), "DAV") == "1, 3, calendar-access");
}

BOOST_AUTO_TEST_CASE(post_registers_then_updates_and_delete_ends_it) {
    Fixture f;
    f.tree.base = "/cal";
    auto const b = body("https://push.example.net/abc", f.keys);
    auto const first = f.ask("POST", "/dav/feeds/meetups/", b);
    BOOST_TEST(first.status == 201u);
    auto const location = header(first, "Location");
    BOOST_TEST(location.starts_with("/cal/dav/push/"));
    BOOST_TEST(header(first, "Expires") == "Sun, 08 Mar 2026 00:00:00 GMT");
    auto const second = f.ask("POST", "/dav/feeds/meetups/", b);
    BOOST_TEST(second.status == 204u);
    BOOST_TEST(header(second, "Location") == location);
    BOOST_TEST(f.registry.live("meetups", t0).size() == 1u);
    BOOST_TEST(f.registry.live("meetups", t0)[0].subscriber.empty());
    auto const path = location.substr(4); // without the base, as the route gives it
    BOOST_TEST(f.ask("GET", path).status == 405u);
    BOOST_TEST(f.ask("DELETE", path).status == 204u);
    BOOST_TEST(f.ask("DELETE", path).status == 404u);
    BOOST_TEST(f.registry.live("meetups", t0).empty());
}

BOOST_AUTO_TEST_CASE(an_asked_expiry_is_kept_and_after_it_delete_is_404) {
    Fixture f;
    auto const b = body(
        "https://push.example.net/short",
        f.keys,
        "<P:trigger><P:content-update><D:depth>1</D:depth>"
        "</P:content-update></P:trigger>",
        "<P:expires>Sun, 01 Mar 2026 00:00:05 GMT</P:expires>"
    );
    auto const added = f.ask("POST", "/dav/feeds/meetups/", b);
    BOOST_TEST(added.status == 201u);
    BOOST_TEST(header(added, "Expires") == "Sun, 01 Mar 2026 00:00:05 GMT");
    BOOST_TEST(f.registry.live("meetups", t0 + 4s).size() == 1u);
    BOOST_TEST(f.registry.live("meetups", t0 + 5s).empty());
    // Expired but not yet dropped by the upkeep: gone for the client as well.
    f.tree.now = t0 + 5s;
    BOOST_TEST(f.ask("DELETE", header(added, "Location")).status == 404u);
}

BOOST_AUTO_TEST_CASE(refusals_of_a_registration) {
    Fixture f;
    auto const ok = body("https://push.example.net/abc", f.keys);
    BOOST_TEST(f.ask("POST", "/dav/feeds/private/", ok).status == 401u); // as reading it would answer
    BOOST_TEST(f.ask("POST", "/dav/feeds/meetups/", "<not xml").status == 400u);
    auto const local = f.ask("POST", "/dav/feeds/meetups/", body("https://127.0.0.1:8443/x", f.keys));
    BOOST_TEST(local.status == 403u);
    BOOST_TEST(local.body.find("invalid-subscription") != std::string::npos);
    auto const trigger = f.ask(
        "POST",
        "/dav/feeds/meetups/",
        body("https://push.example.net/abc", f.keys, "<P:trigger><P:property-update/></P:trigger>")
    );
    BOOST_TEST(trigger.status == 403u);
    BOOST_TEST(trigger.body.find("no-supported-trigger") != std::string::npos);
    for (int i = 0; i < 3; ++i)
        BOOST_TEST(
            f.ask("POST", "/dav/feeds/meetups/", body("https://p.example/" + std::to_string(i), f.keys))
                .status == 201u
        );
    BOOST_TEST(f.ask("POST", "/dav/feeds/meetups/", body("https://p.example/9", f.keys)).status == 507u);
    f.tree.push_allow_private = true;
    f.registry.remove_if([](auto const&) { return true; });
    BOOST_TEST(f.ask("POST", "/dav/feeds/meetups/", body("http://127.0.0.1:8443/x", f.keys)).status == 201u);
    f.tree.push = nullptr;
    auto const off = f.ask("POST", "/dav/feeds/meetups/", ok);
    BOOST_TEST(off.status == 403u);
    BOOST_TEST(off.body.find("push-not-available") != std::string::npos);
    BOOST_TEST(f.ask("DELETE", "/dav/push/anything").status == 404u);
}

BOOST_AUTO_TEST_CASE(a_token_feed_registration_is_the_subscribers) {
    Fixture f;
    f.tree.feeds[0].token = true;
    f.tree.user = "ann";
    f.tree.password = "ann-token";
    BOOST_TEST(
        f.ask("POST", "/dav/feeds/meetups/", body("https://push.example.net/abc", f.keys)).status == 201u
    );
    auto const live = f.registry.live("meetups", t0);
    BOOST_TEST_REQUIRE(live.size() == 1u);
    BOOST_TEST(live[0].subscriber == "ann");
    BOOST_TEST(live[0].token_digest == dav::push_token_digest("meetups", "ann", "ann-token"));
    BOOST_TEST(live[0].token_digest.find("ann-token") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace dav_push_test
