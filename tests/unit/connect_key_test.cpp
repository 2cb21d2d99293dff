// File: connect_key_test.cpp
// The connect key without sockets: the key file's forms and its errors (which never show its content), the
// id, seals that open only with the same key, purpose and aad, signatures, and random ids. The known
// answers were made with Python's hmac and cryptography (AESGCM), so the format is pinned, not just
// round-tripped.
#include "connect/connect_key.hpp"
#include "support/fixtures.hpp"

#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <fstream>
#include <set>
#include <string>

using namespace icsbridge;
using namespace icsbridge::connect;

namespace connect_key_test {

/** The bytes 0, 1, ..., 31: the key the known answers were made with. */
ConnectKey::Bytes counting() {
    ConnectKey::Bytes b{};
    for (std::size_t i = 0; i < b.size(); ++i)
        b[i] = static_cast<unsigned char>(i);
    return b;
}

ConnectKey::Bytes filled(unsigned char v) {
    ConnectKey::Bytes b{};
    b.fill(v);
    return b;
}

std::string const counting_hex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

void write(std::string const& path, std::string const& content, mode_t mode = 0600) {
    std::ofstream(path, std::ios::binary) << content;
    ::chmod(path.c_str(), mode);
}

bool url_safe(std::string const& s) {
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
}

} // namespace connect_key_test

BOOST_AUTO_TEST_SUITE(connect_key_test)

BOOST_AUTO_TEST_CASE(the_id_names_the_key_without_revealing_it) {
    auto const key = ConnectKey::from_bytes(counting());
    BOOST_TEST(key.id() == "651735e680575e9a"); // HMAC-SHA256(key, "icsbridge key id")[0..8]
    BOOST_TEST(ConnectKey::from_bytes(filled(7)).id() != key.id());
    BOOST_TEST(counting_hex.find(key.id()) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_seal_opens_with_the_same_key_purpose_and_aad) {
    // Setup
    auto const key = ConnectKey::from_bytes(counting());
    // Run
    auto const a = key.seal("token", "a refresh token", "connection 42");
    auto const b = key.seal("token", "a refresh token", "connection 42");
    // Check
    BOOST_TEST(a.rfind("v1." + key.id() + ".", 0) == 0u);
    BOOST_TEST(url_safe(a));
    BOOST_TEST(a != b); // a fresh nonce each time
    BOOST_TEST(key.open("token", a, "connection 42").value() == "a refresh token");
    BOOST_TEST(key.open("token", b, "connection 42").value() == "a refresh token");
    BOOST_TEST(key.open("token", key.seal("token", "", ""), "").value().empty());
}

BOOST_AUTO_TEST_CASE(a_seal_made_elsewhere_opens_here) {
    // AESGCM(HMAC(key, "icsbridge seal token")), nonce 100..111, aad = "v1.ID." + "connection 42".
    auto const key = ConnectKey::from_bytes(counting());
    std::string const python =
        "v1.651735e680575e9a.ZGVmZ2hpamtsbW5vlJzaOdXMm4VGMg9ilfOOuBjF33-GesHTQUc56kdROw";
    BOOST_TEST(key.open("token", python, "connection 42").value() == "a refresh token");
}

BOOST_AUTO_TEST_CASE(another_purpose_aad_or_a_changed_byte_does_not_check_out) {
    // Setup
    auto const key = ConnectKey::from_bytes(counting());
    std::string const secret = "plaintext-that-must-not-leak";
    auto const sealed = key.seal("token", secret, "connection 42");
    auto const check = [&](Result<std::string> const& r, std::string const& what) {
        BOOST_TEST_INFO(what);
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST(r.error().code == errc::io_error);
        BOOST_TEST(r.error().message == "sealed value does not check out (tampered or damaged)");
    };
    // Run and check
    check(key.open("state", sealed, "connection 42"), "another purpose");
    check(key.open("token", sealed, "connection 43"), "another aad");
    check(key.open("token", sealed.substr(0, sealed.size() - 1), "connection 42"), "truncated");
    check(key.open("token", sealed + "A", "connection 42"), "lengthened");
    check(key.open("token", "", ""), "empty");
    check(key.open("token", "v2" + sealed.substr(2), "connection 42"), "another version");
    check(key.open("token", sealed.substr(0, 20) + "!!!!", "connection 42"), "not base64url");
    // Every character after the header, changed: nonce, ciphertext and tag all count.
    for (std::size_t i = 20; i < sealed.size(); ++i) {
        std::string bent = sealed;
        bent[i] = bent[i] == 'A' ? 'B' : 'A';
        auto const r = key.open("token", bent, "connection 42");
        BOOST_TEST_REQUIRE(!r.has_value(), "changed at " << i);
        BOOST_TEST(r.error().message.find(secret) == std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(a_seal_of_another_key_asks_for_a_reconnect) {
    auto const old_key = ConnectKey::from_bytes(filled(7));
    auto const key = ConnectKey::from_bytes(counting());
    auto const r = key.open("token", old_key.seal("token", "x", "c"), "c");
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().code == errc::not_connected);
    BOOST_TEST(
        r.error().message == "sealed with another key (the connect key_file changed): reconnect needed"
    );
    // The id is authenticated: another key's header on our body is not ours.
    auto sealed = key.seal("token", "x", "c");
    sealed.replace(3, 16, old_key.id());
    BOOST_TEST(key.open("token", sealed, "c").error().code == errc::not_connected);
    auto forged = old_key.seal("token", "x", "c");
    forged.replace(3, 16, key.id());
    BOOST_TEST(key.open("token", forged, "c").error().code == errc::io_error);
}

BOOST_AUTO_TEST_CASE(signatures_are_bound_to_key_purpose_and_data) {
    auto const key = ConnectKey::from_bytes(counting());
    auto const sig = key.sign("csrf", "conn-1");
    BOOST_TEST(
        sig == "FRRZc_7v-OPEX8j7enyalrKWePYBI8kwyCibNhMWEyg"
    ); // HMAC(HMAC(key, "icsbridge sign csrf"), ...)
    BOOST_TEST(sig.size() == 43u);
    BOOST_TEST(key.verify("csrf", "conn-1", sig));
    BOOST_TEST(!key.verify("csrf", "conn-2", sig));
    BOOST_TEST(!key.verify("state", "conn-1", sig));
    BOOST_TEST(!key.verify("csrf", "conn-1", sig.substr(0, 42)));
    BOOST_TEST(!key.verify("csrf", "conn-1", ""));
    BOOST_TEST(!ConnectKey::from_bytes(filled(7)).verify("csrf", "conn-1", sig));
}

BOOST_AUTO_TEST_CASE(random_ids_are_base64url_of_the_asked_size) {
    std::set<std::string> seen;
    for (int i = 0; i < 100; ++i) {
        auto const id = ConnectKey::random_id(16);
        BOOST_TEST(id.size() == 22u);
        BOOST_TEST(url_safe(id));
        seen.insert(id);
    }
    BOOST_TEST(seen.size() == 100u);
    BOOST_TEST(ConnectKey::random_id(32).size() == 43u);
}

BOOST_AUTO_TEST_CASE(a_key_file_holds_hex_digits_or_raw_bytes) {
    // Setup
    test::TempDir dir;
    write(dir.file("hex"), counting_hex + "\n");
    write(dir.file("spaced"), "  \n\t" + counting_hex + " \r\n");
    write(dir.file("caps"), "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F");
    auto const raw = counting();
    write(dir.file("raw"), std::string(raw.begin(), raw.end()));
    auto const want = ConnectKey::from_bytes(counting()).id();
    // Run and check
    BOOST_TEST(ConnectKey::from_file(dir.file("hex")).value().id() == want);
    BOOST_TEST(ConnectKey::from_file(dir.file("raw")).value().id() == want);
    BOOST_TEST(ConnectKey::from_file(dir.file("spaced")).value().id() == want);
    BOOST_TEST(ConnectKey::from_file(dir.file("caps")).value().id() == want);
}

BOOST_AUTO_TEST_CASE(a_bad_key_file_says_what_to_do_and_never_what_it_holds) {
    // Setup
    test::TempDir dir;
    auto const error_of = [](std::string const& path) {
        auto r = ConnectKey::from_file(path);
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST(r.error().code == errc::config_invalid);
        return r.error().message;
    };
    std::string const missing = dir.file("missing");
    write(dir.file("short"), "s3cr3t-short-key\n"); // 17 bytes
    write(dir.file("nothex"), std::string(64, 'z'));
    write(dir.file("zero"), std::string(64, '0'));
    write(dir.file("long"), std::string(5000, 'k'));
    // Run and check
    BOOST_TEST(
        error_of(missing) ==
        "connect key_file " + missing +
            ": cannot read it (No such file or directory); make one with: openssl rand -hex 32 > " + missing +
            " && chmod 600 " + missing
    );
    auto const short_text = error_of(dir.file("short"));
    BOOST_TEST(
        short_text.find("holds 17 bytes: it must hold 64 hex digits (openssl rand -hex 32)") !=
        std::string::npos
    );
    BOOST_TEST(short_text.find("s3cr3t") == std::string::npos);
    BOOST_TEST(
        error_of(dir.file("nothex")).find("64 bytes that are not all hex digits") != std::string::npos
    );
    BOOST_TEST(error_of(dir.file("nothex")).find("zzzz") == std::string::npos);
    BOOST_TEST(error_of(dir.file("zero")).find("zero bytes only") != std::string::npos);
    BOOST_TEST(error_of(dir.file("long")).find("more than 4096 bytes") != std::string::npos);
    BOOST_TEST(error_of(dir.path()).find("cannot read it (Is a directory)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_key_file_open_to_others_is_reported_not_refused) {
    test::TempDir dir;
    write(dir.file("private"), counting_hex, 0600);
    write(dir.file("loose"), counting_hex, 0644);
    BOOST_TEST(!key_file_warning(dir.file("private")));
    BOOST_TEST(!key_file_warning(dir.file("missing")));
    BOOST_TEST(
        key_file_warning(dir.file("loose")).value() ==
        "connect key_file " + dir.file("loose") +
            " is open to its group or to others (mode 0644): chmod 600 " + dir.file("loose")
    );
    BOOST_TEST(ConnectKey::from_file(dir.file("loose")).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
