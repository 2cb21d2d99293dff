// File: etag_test.cpp
// Strong ETags and the gzip round trip of stored snapshots.
#include "store/gzip.hpp"
#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include <icsbridge/digest.hpp>

#include <boost/test/unit_test.hpp>

#include <array>

using namespace icsbridge;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(etag_test)

BOOST_AUTO_TEST_CASE(etag_is_quoted_sha256_and_depends_on_every_byte) {
    // SHA-256("abc") from FIPS 180-2.
    BOOST_TEST(make_etag("abc") == "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"");
    BOOST_TEST(make_etag("abc") != make_etag("abd"));
}

BOOST_AUTO_TEST_CASE(gzip_round_trips) {
    std::string body;
    for (int i = 0; i < 5000; ++i)
        body += "SUMMARY:event " + std::to_string(i) + "\r\n";
    auto gz = gzip_compress(body);
    BOOST_TEST(gz.size() < body.size() / 3);
    BOOST_TEST(static_cast<unsigned char>(gz[0]) == 0x1f); // gzip magic, not a raw zlib stream
    BOOST_TEST(static_cast<unsigned char>(gz[1]) == 0x8b);
    BOOST_TEST(test::gunzipped(gz) == body);
}

BOOST_AUTO_TEST_CASE(hex_both_ways) {
    std::array<unsigned char, 3> const bytes{0x00, 0xab, 0xff};
    BOOST_TEST(to_hex(bytes) == "00abff");
    std::array<unsigned char, 3> back{};
    BOOST_TEST(from_hex("00abff", back));
    BOOST_TEST((back == bytes));
    BOOST_TEST(from_hex("00ABFF", back)); // either case
    BOOST_TEST((back == bytes));
    BOOST_TEST(!from_hex("00abf", back));    // too short
    BOOST_TEST(!from_hex("00abff00", back)); // too long
    BOOST_TEST(!from_hex("00agff", back));   // not a digit
    BOOST_TEST(make_etag("x") == "\"" + to_hex(sha256("x")) + "\"");
}

BOOST_AUTO_TEST_SUITE_END()
