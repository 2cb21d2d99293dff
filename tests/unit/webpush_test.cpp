// File: webpush_test.cpp
// Web Push's cryptography without sockets: RFC 8188 §3.1 and RFC 8291 Appendix A reproduced byte for byte
// (and every intermediate value the RFC gives), fresh messages' framing, the refusals, the VAPID key (PEM
// round trip, the key file: 0600, made once even when two threads race, never replaced when damaged) and
// the VAPID header. Writes build/webpush_vapid.json, which tests/python/check_vapid.py verifies with
// python3-jwt (the fixture of python.check_vapid).
#include "support/fixtures.hpp"
#include "util/base64url.hpp"
#include "webpush/ece.hpp"
#include "webpush/p256.hpp"
#include <icsbridge/webpush.hpp>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace webpush_test {

using namespace icsbridge;
using namespace icsbridge::webpush;
using namespace std::chrono_literals;
using icsbridge::test::TempDir;

/** @brief The bytes of a base64url text from an RFC (the test fails on a typo rather than going on). */
std::string b(std::string_view text) {
    auto bytes = from_base64url(text);
    BOOST_TEST_REQUIRE(bytes.has_value(), text);
    return *bytes;
}

// RFC 8291 Appendix A.
constexpr std::string_view rfc_plaintext = "When I grow up, I want to be a watermelon";
constexpr std::string_view as_private = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
constexpr std::string_view as_public =
    "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
constexpr std::string_view ua_public =
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
constexpr std::string_view auth_secret = "BTBZMqHH6r4Tts7J_aSIgg";
constexpr std::string_view rfc_salt = "DGv6ra1nlYgDCS1FRnbzlw";

SubscriptionKeys rfc_subscription() {
    return SubscriptionKeys{b(ua_public), b(auth_secret)};
}

/** @brief The parts of a `vapid t=H.C.S, k=K` header. */
struct VapidHeader {
    std::string header, claims, signature, key;
};

VapidHeader parse_vapid(std::string const& value) {
    static std::regex const form(
        R"(^vapid t=([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$)"
    );
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_match(value, m, form), value);
    return VapidHeader{b(m.str(1)), b(m.str(2)), b(m.str(3)), b(m.str(4))};
}

BOOST_AUTO_TEST_SUITE(webpush_test)

BOOST_AUTO_TEST_CASE(base64url_is_strict_both_ways) {
    for (std::string const& bytes :
         {std::string(), std::string("f"), std::string("fooba"), std::string("\xfb\xff\0\x01", 4)})
        BOOST_TEST(from_base64url(base64url(bytes)).value_or("(refused)") == bytes);
    BOOST_TEST(base64url("\xfb\xff") == "-_8");
    BOOST_TEST(!from_base64url("Zg==").has_value());  // padding
    BOOST_TEST(!from_base64url("Zh").has_value());    // stray bits: "Zg" is the one text of "f"
    BOOST_TEST(!from_base64url("+/8").has_value());   // base64's alphabet, not base64url's
    BOOST_TEST(!from_base64url("Zm9vY").has_value()); // 4n+1 characters
}

BOOST_AUTO_TEST_CASE(rfc_8188_section_3_1_is_reproduced) {
    std::string const ikm = b("yqdlZ-tYemfogSmv7Ws5PQ");
    std::string const salt = b("I1BsxtFttlv3u_Oo94xnmw");
    auto keys = record_keys(ikm, salt);
    BOOST_TEST_REQUIRE(keys.has_value());
    BOOST_TEST(keys->cek == b("_wniytB-ofscZDh4tbSjHw"));
    BOOST_TEST(keys->nonce == b("Bcs8gkIRKLI8GeI8"));
    auto ece = Ece::make();
    BOOST_TEST_REQUIRE(ece.has_value());
    auto body = ece->aes128gcm(ikm, salt, "", "I am the walrus", 4096);
    BOOST_TEST_REQUIRE(body.has_value());
    BOOST_TEST(base64url(*body) == "I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg");
}

BOOST_AUTO_TEST_CASE(rfc_8291_appendix_a_is_reproduced_step_by_step) {
    auto sender = p256_key_pair(b(as_private), b(as_public));
    BOOST_TEST_REQUIRE(sender.has_value(), (sender ? "" : sender.error().message));
    auto point = p256_point(sender->get());
    BOOST_TEST_REQUIRE(point.has_value());
    BOOST_TEST(*point == b(as_public));

    auto secret = ecdh_p256(sender->get(), b(ua_public));
    BOOST_TEST_REQUIRE(secret.has_value());
    BOOST_TEST(*secret == b("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"));
    auto ikm = webpush_ikm(*secret, b(auth_secret), b(ua_public), b(as_public));
    BOOST_TEST_REQUIRE(ikm.has_value());
    BOOST_TEST(*ikm == b("S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg"));
    auto keys = record_keys(*ikm, b(rfc_salt));
    BOOST_TEST_REQUIRE(keys.has_value());
    BOOST_TEST(keys->cek == b("oIhVW04MRdy2XN9CiKLxTg"));
    BOOST_TEST(keys->nonce == b("4h_95klXJ5E_qnoN"));

    auto ece = Ece::make();
    BOOST_TEST_REQUIRE(ece.has_value());
    auto body = ece->encrypt_with(rfc_plaintext, rfc_subscription(), sender->get(), *point, b(rfc_salt));
    BOOST_TEST_REQUIRE(body.has_value());
    BOOST_TEST(
        base64url(*body) ==
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_"
        "c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK"
        "6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    );
}

BOOST_AUTO_TEST_CASE(each_message_has_a_fresh_key_and_salt_in_one_record) {
    std::set<std::string> salts, senders;
    for (std::string_view text : {"", "x", "<push-message/>"}) {
        auto body = encrypt(text, rfc_subscription());
        BOOST_TEST_REQUIRE(body.has_value());
        // salt(16) rs(4) idlen(1) keyid(65), then the record: text, delimiter, tag.
        BOOST_TEST(body->size() == 86 + text.size() + 1 + 16);
        BOOST_TEST(body->substr(16, 5) == std::string("\x00\x00\x10\x00\x41", 5));
        BOOST_TEST(p256_public_key(body->substr(21, 65)).has_value());
        salts.insert(body->substr(0, 16));
        senders.insert(body->substr(21, 65));
    }
    BOOST_TEST(salts.size() == 3u);
    BOOST_TEST(senders.size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_message_is_at_most_one_record_of_4096_bytes) {
    auto longest = encrypt(std::string(max_plaintext, 'a'), rfc_subscription());
    BOOST_TEST_REQUIRE(longest.has_value());
    BOOST_TEST(longest->size() == 4096u); // header, text, delimiter and tag: exactly one 4096-byte record
    auto over = encrypt(std::string(max_plaintext + 1, 'a'), rfc_subscription());
    BOOST_TEST_REQUIRE(!over.has_value());
    BOOST_TEST(over.error().code == errc::usage);
    BOOST_TEST(over.error().message.find("3993") != std::string::npos, over.error().message);
}

BOOST_AUTO_TEST_CASE(keys_that_cannot_be_encrypted_to_are_refused) {
    BOOST_TEST(check_keys(rfc_subscription()).has_value());
    std::string off_curve = b(ua_public);
    off_curve[40] = static_cast<char>(off_curve[40] ^ 1);
    std::string compressed = b(ua_public).substr(0, 33);
    compressed[0] = '\x02';
    std::vector<SubscriptionKeys> const refused{
        {off_curve, b(auth_secret)},
        {compressed, b(auth_secret)},
        {std::string(65, '\x04'), b(auth_secret)},
        {b(ua_public), b(auth_secret).substr(0, 15)},
        {"", ""},
    };
    for (auto const& keys : refused) {
        auto checked = check_keys(keys);
        BOOST_TEST_REQUIRE(!checked.has_value());
        BOOST_TEST(checked.error().code == errc::usage);
        BOOST_TEST(
            checked.error().message.find("subscription") != std::string::npos,
            checked.error().message
        );
        auto body = encrypt("x", keys);
        BOOST_TEST_REQUIRE(!body.has_value());
        BOOST_TEST(body.error().code == errc::usage, body.error().message);
    }
}

BOOST_AUTO_TEST_CASE(a_vapid_key_survives_pem) {
    auto key = VapidKey::generate();
    BOOST_TEST_REQUIRE(key.has_value());
    BOOST_TEST(key->public_key().size() == 65u);
    BOOST_TEST(key->public_key().front() == '\x04');
    auto pem = key->to_pem();
    BOOST_TEST_REQUIRE(pem.has_value());
    BOOST_TEST(pem->starts_with("-----BEGIN PRIVATE KEY-----\n"));
    auto again = VapidKey::from_pem(*pem);
    BOOST_TEST_REQUIRE(again.has_value());
    BOOST_TEST(again->public_key() == key->public_key());
    BOOST_TEST(VapidKey::generate()->public_key() != key->public_key());
    BOOST_TEST(
        !VapidKey::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n").has_value()
    );
    BOOST_TEST(!VapidKey::from_pem("").has_value());
}

BOOST_AUTO_TEST_CASE(the_vapid_header_carries_an_es256_jwt_for_the_origin) {
    auto key = VapidKey::generate();
    BOOST_TEST_REQUIRE(key.has_value());
    std::chrono::sys_seconds const now{std::chrono::seconds{1'800'000'000}};
    auto value = vapid_authorization(
        *key,
        "https://Push.Example.net:443/wpush/v2/abc?x=1",
        "mailto:ops@example.org",
        now
    );
    BOOST_TEST_REQUIRE(value.has_value(), (value ? "" : value.error().message));
    auto const parts = parse_vapid(*value);
    BOOST_TEST(boost::json::parse(parts.header) == boost::json::parse(R"({"typ":"JWT","alg":"ES256"})"));
    auto const claims = boost::json::parse(parts.claims).as_object();
    BOOST_TEST(std::string_view(claims.at("aud").as_string()) == "https://push.example.net");
    BOOST_TEST(claims.at("exp").to_number<std::int64_t>() == 1'800'000'000 + 12 * 3600);
    BOOST_TEST(std::string_view(claims.at("sub").as_string()) == "mailto:ops@example.org");
    BOOST_TEST(parts.signature.size() == 64u);
    BOOST_TEST(parts.key == key->public_key());

    auto other_port = vapid_authorization(*key, "http://127.0.0.1:8443/p", "mailto:a@b", now, 24h);
    BOOST_TEST_REQUIRE(other_port.has_value());
    auto const local = boost::json::parse(parse_vapid(*other_port).claims).as_object();
    BOOST_TEST(std::string_view(local.at("aud").as_string()) == "http://127.0.0.1:8443");
    BOOST_TEST(local.at("exp").to_number<std::int64_t>() == 1'800'000'000 + 24 * 3600);

    // No contact configured: no `sub` at all rather than an empty one.
    auto anonymous = vapid_authorization(*key, "https://p.example/x", "", now);
    BOOST_TEST_REQUIRE(anonymous.has_value());
    BOOST_TEST(!boost::json::parse(parse_vapid(*anonymous).claims).as_object().contains("sub"));
}

BOOST_AUTO_TEST_CASE(a_vapid_header_is_refused_for_what_a_push_service_would_refuse) {
    auto key = VapidKey::generate();
    BOOST_TEST_REQUIRE(key.has_value());
    std::chrono::sys_seconds const now{std::chrono::seconds{1'800'000'000}};
    BOOST_TEST(
        vapid_authorization(*key, "https://p.example/x", "mailto:a@b", now, 25h).error().code == errc::usage
    );
    BOOST_TEST(
        vapid_authorization(*key, "https://p.example/x", "mailto:a@b", now, 0s).error().code == errc::usage
    );
    BOOST_TEST(vapid_authorization(*key, "ftp://p.example/x", "mailto:a@b", now).error().code == errc::usage);
    BOOST_TEST(vapid_authorization(*key, "/relative", "mailto:a@b", now).error().code == errc::usage);
}

BOOST_AUTO_TEST_CASE(a_token_for_python_jwt_to_verify) {
    // tests/python/check_vapid.py verifies this token's signature with python3-jwt against the public key,
    // and its claims: a real verifier, not ours.
    auto key = VapidKey::generate();
    BOOST_TEST_REQUIRE(key.has_value());
    auto const now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    std::string const resource = "https://updates.push.example.net/wpush/v2/gAAAAABk";
    auto value = vapid_authorization(*key, resource, "mailto:ops@example.org", now);
    BOOST_TEST_REQUIRE(value.has_value());
    boost::json::object sample{
        {"authorization", *value},
        {"public_key", key->public_key_base64url()},
        {"push_resource", resource},
        {"audience", "https://updates.push.example.net"},
        {"subject", "mailto:ops@example.org"},
        {"issued", now.time_since_epoch().count()}};
    std::string const path = std::string(ICSBRIDGE_BINARY_DIR) + "/webpush_vapid.json";
    std::ofstream(path, std::ios::binary) << boost::json::serialize(sample);
    BOOST_TEST(std::ifstream(path).good());
}

BOOST_AUTO_TEST_CASE(the_key_file_is_made_once_owner_only_and_kept) {
    TempDir const dir;
    auto made = load_or_make_vapid_key(dir.path());
    BOOST_TEST_REQUIRE(made.has_value(), (made ? "" : made.error().message));
    std::string const path = vapid_key_path(dir.path());
    BOOST_TEST(path == dir.path() + "/webpush/vapid.pem");
    struct stat st {};
    BOOST_TEST_REQUIRE(::stat(path.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    BOOST_TEST_REQUIRE(::stat((dir.path() + "/webpush").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0700u);
    auto kept = load_or_make_vapid_key(dir.path());
    BOOST_TEST_REQUIRE(kept.has_value());
    BOOST_TEST(kept->public_key() == made->public_key());
    // Nothing but the key file is left behind (no temp files).
    BOOST_TEST(std::distance(std::filesystem::directory_iterator(dir.path() + "/webpush"), {}) == 1);
}

BOOST_AUTO_TEST_CASE(two_starts_at_once_keep_one_key) {
    TempDir const dir;
    std::vector<std::string> keys(4);
    std::vector<std::thread> starts;
    for (auto& out : keys)
        starts.emplace_back([&dir, &out] {
            auto key = load_or_make_vapid_key(dir.path());
            out = key ? key->public_key_base64url() : "error: " + key.error().message;
        });
    for (auto& t : starts)
        t.join();
    auto kept = load_or_make_vapid_key(dir.path());
    BOOST_TEST_REQUIRE(kept.has_value());
    for (auto const& k : keys)
        BOOST_TEST(k == kept->public_key_base64url());
}

BOOST_AUTO_TEST_CASE(a_damaged_key_file_is_an_error_and_left_alone) {
    TempDir const dir;
    auto made = load_or_make_vapid_key(dir.path());
    BOOST_TEST_REQUIRE(made.has_value());
    std::string const path = vapid_key_path(dir.path());
    std::string const damaged = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
    auto again = load_or_make_vapid_key(dir.path());
    BOOST_TEST_REQUIRE(!again.has_value());
    BOOST_TEST(again.error().code == errc::io_error);
    BOOST_TEST(again.error().message.find(path) != std::string::npos, again.error().message);
    BOOST_TEST(again.error().message.find("c2VjcmV0") == std::string::npos);
    std::ifstream in(path, std::ios::binary);
    BOOST_TEST(std::string(std::istreambuf_iterator<char>(in), {}) == damaged);
}

BOOST_AUTO_TEST_SUITE_END()

} // namespace webpush_test
