// File: dav_push_registry_test.cpp
// The WebDAV-Push registry without sockets: a new push resource vs the same one again (an update at the same
// id), the caps per collection and in all, the week's limit, expiry, revocation by token digest, topics
// (stable, keyed by the VAPID key, the same from a copy of it), and the single box's journal (a restart
// keeps them, 0600, a torn last line, compaction) with the JSON the cluster's rows share.
#include "dav/push_journal.hpp"
#include "dav/push_registry.hpp"
#include "support/fixtures.hpp"

#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <chrono>
#include <fstream>

using namespace icsbridge;

namespace dav_push_registry_test {

using namespace std::chrono_literals;

std::chrono::sys_seconds const t0 =
    std::chrono::floor<std::chrono::seconds>(std::chrono::sys_days(std::chrono::year(2026) / 3 / 1));

dav::PushRegistration reg(std::string feed, std::string resource) {
    dav::PushRegistration r;
    r.feed = std::move(feed);
    r.push_resource = std::move(resource);
    r.keys = {std::string(65, '\x04'), std::string(16, 'a')};
    return r;
}

BOOST_AUTO_TEST_SUITE(dav_push_registry_test)

BOOST_AUTO_TEST_CASE(the_registry_updates_the_same_push_resource_and_caps_the_rest) {
    dav::PushRegistry r{"K", std::string(32, 'k'), nullptr, dav::PushCaps{2, 3}};
    auto a = r.add(reg("f", "https://p.example/a"), t0);
    BOOST_TEST_REQUIRE(a.has_value());
    BOOST_TEST((a->first == dav::PushAdded::created));
    BOOST_TEST(a->second.id.size() == 22u);
    BOOST_TEST((a->second.expires == t0 + std::chrono::days(7))); // none given: the longest
    auto again = reg("f", "https://p.example/a");
    again.expires = t0 + 1h;
    auto b = r.add(again, t0 + 1s);
    BOOST_TEST_REQUIRE(b.has_value());
    BOOST_TEST((b->first == dav::PushAdded::updated));
    BOOST_TEST(b->second.id == a->second.id);
    BOOST_TEST((b->second.expires == t0 + 1h));
    BOOST_TEST(r.live("f", t0).size() == 1u);
    BOOST_TEST(r.add(reg("f", "https://p.example/b"), t0).has_value());
    auto full = r.add(reg("f", "https://p.example/c"), t0); // 2 per collection
    BOOST_TEST(!full.has_value());
    BOOST_TEST((full.error().code == errc::usage));
    BOOST_TEST(r.add(reg("g", "https://p.example/c"), t0).has_value());
    BOOST_TEST(!r.add(reg("h", "https://p.example/d"), t0).has_value()); // 3 in all
    auto far = reg("h", "https://p.example/d");
    far.expires = t0 + std::chrono::days(30);
    BOOST_TEST(r.remove(a->second.id));
    auto kept = r.add(far, t0);
    BOOST_TEST_REQUIRE(kept.has_value());
    BOOST_TEST((kept->second.expires == t0 + std::chrono::days(7))); // capped at a week
    BOOST_TEST(!r.remove(a->second.id));
    BOOST_TEST(r.counts().at("f") == 1u);
}

BOOST_AUTO_TEST_CASE(expired_registrations_are_gone_and_revocation_ends_them) {
    dav::PushRegistry r{"K", std::string(32, 'k'), nullptr};
    auto soon = reg("f", "https://p.example/a");
    soon.expires = t0 + 1h;
    auto id = r.add(soon, t0)->second.id;
    auto token = reg("f", "https://p.example/b");
    token.subscriber = "ann";
    token.token_digest = dav::push_token_digest("f", "ann", "secret-1");
    (void)r.add(token, t0);
    BOOST_TEST(r.live("f", t0 + 59min).size() == 2u);
    BOOST_TEST(r.live("f", t0 + 1h).size() == 1u);
    BOOST_TEST(!r.find(id, t0 + 1h).has_value());
    BOOST_TEST(r.expire(t0 + 2h) == 1u);
    BOOST_TEST(r.counts().at("f") == 1u);
    auto const ended = r.remove_if([](dav::PushRegistration const& x) {
        return x.token_digest != dav::push_token_digest(x.feed, x.subscriber, "secret-2");
    });
    BOOST_TEST(ended == 1u);
    BOOST_TEST(r.counts().empty());
    BOOST_TEST(dav::push_token_digest("f", "ann", "t") != dav::push_token_digest("g", "ann", "t"));
}

BOOST_AUTO_TEST_CASE(topics_are_stable_per_feed_and_keyed) {
    auto vapid = webpush::VapidKey::generate();
    BOOST_TEST_REQUIRE(vapid.has_value());
    auto key = dav::push_topic_key(*vapid);
    BOOST_TEST_REQUIRE(key.has_value());
    dav::PushRegistry a{vapid->public_key_base64url(), *key, nullptr};
    auto copy = webpush::VapidKey::from_pem(*vapid->to_pem()); // another replica, the same key
    dav::PushRegistry b{copy->public_key_base64url(), *dav::push_topic_key(*copy), nullptr};
    BOOST_TEST(a.topic("meetups") == b.topic("meetups"));
    BOOST_TEST(a.topic("meetups").size() == 22u);
    BOOST_TEST(a.topic("meetups") != a.topic("jobs"));
    dav::PushRegistry other{"K", *dav::push_topic_key(*webpush::VapidKey::generate()), nullptr};
    BOOST_TEST(other.topic("meetups") != a.topic("meetups"));
    BOOST_TEST(a.vapid_public_key() == vapid->public_key_base64url());
}

BOOST_AUTO_TEST_CASE(the_journal_keeps_registrations_across_a_restart) {
    test::TempDir dir;
    std::string kept_id, gone_id;
    {
        dav::PushRegistry r{"K", std::string(32, 'k'), dav::push_journal(dir.path())};
        BOOST_TEST_REQUIRE(r.reload(t0).has_value()); // nothing there yet
        auto a = reg("f", "https://p.example/a");
        a.subscriber = "ann";
        a.token_digest = dav::push_token_digest("f", "ann", "t");
        kept_id = r.add(a, t0)->second.id;
        gone_id = r.add(reg("f", "https://p.example/b"), t0)->second.id;
        auto renewed = a;
        renewed.expires = t0 + 2h;
        (void)r.add(renewed, t0); // the same push resource: an update, kept as the newest line
        BOOST_TEST(r.remove(gone_id));
        auto soon = reg("g", "https://p.example/c");
        soon.expires = t0 + 1h;
        (void)r.add(soon, t0);
    }
    auto const path = dav::push_journal_path(dir.path());
    struct stat st {};
    BOOST_TEST_REQUIRE(::stat(path.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    std::ofstream(path, std::ios::app) << R"({"id":"torn","feed":"f","push_res)"; // a crash mid-line
    dav::PushRegistry again{"K", std::string(32, 'k'), dav::push_journal(dir.path())};
    BOOST_TEST_REQUIRE(again.reload(t0 + 90min).has_value());
    auto const live = again.live("f", t0 + 90min);
    BOOST_TEST_REQUIRE(live.size() == 1u);
    BOOST_TEST(live[0].id == kept_id);
    BOOST_TEST((live[0].expires == t0 + 2h));
    BOOST_TEST(live[0].subscriber == "ann");
    BOOST_TEST(live[0].keys.p256dh == std::string(65, '\x04'));
    BOOST_TEST(again.live("g", t0 + 90min).empty()); // expired while down
    BOOST_TEST(!again.find(gone_id, t0).has_value());
    // The expired one and the removed one are gone from the file too, compacted at load.
    dav::PushRegistry third{"K", std::string(32, 'k'), dav::push_journal(dir.path())};
    BOOST_TEST_REQUIRE(third.reload(t0).has_value());
    BOOST_TEST(third.counts().size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_registration_reads_back_from_its_json) {
    auto r = reg("f", "https://p.example/a?x=\"1\"");
    r.id = "abc";
    r.expires = t0;
    r.depth = "infinity";
    auto back = dav::registration_from_json(dav::to_json(r));
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST(back->id == r.id);
    BOOST_TEST(back->feed == r.feed);
    BOOST_TEST(back->push_resource == r.push_resource);
    BOOST_TEST(back->keys.p256dh == r.keys.p256dh);
    BOOST_TEST(back->keys.auth == r.keys.auth);
    BOOST_TEST(back->depth == r.depth);
    BOOST_TEST((back->expires == r.expires));
    BOOST_TEST(!dav::registration_from_json("{}").has_value());
    BOOST_TEST(!dav::registration_from_json("not json").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace dav_push_registry_test
