// File: credential_guard_test.cpp
// Where a push target's credentials may go (issue 35), without sockets: the same origin with default ports
// normalised (iCloud's hrefs carry :443), an http -> https upgrade on the same host, never https -> http,
// siblings under the registrable domain by the Public Suffix List (a.example.co.uk and b.example.co.uk are
// one site, example2.co.uk another), nothing else; and every refusal names both origins.
#include "net/credential_guard.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace icsbridge;
using Reach = CredentialGuard::Reach;

namespace credential_guard_test {

/** The refusal's message, or "" when `guard` lets the credentials go to `url`. */
std::string refusal(CredentialGuard const& guard, std::string_view url, std::string_view from = {}) {
    auto r = guard.check(url, from);
    if (r)
        return {};
    BOOST_TEST((r.error().code == errc::upstream_auth));
    return r.error().message;
}

bool allowed(CredentialGuard const& guard, std::string_view url, std::string_view from = {}) {
    return refusal(guard, url, from).empty();
}

} // namespace credential_guard_test

BOOST_AUTO_TEST_SUITE(credential_guard_test)

BOOST_AUTO_TEST_CASE(origins_normalise_case_and_default_ports) {
    auto const a = origin_of("https://CalDAV.iCloud.com/");
    auto const b = origin_of("https://caldav.icloud.com:443/123/calendars/");
    BOOST_TEST_REQUIRE(a.has_value());
    BOOST_TEST_REQUIRE(b.has_value());
    BOOST_TEST((*a == *b));
    BOOST_TEST(a->text() == "https://caldav.icloud.com");
    BOOST_TEST(origin_of("http://h:8080/x")->text() == "http://h:8080");
    BOOST_TEST(origin_of("http://[::1]:5232/")->text() == "http://[::1]:5232");
    BOOST_TEST(!origin_of("ftp://h/").has_value());
    BOOST_TEST(!origin_of("/relative/href").has_value());
}

BOOST_AUTO_TEST_CASE(the_same_origin_passes) {
    CredentialGuard const g("family", "https://caldav.icloud.com/", Reach::registrable_domain);
    BOOST_TEST(allowed(g, "https://caldav.icloud.com/123/principal/"));
    BOOST_TEST(allowed(g, "https://caldav.icloud.com:443/123/calendars/home/"));
    BOOST_TEST(allowed(g, "https://CALDAV.icloud.com./x", "https://caldav.icloud.com/"));
    BOOST_TEST(g.home() == "https://caldav.icloud.com");
}

BOOST_AUTO_TEST_CASE(an_upgrade_passes_a_downgrade_never) {
    CredentialGuard const plain("lan", "http://dav.example.org:5232/", Reach::registrable_domain);
    BOOST_TEST(allowed(plain, "http://dav.example.org:5232/alice/"));
    BOOST_TEST(allowed(plain, "https://dav.example.org/alice/", "http://dav.example.org:5232/"));
    // Back down to http after the server moved us to https: never, not even to the configured origin.
    auto const down = refusal(plain, "http://dav.example.org:5232/alice/", "https://dav.example.org/alice/");
    BOOST_TEST(down.find("never down to plain http") != std::string::npos, down);
    // An https target never sends to http, the same host or not.
    CredentialGuard const tls("family", "https://dav.example.org/", Reach::registrable_domain);
    auto const m = refusal(tls, "http://dav.example.org/alice/", "https://dav.example.org/");
    BOOST_TEST(m.find("https://dav.example.org") != std::string::npos, m);
    BOOST_TEST(m.find("http://dav.example.org") != std::string::npos, m);
    BOOST_TEST(!allowed(tls, "http://dav.example.org/alice/"));
}

BOOST_AUTO_TEST_CASE(siblings_under_the_registrable_domain_by_the_public_suffix_list) {
    CredentialGuard const g("work", "https://a.example.co.uk/dav/", Reach::registrable_domain);
    BOOST_TEST(allowed(g, "https://b.example.co.uk/calendars/"));
    BOOST_TEST(allowed(g, "https://example.co.uk:8443/calendars/"));
    // co.uk is a public suffix: example2.co.uk is someone else.
    auto const m = refusal(g, "https://example2.co.uk/calendars/");
    BOOST_TEST(m.find("work: ") == 0U, m);
    BOOST_TEST(m.find("https://a.example.co.uk") != std::string::npos, m);
    BOOST_TEST(m.find("https://example2.co.uk") != std::string::npos, m);
    BOOST_TEST(m.find("example.co.uk") != std::string::npos, m);
    // A sibling only over https.
    BOOST_TEST(!allowed(g, "http://b.example.co.uk/calendars/"));
    // iCloud's discovery hands out hrefs on numbered hosts.
    CredentialGuard const icloud("phone", "https://caldav.icloud.com/", Reach::registrable_domain);
    BOOST_TEST(
        allowed(icloud, "https://p42-caldav.icloud.com:443/123/calendars/", "https://caldav.icloud.com/")
    );
    BOOST_TEST(!allowed(icloud, "https://icloud.com.evil.example/123/"));
    BOOST_TEST(!allowed(icloud, "https://caldav.icloud.co/123/"));
}

BOOST_AUTO_TEST_CASE(addresses_and_single_labels_have_no_siblings) {
    CredentialGuard const g("local", "http://127.0.0.1:5232/", Reach::registrable_domain);
    BOOST_TEST(allowed(g, "http://127.0.0.1:5232/alice/"));
    auto const m = refusal(g, "http://127.0.0.1:5233/alice/");
    BOOST_TEST(m.find("http://127.0.0.1:5232") != std::string::npos, m);
    BOOST_TEST(m.find("http://127.0.0.1:5233") != std::string::npos, m);
    BOOST_TEST(m.find("nothing was sent") != std::string::npos, m);
    BOOST_TEST(!allowed(g, "https://127.0.0.2/alice/"));
    CredentialGuard const host("box", "https://nas/dav/", Reach::registrable_domain);
    BOOST_TEST(!allowed(host, "https://other/dav/"));
}

BOOST_AUTO_TEST_CASE(an_oauth_token_stays_on_the_api_origin) {
    CredentialGuard const g("graph", "https://graph.microsoft.com/v1.0", Reach::origin);
    BOOST_TEST(allowed(g, "https://graph.microsoft.com/v1.0/me/calendars?$skip=100"));
    BOOST_TEST(!allowed(g, "https://evil.microsoft.com/v1.0/me/calendars?$skip=100"));
    BOOST_TEST(!allowed(g, "http://graph.microsoft.com/v1.0/me/calendars"));
    // A secret in a refused URL's query never reaches the message: only origins are named.
    auto const m = refusal(g, "https://other.example/next?access_token=SECRET");
    BOOST_TEST(m.find("SECRET") == std::string::npos, m);
    BOOST_TEST(m.find("https://other.example") != std::string::npos, m);
}

BOOST_AUTO_TEST_CASE(no_home_and_no_url_send_nothing) {
    CredentialGuard const none("t", "", Reach::registrable_domain);
    BOOST_TEST(!allowed(none, "https://dav.example.org/"));
    CredentialGuard const g("t", "https://dav.example.org/", Reach::registrable_domain);
    BOOST_TEST(!allowed(g, "mailto:someone@dav.example.org"));
}

BOOST_AUTO_TEST_SUITE_END()
