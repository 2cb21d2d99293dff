// File: dav_cdata_test.cpp
// calendar-data as it goes out: CDATA with an HTML description's < & " as they are and a "]]>" split across
// two sections, plain text when there is nothing to escape, LF line ends; what an XML parser reads is the
// resource with its CRLFs read as LF, as it would be from the CRLFs themselves. A listing of many items is
// streamed in batches that reference the items' bytes instead of copying them, and outlives its request.
#include "dav/dav_detail.hpp"
#include <icsbridge/body_stream.hpp>
#include <icsbridge/dav.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

using namespace icsbridge;

namespace dav_cdata_test {

sys_seconds const t = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());

std::string calendar(std::string const& events) {
    return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//icsbridge//EN\r\n" + events + "END:VCALENDAR\r\n";
}

std::string event(int i, std::string const& description) {
    return "BEGIN:VEVENT\r\nUID:e" + std::to_string(i) +
           "@x\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260301T190000Z\r\n" + description +
           "\r\nEND:VEVENT\r\n";
}

/** A feed "f" published once with `body`, and requests to its collection. */
struct Feed {
    explicit Feed(std::string const& body) {
        tree.feeds = {
            {"f", "F", "", {"VEVENT"}, history->collection("f", make_snapshot(body, 1, t, t, false), t)}};
    }
    std::unique_ptr<dav::History> history = std::make_unique<dav::History>(std::chrono::hours(1));
    dav::Tree tree;
    std::shared_ptr<dav::Collection const> collection() const { return tree.feeds[0].collection; }
    dav::Response ask(std::string_view method, std::string_view body) const {
        dav::Request req;
        req.method = method;
        req.path = "/dav/feeds/f/";
        req.depth = "1";
        req.body = body;
        return dav::answer(req, tree, *history);
    }
};

std::string const query =
    R"(<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/>)"
    R"(<C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>)";
std::string const sync =
    R"(<D:sync-collection xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:sync-token/>)"
    R"(<D:prop><D:getetag/><C:calendar-data/></D:prop></D:sync-collection>)";

/**
 * What an XML parser reads in each calendar-data of a multistatus: a plain one's text as it is (it has no
 * entity), a CDATA one's sections joined.
 */
std::vector<std::string> calendar_data(std::string const& multistatus) {
    std::vector<std::string> out;
    std::string_view const open = "<C:calendar-data>", close = "</C:calendar-data>", cdata = "<![CDATA[";
    for (auto p = multistatus.find(open); p != std::string::npos; p = multistatus.find(open, p + 1)) {
        auto const from = p + open.size();
        auto const to = multistatus.find(close, from);
        BOOST_TEST_REQUIRE(to != std::string::npos);
        std::string text = multistatus.substr(from, to - from);
        if (text.starts_with(cdata)) {
            BOOST_TEST_REQUIRE(text.ends_with("]]>"));
            text = text.substr(cdata.size(), text.size() - cdata.size() - 3);
            for (auto q = text.find("]]><![CDATA["); q != std::string::npos; q = text.find("]]><![CDATA["))
                text.erase(q, 12);
        }
        out.push_back(std::move(text));
    }
    return out;
}

/** The bytes a CRLF resource reads as through XML (XML 1.0 2.11). */
std::string as_read(std::string const& crlf) {
    std::string out;
    for (std::size_t i = 0; i < crlf.size(); ++i)
        if (crlf.compare(i, 2, "\r\n") != 0)
            out += crlf[i];
    return out;
}

/**
 * The whole of a streamed body; `shared` counts the bytes of its parts that lie in `c`'s items, `largest` is
 * the largest batch (what one next() handed out).
 */
std::string drain(BodyStream& s, dav::Collection const& c, std::size_t& shared, std::size_t& largest) {
    std::string out;
    std::vector<std::string_view> parts;
    while (!s.done()) {
        s.next(parts);
        std::size_t batch = 0;
        for (auto p : parts) {
            out.append(p);
            bool in_item = false;
            for (auto const& item : c.items)
                in_item = in_item ||
                          (p.data() >= item.data.data() && p.data() < item.data.data() + item.data.size());
            shared += in_item ? p.size() : 0;
            batch += p.size();
        }
        largest = std::max(largest, batch);
    }
    BOOST_TEST(s.produced() == out.size());
    return out;
}

} // namespace dav_cdata_test

BOOST_AUTO_TEST_SUITE(dav_cdata_test)

using namespace dav_cdata_test;

BOOST_AUTO_TEST_CASE(calendar_data_reads_back_as_the_resource) {
    std::string const html = "DESCRIPTION:<b>Rock & roll</b> \"live\" ]]> and ]]]>";
    std::string const body = calendar(event(1, html) + event(2, "DESCRIPTION:plain; nothing > to escape"));
    Feed const f(body);
    auto const r = f.ask("REPORT", query);
    BOOST_TEST_REQUIRE(r.status == 207u);
    BOOST_TEST(r.body.find("<![CDATA[") != std::string::npos);
    BOOST_TEST(r.body.find("&lt;b&gt;") == std::string::npos);
    BOOST_TEST(r.body.find("\r") == std::string::npos); // LF line ends: a parser reads CRLF as LF anyway
    BOOST_TEST(r.body.find("<C:calendar-data>BEGIN:VCALENDAR") != std::string::npos); // the plain one as text
    auto const data = calendar_data(r.body);
    auto const& items = f.collection()->items;
    BOOST_TEST_REQUIRE(data.size() == 2u);
    BOOST_TEST_REQUIRE(items.size() == 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        // GET sends the resource's own bytes, CRLF and all; calendar-data reads as them.
        auto const get = f.tree.feeds[0].collection->items[i].body();
        BOOST_TEST(get.size() == items[i].length);
        BOOST_TEST(get.find("\r\n") != std::string::npos);
        BOOST_TEST(get.find("\n") == get.find("\r\n") + 1);
        BOOST_TEST(data[i] == as_read(get));
    }
    BOOST_TEST(data[0].find("<b>Rock & roll</b> \"live\" ]]> and ]]]>") != std::string::npos);
    // The same resource cut again (another replica, a restart): the same tag.
    auto const again = dav::make_collection(body, "x");
    BOOST_TEST(again.items[0].etag == items[0].etag);
}

BOOST_AUTO_TEST_CASE(a_listing_of_many_items_is_streamed_by_reference) {
    std::string events;
    for (int i = 0; i < 300; ++i)
        events += event(i, "DESCRIPTION:<p>" + std::string(2000, 'x') + " & more</p>");
    auto f = std::make_unique<Feed>(calendar(events));
    auto const c = f->collection();
    auto r = f->ask("REPORT", sync);
    BOOST_TEST_REQUIRE(r.status == 207u);
    BOOST_TEST_REQUIRE(r.stream != nullptr);
    BOOST_TEST(r.body.empty());
    auto const token = c->token();
    // The request, its tree and the history go; the answer still has what it needs.
    f.reset();
    std::size_t shared = 0, largest = 0;
    auto const body = drain(*r.stream, *c, shared, largest);
    std::size_t all = 0;
    for (auto const& item : c->items)
        all += item.data.size();
    BOOST_TEST(shared == all); // every item's bytes referenced, none copied
    BOOST_TEST(body.size() > all);
    BOOST_TEST(largest < std::size_t{300} * 1024); // a batch at a time, never the whole body
    BOOST_TEST(largest < body.size() / 2);
    auto const data = calendar_data(body);
    BOOST_TEST_REQUIRE(data.size() == c->items.size());
    for (std::size_t i = 0; i < data.size(); ++i)
        BOOST_TEST(data[i] == as_read(c->items[i].body()));
    BOOST_TEST(body.find("<sync-token>" + token + "</sync-token>") != std::string::npos);
    BOOST_TEST(body.ends_with("</multistatus>\n"));
}

BOOST_AUTO_TEST_CASE(multiget_query_and_propfind_of_many_are_streamed_alike) {
    std::string events;
    for (int i = 0; i < 40; ++i)
        events += event(i, "SUMMARY:Event " + std::to_string(i));
    Feed const f(calendar(events));
    auto const c = f.collection();
    std::string multiget = R"(<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">)"
                           R"(<D:prop><D:getetag/><C:calendar-data/></D:prop>)";
    for (auto const& item : c->items)
        multiget += "<D:href>/dav/feeds/f/" + item.name + "</D:href>";
    multiget += "<D:href>/dav/feeds/f/ffff.ics</D:href></C:calendar-multiget>";
    auto const count = [&](dav::Response const& r, std::string_view what) {
        BOOST_TEST_REQUIRE(r.stream != nullptr);
        std::size_t shared = 0, largest = 0, n = 0;
        auto const body = drain(*r.stream, *c, shared, largest);
        for (auto p = body.find(what); p != std::string::npos; p = body.find(what, p + 1))
            ++n;
        return n;
    };
    BOOST_TEST(count(f.ask("REPORT", multiget), "<response>") == 41u);
    BOOST_TEST(count(f.ask("REPORT", multiget), "404 Not Found") == 1u);
    BOOST_TEST(count(f.ask("REPORT", query), "<C:calendar-data>") == 40u);
    BOOST_TEST(count(f.ask("PROPFIND", ""), "<response>") == 41u); // the collection, then its items
}

BOOST_AUTO_TEST_SUITE_END()
