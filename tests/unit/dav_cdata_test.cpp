// File: dav_cdata_test.cpp
// calendar-data goes out as CDATA: an HTML description's < & " as they are, a "]]>" split across two
// sections, and the sections' contents joined are exactly the item's bytes.
#include <icsbridge/dav.hpp>

#include <boost/test/unit_test.hpp>

using namespace icsbridge;

BOOST_AUTO_TEST_SUITE(dav_cdata_test)

BOOST_AUTO_TEST_CASE(calendar_data_is_cdata_and_reads_back_exactly) {
    std::string const description = "DESCRIPTION:<b>Rock & roll</b> \"live\" ]]> and ]]]>";
    std::string const body =
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//icsbridge//EN\r\nBEGIN:VEVENT\r\nUID:a@x\r\n"
        "DTSTAMP:20260101T000000Z\r\nDTSTART:20260301T190000Z\r\n" +
        description + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    auto const t = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    dav::History history{std::chrono::hours(1)};
    dav::Tree tree;
    tree.feeds = {
        {"f", "F", "", {"VEVENT"}, history.collection("f", make_snapshot(body, 1, t, t, false), t)}};
    dav::Request req;
    req.method = "REPORT";
    req.path = "/dav/feeds/f/";
    req.depth = "1";
    std::string const ask =
        R"(<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop>)"
        R"(<C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter>)"
        R"(</C:calendar-query>)";
    req.body = ask;
    auto const r = dav::answer(req, tree, history);
    BOOST_TEST_REQUIRE(r.status == 207u);
    BOOST_TEST(r.body.find("<![CDATA[") != std::string::npos);
    BOOST_TEST(r.body.find("&lt;b&gt;") == std::string::npos);
    // What a parser reads: the sections' contents joined.
    std::string_view const open = "<C:calendar-data><![CDATA[", close = "]]></C:calendar-data>";
    auto const from = r.body.find(open);
    auto const to = r.body.find(close);
    BOOST_TEST_REQUIRE((from != std::string::npos && to != std::string::npos));
    std::string text = r.body.substr(from + open.size(), to - from - open.size());
    for (auto p = text.find("]]><![CDATA["); p != std::string::npos; p = text.find("]]><![CDATA["))
        text.erase(p, 12);
    BOOST_TEST(text == body);
}

BOOST_AUTO_TEST_SUITE_END()
