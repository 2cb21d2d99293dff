// File: push_dav_xml_test.cpp
// The WebDAV XML a CalDAV server answers, read into plain values: any namespace prefix, only 200
// propstats, sync-collection tokens and removals, and documents that are not multistatus (or try an
// external entity) refused.
#include "push/dav_xml.hpp"

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace icsbridge::push;

BOOST_AUTO_TEST_SUITE(push_dav_xml_test)

BOOST_AUTO_TEST_CASE(discovery_properties_are_read_whatever_the_prefixes) {
    auto const r = parse_multistatus(R"(<?xml version="1.0"?>
<multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
 <response><href>/alice/events/</href>
  <propstat><prop>
    <resourcetype><collection/><C:calendar/></resourcetype>
    <displayname> Events </displayname>
    <C:supported-calendar-component-set><C:comp name="VEVENT"/><C:comp name="VTODO"/></C:supported-calendar-component-set>
  </prop><status>HTTP/1.1 200 OK</status></propstat>
  <propstat><prop><getetag/><C:calendar-home-set/></prop><status>HTTP/1.1 404 Not Found</status></propstat>
 </response>
 <response><href>/</href><propstat><prop>
   <current-user-principal><href>/alice/</href></current-user-principal>
 </prop><status>HTTP/1.1 200 OK</status></propstat></response>
</multistatus>)");
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST_REQUIRE(r->responses.size() == 2u);
    auto const& cal = r->responses[0];
    BOOST_TEST(cal.href == "/alice/events/");
    BOOST_TEST(cal.is_calendar);
    BOOST_TEST(cal.is_collection);
    BOOST_TEST(cal.displayname == "Events");
    BOOST_TEST(cal.components_given);
    BOOST_TEST(cal.components == (std::vector<std::string>{"VEVENT", "VTODO"}));
    BOOST_TEST(cal.calendar_home_set.empty()); // a 404 propstat says nothing
    BOOST_TEST(r->responses[1].current_user_principal == "/alice/");
    BOOST_TEST(!r->responses[1].is_calendar);
}

BOOST_AUTO_TEST_CASE(a_sync_collection_report_gives_etags_removals_and_the_new_token) {
    auto const r = parse_multistatus(R"(<d:multistatus xmlns:d="DAV:">
 <d:response><d:href>/alice/events/icsbridge-aa.ics</d:href>
  <d:propstat><d:prop><d:getetag>"e1"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
 </d:response>
 <d:response><d:href>/alice/events/icsbridge-bb.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>
 <d:sync-token>http://radicale.org/ns/sync/123</d:sync-token>
</d:multistatus>)");
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->sync_token == "http://radicale.org/ns/sync/123");
    BOOST_TEST_REQUIRE(r->responses.size() == 2u);
    BOOST_TEST(r->responses[0].etag == "\"e1\"");
    BOOST_TEST(r->responses[0].status == 200u);
    BOOST_TEST(r->responses[1].status == 404u);
    BOOST_TEST(last_segment(r->responses[1].href) == "icsbridge-bb.ics");
    BOOST_TEST(last_segment("/alice/events/") == "events");
}

BOOST_AUTO_TEST_CASE(what_is_not_a_multistatus_is_refused) {
    for (char const* body :
         {"",
          "<html><body>Login</body></html>",
          "<multistatus>no namespace</multistatus>",
          "<d:multistatus"}) {
        BOOST_TEST_CONTEXT(body) {
            auto const r = parse_multistatus(body);
            BOOST_TEST_REQUIRE(!r.has_value());
            BOOST_TEST((r.error().code == errc::upstream_malformed));
        }
    }
}

BOOST_AUTO_TEST_CASE(external_entities_are_never_loaded) {
    auto const r = parse_multistatus(R"(<?xml version="1.0"?>
<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<multistatus xmlns="DAV:"><response><href>&x;</href></response></multistatus>)");
    if (r.has_value()) {
        BOOST_TEST_REQUIRE(r->responses.size() == 1u);
        BOOST_TEST(r->responses[0].href.find("root:") == std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(request_bodies_escape_what_they_carry) {
    BOOST_TEST(mkcalendar_body("Tom & <Jerry>").find("Tom &amp; &lt;Jerry&gt;") != std::string::npos);
    BOOST_TEST(sync_collection_body("a&b").find("<d:sync-token>a&amp;b</d:sync-token>") != std::string::npos);
    BOOST_TEST(sync_collection_body("").find("<d:sync-token></d:sync-token>") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
