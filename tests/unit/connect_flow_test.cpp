// File: connect_flow_test.cpp
// A subscriber's sign-in state without sockets: what new_flow() makes, the round trip through the sealed
// `state`, and every way a state is refused (forged, another key, too long, expired); the CSRF token and
// the stored digests of secrets.
#include "connect/flow_state.hpp"
#include "oauth/pkce.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace icsbridge;
using namespace icsbridge::connect;
using namespace std::chrono_literals;

namespace connect_flow_test {

std::chrono::sys_seconds const t0{std::chrono::seconds(1'700'000'000)};

ConnectKey key_of(unsigned char v) {
    ConnectKey::Bytes b{};
    b.fill(v);
    return ConnectKey::from_bytes(b);
}

std::string const forged_text =
    "the sign-in link is not one of ours (forged or damaged): start again from the feed's page";

void is_forged(Result<FlowState> const& r) {
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().code == errc::usage);
    BOOST_TEST(r.error().message == forged_text);
}

} // namespace connect_flow_test

BOOST_AUTO_TEST_SUITE(connect_flow_test)

BOOST_AUTO_TEST_CASE(a_new_flow_has_fresh_secrets_and_ten_minutes) {
    auto const a = new_flow("google", "meetups", "days=90&alarm=none", "sub-token", t0);
    auto const b = new_flow("google", "meetups", "days=90&alarm=none", "sub-token", t0);
    BOOST_TEST(a.provider == "google");
    BOOST_TEST(a.feed == "meetups");
    BOOST_TEST(a.view == "days=90&alarm=none");
    BOOST_TEST(a.token == "sub-token");
    BOOST_TEST((a.expires == t0 + 10min));
    BOOST_TEST(a.nonce.size() == 22u); // 16 random bytes
    BOOST_TEST(a.verifier.size() == 64u);
    BOOST_TEST(oauth::challenge_of(a.verifier).size() == 43u);
    BOOST_TEST(a.nonce != b.nonce);
    BOOST_TEST(a.verifier != b.verifier);
}

BOOST_AUTO_TEST_CASE(a_sealed_state_comes_back_whole_and_hides_its_secrets) {
    // Setup
    auto const key = key_of(1);
    auto const s = new_flow("microsoft", "jobs", "", "", t0);
    // Run
    auto const sealed = seal_state(key, s);
    auto const back = open_state(key, sealed, t0 + 9min);
    // Check
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST((*back == s));
    BOOST_TEST(sealed.find(s.verifier) == std::string::npos);
    BOOST_TEST(sealed.find(s.nonce) == std::string::npos);
    BOOST_TEST(sealed.find("jobs") == std::string::npos);
    BOOST_TEST(sealed.size() < longest_state / 4); // room for a long view
    auto const full = new_flow("google", "meetups", "days=90&alarm=none&cancelled=hide", "t0k3n", t0);
    BOOST_TEST((open_state(key, seal_state(key, full), t0).value() == full));
}

BOOST_AUTO_TEST_CASE(a_state_expires_after_ten_minutes) {
    auto const key = key_of(1);
    auto const sealed = seal_state(key, new_flow("google", "meetups", "", "", t0));
    BOOST_TEST(open_state(key, sealed, t0 + 10min - 1s).has_value());
    auto const late = open_state(key, sealed, t0 + 10min);
    BOOST_TEST_REQUIRE(!late.has_value());
    BOOST_TEST(late.error().code == errc::usage);
    BOOST_TEST(
        late.error().message == "the sign-in took longer than 10 minutes: start again from the feed's page"
    );
}

BOOST_AUTO_TEST_CASE(a_state_not_sealed_by_this_key_as_a_state_is_forged) {
    // Setup
    auto const key = key_of(1);
    auto const s = new_flow("google", "meetups", "", "secret-sub-token", t0);
    auto const sealed = seal_state(key, s);
    // Run and check: another key, a token seal, an altered byte, junk, too long.
    is_forged(open_state(key_of(2), sealed, t0));
    is_forged(open_state(key, key.seal("token", "{}", state_aad), t0));
    is_forged(open_state(key, key.seal("state", "{}", "another aad"), t0));
    std::string bent = sealed;
    bent[30] = bent[30] == 'x' ? 'y' : 'x';
    is_forged(open_state(key, bent, t0));
    is_forged(open_state(key, "", t0));
    is_forged(open_state(key, "state=abc", t0));
    is_forged(open_state(key, std::string(longest_state + 1, 'A'), t0));
    // Sealed by us, but not a state's JSON: still refused.
    is_forged(open_state(key, key.seal("state", "not json", state_aad), t0));
    is_forged(open_state(key, key.seal("state", R"({"provider":"google"})", state_aad), t0));
    auto other = s;
    other.provider = "yahoo";
    is_forged(open_state(key, seal_state(key, other), t0));
}

BOOST_AUTO_TEST_CASE(the_csrf_token_is_bound_to_the_connection_and_the_key) {
    auto const key = key_of(1);
    auto const token = csrf_token(key, "conn-A");
    BOOST_TEST(token.size() == 43u);
    BOOST_TEST(csrf_ok(key, "conn-A", token));
    BOOST_TEST(!csrf_ok(key, "conn-B", token));
    BOOST_TEST(!csrf_ok(key_of(2), "conn-A", token));
    BOOST_TEST(!csrf_ok(key, "conn-A", ""));
    BOOST_TEST(token != key.sign("state", "conn-A")); // its own purpose
}

BOOST_AUTO_TEST_CASE(secrets_are_stored_as_their_sha256) {
    BOOST_TEST(secret_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    BOOST_TEST(secret_hash("").size() == 64u);
}

BOOST_AUTO_TEST_SUITE_END()
