// File: webpush_delivery_test.cpp
// Web Push delivery without sockets: the push-message and the request around it (decrypted here with the
// subscription's private key), the VAPID header cached per origin, the verdict on each push service answer,
// the per-registration schedule (the first message at once, a burst coalesced to one a second, the newest
// token winning, retries after their wait) and the per-origin pace.
#include "util/base64url.hpp"
#include "webpush/delivery.hpp"
#include "webpush/ece.hpp"
#include "webpush/message.hpp"
#include "webpush/p256.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <openssl/evp.h>

#include <map>
#include <set>
#include <string>

namespace webpush_delivery_test {

using namespace icsbridge;
using namespace icsbridge::webpush;
using namespace std::chrono_literals;

/** @brief A subscription as a user agent holds it: the private key, and what it gives the server. */
struct Subscriber {
    PkeyPtr key;
    SubscriptionKeys keys;
};

Subscriber subscriber() {
    auto key = make_p256_key();
    BOOST_TEST_REQUIRE(key.has_value());
    auto point = p256_point(key->get());
    BOOST_TEST_REQUIRE(point.has_value());
    return Subscriber{std::move(*key), SubscriptionKeys{*point, std::string(16, '\x5a')}};
}

/** @brief RFC 8291 §3.4 from the user agent's side: the plaintext of a one-record aes128gcm body. */
std::string decrypt(Subscriber const& s, std::string const& body) {
    BOOST_TEST_REQUIRE(body.size() > 86u + 16u);
    auto const salt = body.substr(0, 16);
    auto const as_public = body.substr(21, 65);
    auto secret = ecdh_p256(s.key.get(), as_public);
    BOOST_TEST_REQUIRE(secret.has_value());
    auto ikm = webpush_ikm(*secret, s.keys.auth, s.keys.p256dh, as_public);
    BOOST_TEST_REQUIRE(ikm.has_value());
    auto rk = record_keys(*ikm, salt);
    BOOST_TEST_REQUIRE(rk.has_value());
    auto const record = body.substr(86);
    auto tag = record.substr(record.size() - 16);
    std::string out(record.size() - 16, '\0');
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(
        EVP_CIPHER_CTX_new(),
        EVP_CIPHER_CTX_free
    );
    auto u = [](std::string const& t) { return reinterpret_cast<unsigned char const*>(t.data()); };
    int n = 0;
    int end = 0;
    BOOST_TEST_REQUIRE(
        EVP_DecryptInit_ex(ctx.get(), EVP_aes_128_gcm(), nullptr, u(rk->cek), u(rk->nonce)) == 1
    );
    BOOST_TEST_REQUIRE(
        EVP_DecryptUpdate(
            ctx.get(),
            reinterpret_cast<unsigned char*>(out.data()),
            &n,
            u(record),
            static_cast<int>(out.size())
        ) == 1
    );
    BOOST_TEST_REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, 16, tag.data()) == 1);
    BOOST_TEST_REQUIRE(EVP_DecryptFinal_ex(ctx.get(), nullptr, &end) == 1);
    BOOST_TEST_REQUIRE(out.back() == '\x02'); // the last record's delimiter, no padding
    out.pop_back();
    return out;
}

std::string header(PushRequest const& r, std::string_view name) {
    for (auto const& [k, v] : r.headers)
        if (k == name)
            return v;
    return "(absent)";
}

/** @brief The claims of a `vapid t=JWT, k=KEY` value. */
boost::json::object claims_of(std::string const& value) {
    auto const t = value.find("t=");
    auto const first = value.find('.', t);
    auto const second = value.find('.', first + 1);
    auto json = from_base64url(value.substr(first + 1, second - first - 1));
    BOOST_TEST_REQUIRE(json.has_value());
    return boost::json::parse(*json).as_object();
}

BOOST_AUTO_TEST_SUITE(webpush_delivery_test)

BOOST_AUTO_TEST_CASE(the_push_message_names_the_topic_and_the_new_sync_token) {
    BOOST_TEST(
        push_message_xml("dG9waWMtb2YtZmVlZA", "http://icsbridge/sync/7-42?a&b") ==
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        "<P:push-message xmlns:D=\"DAV:\" xmlns:P=\"https://bitfire.at/webdav-push\">"
        "<P:topic>dG9waWMtb2YtZmVlZA</P:topic>"
        "<P:content-update><D:sync-token>http://icsbridge/sync/7-42?a&amp;b</D:sync-token></P:content-update>"
        "</P:push-message>\n"
    );
}

BOOST_AUTO_TEST_CASE(the_request_decrypts_to_the_message_and_carries_rfc_8030_headers) {
    auto const s = subscriber();
    Recipient const to{"r1", "https://push.example.net/wpush/abc", s.keys};
    auto req = push_request(to, "dG9waWMtb2YtZmVlZA", "urn:token:9", "vapid t=x.y.z, k=K");
    BOOST_TEST_REQUIRE(req.has_value(), (req ? "" : req.error().message));
    BOOST_TEST(req->url == "https://push.example.net/wpush/abc");
    BOOST_TEST(header(*req, "Content-Encoding") == "aes128gcm");
    BOOST_TEST(header(*req, "Content-Type") == "application/octet-stream");
    BOOST_TEST(header(*req, "TTL") == "86400");
    BOOST_TEST(header(*req, "Urgency") == "normal");
    BOOST_TEST(header(*req, "Topic") == "dG9waWMtb2YtZmVlZA");
    BOOST_TEST(header(*req, "Authorization") == "vapid t=x.y.z, k=K");
    BOOST_TEST(decrypt(s, req->body) == push_message_xml("dG9waWMtb2YtZmVlZA", "urn:token:9"));
}

BOOST_AUTO_TEST_CASE(one_ece_encrypts_many_messages_each_with_a_fresh_key_and_salt) {
    // What each of the sender's encryption threads does: its fetched algorithms reused, never its key.
    auto ece = Ece::make();
    BOOST_TEST_REQUIRE(ece.has_value());
    auto const s = subscriber();
    Recipient const to{"r1", "https://push.example.net/wpush/abc", s.keys};
    std::set<std::string> salts, senders;
    for (int i = 0; i < 3; ++i) {
        auto const token = "urn:token:" + std::to_string(i);
        auto req = push_request(*ece, to, "dG9waWMtb2YtZmVlZA", token, "vapid t=x.y.z, k=K");
        BOOST_TEST_REQUIRE(req.has_value(), (req ? "" : req.error().message));
        BOOST_TEST(decrypt(s, req->body) == push_message_xml("dG9waWMtb2YtZmVlZA", token));
        salts.insert(req->body.substr(0, 16));
        senders.insert(req->body.substr(21, 65));
    }
    BOOST_TEST(salts.size() == 3u);
    BOOST_TEST(senders.size() == 3u);
    Recipient bad = to;
    bad.keys.p256dh[40] = static_cast<char>(bad.keys.p256dh[40] ^ 1);
    auto refused = push_request(*ece, bad, "abc", "t", "vapid");
    BOOST_TEST_REQUIRE(!refused.has_value());
    BOOST_TEST(refused.error().code == errc::usage);
}

BOOST_AUTO_TEST_CASE(a_topic_a_push_service_would_refuse_is_an_error) {
    auto const s = subscriber();
    Recipient const to{"r1", "https://push.example.net/x", s.keys};
    BOOST_TEST(valid_topic("AAAAAAAAAAAAAAAAAAAAAA"));
    BOOST_TEST(!valid_topic(""));
    BOOST_TEST(!valid_topic(std::string(33, 'a')));
    BOOST_TEST(!valid_topic("a+b/c="));
    BOOST_TEST(!push_request(to, "has space", "t", "vapid").has_value());
    Recipient bad = to;
    bad.keys.auth = "short";
    BOOST_TEST(!push_request(bad, "abc", "t", "vapid").has_value());
}

BOOST_AUTO_TEST_CASE(one_vapid_token_per_origin_renewed_at_half_its_life) {
    auto key = VapidKey::generate();
    BOOST_TEST_REQUIRE(key.has_value());
    VapidCache cache(*key, "mailto:ops@example.org", 12h);
    std::chrono::sys_seconds const t0{std::chrono::seconds{1'800'000'000}};
    auto a = cache.authorization("https://push.example.net/a", t0);
    auto b = cache.authorization("https://push.example.net:443/b", t0 + 1h);
    auto c = cache.authorization("https://other.example.net/a", t0 + 1h);
    BOOST_TEST_REQUIRE((a && b && c));
    BOOST_TEST(*a == *b); // the same origin: signed once
    BOOST_TEST(*a != *c);
    BOOST_TEST(cache.size() == 2u);
    BOOST_TEST(std::string_view(claims_of(*c).at("aud").as_string()) == "https://other.example.net");
    BOOST_TEST(std::string_view(claims_of(*a).at("sub").as_string()) == "mailto:ops@example.org");
    auto d = cache.authorization("https://push.example.net/a", t0 + 6h);
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST(*d != *a);
    BOOST_TEST(claims_of(*d).at("exp").to_number<std::int64_t>() == 1'800'000'000 + 18 * 3600);
    BOOST_TEST(!cache.authorization("not a url", t0).has_value());
}

BOOST_AUTO_TEST_CASE(each_answer_has_its_fate) {
    DeliveryPolicy const p;
    auto fate = [&](unsigned status, int attempt = 1) {
        return judge(p, Answer{status, {}}, attempt, 0.5).fate;
    };
    BOOST_TEST((fate(201) == Fate::sent));
    BOOST_TEST((fate(200) == Fate::sent));
    BOOST_TEST((fate(404) == Fate::remove));
    BOOST_TEST((fate(410) == Fate::remove));
    BOOST_TEST((fate(301) == Fate::drop));
    BOOST_TEST((fate(307) == Fate::drop));
    BOOST_TEST(judge(p, Answer{308, {}}, 1, 0).why == "redirect not followed");
    BOOST_TEST((fate(400) == Fate::drop));
    BOOST_TEST((fate(401) == Fate::drop));
    BOOST_TEST((fate(413) == Fate::drop));
    BOOST_TEST((fate(429) == Fate::retry));
    BOOST_TEST((fate(500) == Fate::retry));
    BOOST_TEST((fate(503) == Fate::retry));
    BOOST_TEST((fate(0) == Fate::retry));
    BOOST_TEST((fate(503, p.max_attempts - 1) == Fate::retry));
    BOOST_TEST((fate(503, p.max_attempts) == Fate::drop));
    BOOST_TEST((fate(0, p.max_attempts) == Fate::drop));
}

BOOST_AUTO_TEST_CASE(retries_back_off_and_honour_retry_after) {
    DeliveryPolicy p;
    p.initial_backoff = 1000ms;
    p.max_backoff = 5000ms;
    BOOST_TEST(judge(p, Answer{503, {}}, 1, 0.0).wait == 500ms);
    BOOST_TEST(judge(p, Answer{503, {}}, 1, 0.999).wait.count() == 999);
    BOOST_TEST(judge(p, Answer{503, {}}, 2, 0.0).wait == 1000ms);
    BOOST_TEST(judge(p, Answer{503, {}}, 3, 0.0).wait == 2000ms);
    BOOST_TEST(judge(p, Answer{503, {}}, 4, 1.0).wait == 5000ms); // capped
    BOOST_TEST(judge(p, Answer{429, 7s}, 1, 0.0).wait == 7000ms);
    BOOST_TEST(judge(p, Answer{429, 7s}, 3, 0.9).wait == 7000ms);
    BOOST_TEST((judge(p, Answer{429, 2h}, 1, 0.0).fate == Fate::drop));
}

/** @brief A schedule and a clock for it. */
struct Clocked {
    Schedule s{1000ms};
    steady_time now{std::chrono::seconds(100)};
};

BOOST_FIXTURE_TEST_CASE(the_first_message_after_a_quiet_spell_goes_at_once, Clocked) {
    s.change("r1", "t1", now);
    BOOST_TEST((s.next_due() <= now)); // due already
    auto due = s.take_due(now);
    BOOST_TEST_REQUIRE(due.size() == 1u);
    BOOST_TEST(due[0].token == "t1");
    BOOST_TEST(due[0].attempt == 1);
    s.finished(due[0], Fate::sent, {}, now + 50ms);
    BOOST_TEST(!s.next_due().has_value());
    BOOST_TEST(s.pending() == 0u);
    // Two seconds later all is quiet again: at once.
    now += 2s;
    s.change("r1", "t2", now);
    BOOST_TEST(s.take_due(now).size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_burst_coalesces_to_one_message_a_second_with_the_newest_token, Clocked) {
    auto const start = now;
    std::vector<std::pair<steady_time, std::string>> sent;
    // 50 changes, 20 ms apart, each collection at token t0..t49; the schedule is run at every step.
    for (int i = 0; i < 50; ++i) {
        s.change("r1", "t" + std::to_string(i), now);
        for (auto const& d : s.take_due(now)) {
            sent.emplace_back(now, d.token);
            s.finished(d, Fate::sent, {}, now + 5ms);
        }
        now += 20ms;
    }
    while (auto next = s.next_due()) {
        now = std::max(now, *next);
        for (auto const& d : s.take_due(now)) {
            sent.emplace_back(now, d.token);
            s.finished(d, Fate::sent, {}, now + 5ms);
        }
    }
    BOOST_TEST_REQUIRE(sent.size() == 2u); // at 0 s, then at 1 s with everything since
    BOOST_TEST((sent[0] == std::pair{start, std::string("t0")}));
    BOOST_TEST((sent[1].first == start + 1s));
    BOOST_TEST(sent[1].second == "t49");
}

BOOST_FIXTURE_TEST_CASE(a_change_during_a_flight_goes_after_it_with_its_own_latency, Clocked) {
    s.change("r1", "t1", now);
    auto due = s.take_due(now);
    BOOST_TEST_REQUIRE(due.size() == 1u);
    auto const later = now + 300ms;
    s.change("r1", "t2", later);
    BOOST_TEST(s.take_due(later).empty()); // one in flight per registration
    s.finished(due[0], Fate::sent, {}, now + 400ms);
    BOOST_TEST((s.next_due() == now + 1s));
    auto next = s.take_due(now + 1s);
    BOOST_TEST_REQUIRE(next.size() == 1u);
    BOOST_TEST(next[0].token == "t2");
    BOOST_TEST((next[0].published == later));
}

BOOST_FIXTURE_TEST_CASE(a_retry_waits_and_carries_the_newest_token, Clocked) {
    s.change("r1", "t1", now);
    auto due = s.take_due(now);
    s.finished(due.at(0), Fate::retry, 5000ms, now + 100ms);
    BOOST_TEST((s.next_due() == now + 5100ms));
    s.change("r1", "t2", now + 2s);
    BOOST_TEST((s.next_due() == now + 5100ms)); // a newer change does not hurry a push service that is busy
    auto again = s.take_due(now + 5100ms);
    BOOST_TEST_REQUIRE(again.size() == 1u);
    BOOST_TEST(again[0].token == "t2");
    BOOST_TEST(again[0].attempt == 2);
    BOOST_TEST((again[0].published == now)); // still late since the first change
    s.finished(again[0], Fate::drop, {}, now + 5200ms);
    BOOST_TEST(s.pending() == 0u);
}

BOOST_FIXTURE_TEST_CASE(registrations_are_scheduled_apart_and_a_removed_one_is_forgotten, Clocked) {
    s.change("r1", "t1", now);
    s.change("r2", "t1", now);
    auto due = s.take_due(now);
    BOOST_TEST_REQUIRE(due.size() == 2u);
    s.finished(due[0], Fate::remove, {}, now);
    s.finished(due[1], Fate::sent, {}, now);
    s.change(due[0].id, "t2", now + 10ms); // a change for the removed one starts it afresh: at once
    s.change(due[1].id, "t2", now + 10ms);
    auto next = s.take_due(now + 10ms);
    BOOST_TEST_REQUIRE(next.size() == 1u);
    BOOST_TEST(next[0].id == due[0].id);
    s.forget(due[1].id);
    BOOST_TEST(!s.next_due().has_value());
}

BOOST_AUTO_TEST_CASE(the_pace_per_origin_allows_a_burst_then_the_rate) {
    OriginPace pace(1000, 3);
    steady_time const t{std::chrono::seconds(5)};
    BOOST_TEST(pace.reserve("https://a", t).count() == 0);
    BOOST_TEST(pace.reserve("https://a", t).count() == 0);
    BOOST_TEST(pace.reserve("https://a", t).count() == 0);
    BOOST_TEST((pace.reserve("https://a", t) == 1ms));
    BOOST_TEST((pace.reserve("https://a", t) == 2ms));
    BOOST_TEST(pace.reserve("https://b", t).count() == 0); // another origin has its own
    BOOST_TEST(pace.reserve("https://a", t + 1s).count() == 0);
    // The default lets 2,000 messages a second through to one push service without a wait.
    DeliveryPolicy const p;
    OriginPace fast(p.origin_rate, p.origin_burst);
    std::chrono::nanoseconds longest{0};
    for (int i = 0; i < 2000; ++i)
        longest = std::max(longest, fast.reserve("https://fcm", t + std::chrono::microseconds(500 * i)));
    BOOST_TEST(longest.count() == 0);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace webpush_delivery_test
