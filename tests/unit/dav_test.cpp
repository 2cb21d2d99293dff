// File: dav_test.cpp
// The CalDAV core without sockets: request -> answer for discovery, PROPFIND and Depth, GET and
// If-None-Match, the three REPORTs, the sync history, every refusal, and hostile bodies.
#include "dav/dav_detail.hpp"
#include <icsbridge/dav.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>

using namespace icsbridge;

namespace dav_test {

std::string crlf(std::string_view text) {
    std::string out;
    for (char c : text)
        out += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return out;
}

std::string event(std::string const& uid, std::string const& start, std::string const& summary) {
    return "BEGIN:VEVENT\nUID:" + uid + "\nDTSTAMP:20260101T000000Z\nDTSTART:" + start + "\nDTEND:" + start +
           "\nSUMMARY:" + summary + "\nEND:VEVENT\n";
}

std::string calendar(std::string const& items) {
    return crlf(
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//icsbridge//EN\nCALSCALE:GREGORIAN\nX-WR-CALNAME:Meetups\n" +
        items + "END:VCALENDAR\n"
    );
}

std::string const todo = "BEGIN:VTODO\nUID:job-1\nDTSTAMP:20260101T000000Z\nDUE;VALUE=DATE:20260330\n"
                         "SUMMARY:Apply\nSTATUS:NEEDS-ACTION\nEND:VTODO\n";

std::string const two =
    event("a@x", "20260301T190000Z", "Berlin meetup") + event("b@x", "20260401T190000Z", "Online") + todo;

sys_seconds const t0 =
    std::chrono::floor<std::chrono::seconds>(std::chrono::sys_days(std::chrono::year(2026) / 1 / 1));

std::shared_ptr<Snapshot const> snap(std::string const& items) {
    return make_snapshot(calendar(items), 3, t0, t0, false);
}

/** A history, and a tree with the feed "meetups" holding `items` as published through it. */
struct Fixture {
    dav::History history{std::chrono::hours(24 * 30)};
    dav::Tree tree;
    explicit Fixture(std::string const& items = two) { publish(items); }
    void publish(std::string const& items, sys_seconds at = t0) {
        tree.feeds = {
            {"meetups",
             "Meetups",
             "#3A7BD5",
             {"VEVENT", "VTODO"},
             history.collection("meetups", snap(items), at)}};
    }
    dav::Response
    ask(std::string_view method,
        std::string_view path,
        std::string_view body = {},
        std::string_view depth = "1") const {
        dav::Request req;
        req.method = method;
        req.path = path;
        req.body = body;
        req.depth = depth;
        return dav::answer(req, tree, history);
    }
    dav::Collection const& collection() const { return *tree.feeds[0].collection; }
    std::string item_href(std::size_t i) const { return "/dav/feeds/meetups/" + collection().items[i].name; }
};

std::string sync_body(std::string const& token) {
    return R"(<?xml version="1.0"?><d:sync-collection xmlns:d="DAV:"><d:sync-token>)" + token +
           R"(</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>)";
}

std::size_t count(std::string_view text, std::string_view what) {
    std::size_t n = 0;
    for (std::size_t p = 0; (p = text.find(what, p)) != std::string_view::npos; p += what.size())
        ++n;
    return n;
}

std::string header(dav::Response const& r, std::string_view name) {
    for (auto const& [n, v] : r.headers)
        if (n == name)
            return v;
    return {};
}

} // namespace dav_test

BOOST_AUTO_TEST_SUITE(dav_test)

using namespace dav_test;

BOOST_AUTO_TEST_CASE(one_item_per_uid_named_by_hex_and_tagged_by_its_bytes) {
    Fixture const f;
    auto const& c = f.collection();
    BOOST_TEST_REQUIRE(c.items.size() == 3u);
    for (auto const& item : c.items) {
        BOOST_TEST(item.name.size() == 36u);
        BOOST_TEST(item.name.find_first_not_of("0123456789abcdef") == 32u);
        BOOST_TEST(item.name.ends_with(".ics"));
        BOOST_TEST(item.etag.size() == 18u);
        BOOST_TEST(item.body().starts_with("BEGIN:VCALENDAR\r\n"));
        BOOST_TEST(item.body().ends_with("END:VCALENDAR\r\n"));
        BOOST_TEST(item.body().size() == item.length);
    }
    BOOST_TEST(c.items[2].todo);
    // The same bytes again elsewhere (another replica, a restart): the same names and tags.
    auto const again = dav::make_collection(calendar(two), "x");
    for (std::size_t i = 0; i < 3; ++i) {
        BOOST_TEST(again.items[i].name == c.items[i].name);
        BOOST_TEST(again.items[i].etag == c.items[i].etag);
    }
}

BOOST_AUTO_TEST_CASE(well_known_and_propfind_root_lead_to_the_principal) {
    Fixture f;
    f.tree.base = "/cal";
    for (auto path : {"/.well-known/caldav", "/"}) {
        auto const r = f.ask("PROPFIND", path);
        BOOST_TEST(r.status == 308u);
        BOOST_TEST(header(r, "Location") == "/cal/dav/");
    }
    BOOST_TEST(dav::owns("GET", "/.well-known/caldav"));
    BOOST_TEST(dav::owns("PROPFIND", "/"));
    BOOST_TEST(!dav::owns("GET", "/"));
    BOOST_TEST(!dav::owns("GET", "/feeds/x.ics"));
}

BOOST_AUTO_TEST_CASE(an_empty_propfind_on_the_principal_is_allprop) {
    Fixture f;
    f.tree.base = "/cal";
    auto const r = f.ask("PROPFIND", "/dav/", "", "0");
    BOOST_TEST(r.status == 207u);
    BOOST_TEST(r.body.find("<D:current-user-principal><D:href>/cal/dav/</D:href>") != std::string::npos);
    BOOST_TEST(r.body.find("<C:calendar-home-set><D:href>/cal/dav/feeds/</D:href>") != std::string::npos);
    BOOST_TEST(r.body.find("<D:principal/>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_home_lists_the_collections_and_refuses_depth_infinity) {
    Fixture const f;
    auto const body =
        R"(<propfind xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/"><prop>
      <resourcetype/><displayname/><CS:getctag/><sync-token/><C:supported-calendar-component-set/>
      <current-user-privilege-set/><CS:subscribed/></prop></propfind>)";
    auto const r = f.ask("PROPFIND", "/dav/feeds/", body, "1");
    BOOST_TEST(r.status == 207u);
    BOOST_TEST(r.body.find("<href>/dav/feeds/meetups/</href>") != std::string::npos);
    BOOST_TEST(r.body.find("<D:collection/><C:calendar/>") != std::string::npos);
    BOOST_TEST(r.body.find("<D:displayname>Meetups</D:displayname>") != std::string::npos);
    BOOST_TEST(r.body.find("<C:comp name=\"VEVENT\"/><C:comp name=\"VTODO\"/>") != std::string::npos);
    BOOST_TEST(r.body.find("<CS:getctag>" + f.collection().token() + "</CS:getctag>") != std::string::npos);
    BOOST_TEST(r.body.find("<D:read/>") != std::string::npos);
    BOOST_TEST(r.body.find("<D:write") == std::string::npos);
    // Never CS:subscribed (DAVx⁵ would hand the collection to ICSx⁵): asked, it is listed as missing.
    BOOST_TEST(
        r.body.find("subscribed xmlns:X=\"http://calendarserver.org/ns/\"/></prop><status>HTTP/1.1 404") !=
        std::string::npos
    );
    for (auto depth : {"infinity", ""}) {
        auto const inf = f.ask("PROPFIND", "/dav/feeds/", body, depth);
        BOOST_TEST(inf.status == 403u);
        BOOST_TEST(inf.body.find("<D:propfind-finite-depth/>") != std::string::npos);
    }
    BOOST_TEST(f.ask("PROPFIND", "/dav/", "", "infinity").status == 403u);
    BOOST_TEST(f.ask("PROPFIND", "/dav/", "", "2").status == 400u);
}

BOOST_AUTO_TEST_CASE(a_collection_answers_depth_infinity_as_depth_1) {
    Fixture const f;
    auto const body =
        R"(<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/><D:getcontenttype/></D:prop></D:propfind>)";
    auto const zero = f.ask("PROPFIND", "/dav/feeds/meetups/", body, "0");
    BOOST_TEST(count(zero.body, "<response>") == 1u);
    for (auto depth : {"1", "infinity", ""}) {
        auto const r = f.ask("PROPFIND", "/dav/feeds/meetups", body, depth);
        BOOST_TEST(r.status == 207u);
        BOOST_TEST(count(r.body, "<response>") == 4u);
        auto const& etag = f.collection().items[0].etag; // quoted: quotes need no escaping in XML text
        BOOST_TEST(r.body.find("<getetag>" + etag + "</getetag>") != std::string::npos);
        BOOST_TEST(r.body.find("component=vtodo") != std::string::npos);
        BOOST_TEST(r.body.find("component=vevent") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(calendar_color_only_when_the_feed_sets_one) {
    Fixture f;
    auto const body = R"(<D:propfind xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/"><D:prop>)"
                      R"(<A:calendar-color/></D:prop></D:propfind>)";
    auto const set = f.ask("PROPFIND", "/dav/feeds/meetups/", body, "0");
    BOOST_TEST(set.status == 207u);
    BOOST_TEST(set.body.find("<A:calendar-color>#3A7BD5</A:calendar-color>") != std::string::npos, set.body);
    f.tree.feeds[0].color.clear();
    auto const unset = f.ask("PROPFIND", "/dav/feeds/meetups/", body, "0");
    BOOST_TEST(unset.body.find("#3A7BD5") == std::string::npos);
    BOOST_TEST(unset.body.find("404 Not Found") != std::string::npos, unset.body);
}

BOOST_AUTO_TEST_CASE(get_and_head_with_if_none_match) {
    Fixture const f;
    auto const& item = f.collection().items[0];
    auto r = f.ask("GET", f.item_href(0));
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(r.body == item.body());
    BOOST_TEST(header(r, "ETag") == item.etag);
    BOOST_TEST(header(r, "Content-Type") == "text/calendar; charset=utf-8; component=vevent");
    dav::Request req;
    req.method = "GET";
    auto const href = f.item_href(0);
    req.path = href;
    req.if_none_match = std::string_view(item.etag);
    BOOST_TEST(dav::answer(req, f.tree, f.history).status == 304u);
    req.if_none_match = std::string_view("\"other\"");
    BOOST_TEST(dav::answer(req, f.tree, f.history).status == 200u);
    BOOST_TEST(f.ask("GET", "/dav/feeds/meetups/00000000000000000000000000000000.ics").status == 404u);
    BOOST_TEST(f.ask("GET", "/dav/feeds/meetups/").status == 405u);
}

BOOST_AUTO_TEST_CASE(options_says_what_the_tree_is) {
    Fixture const f;
    auto const r = f.ask("OPTIONS", "/dav/feeds/meetups/");
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(header(r, "DAV") == "1, 3, calendar-access");
    BOOST_TEST(header(r, "Allow").find("REPORT") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(every_write_is_refused_with_need_privileges) {
    Fixture const f;
    for (auto m : {"PUT", "DELETE", "MKCALENDAR", "MKCOL", "PROPPATCH", "MOVE", "COPY", "LOCK"}) {
        for (auto path : {"/dav/feeds/meetups/", "/dav/feeds/meetups/x.ics", "/dav/feeds/new/"}) {
            auto const r = f.ask(m, path, "<x/>");
            BOOST_TEST(r.status == 403u, m << " " << path);
            BOOST_TEST(r.body.find("<D:need-privileges>") != std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_feed_the_tree_does_not_show_is_401_whether_it_exists_or_not) {
    Fixture const f;
    for (auto path : {"/dav/feeds/private/", "/dav/feeds/nothing/", "/dav/feeds/private/x.ics"}) {
        auto const r = f.ask("PROPFIND", path, "", "0");
        BOOST_TEST(r.status == 401u);
        BOOST_TEST(header(r, "WWW-Authenticate") == "Basic realm=\"icsbridge\"");
    }
    BOOST_TEST(f.ask("PROPFIND", "/dav/elsewhere/", "", "0").status == 404u);
}

BOOST_AUTO_TEST_CASE(multiget_answers_each_href_as_sent) {
    Fixture const f;
    auto const body = R"(<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
      <D:prop><D:getetag/><C:calendar-data/></D:prop><D:href>)" +
                      f.item_href(1) +
                      R"(</D:href><D:href>/dav/feeds/meetups/ffff.ics</D:href></C:calendar-multiget>)";
    auto const r = f.ask("REPORT", "/dav/feeds/meetups/", body);
    BOOST_TEST(r.status == 207u);
    BOOST_TEST(r.body.find("<href>" + f.item_href(1) + "</href>") != std::string::npos);
    BOOST_TEST(r.body.find("SUMMARY:Online\n") != std::string::npos);
    BOOST_TEST(r.body.find("SUMMARY:Berlin") == std::string::npos);
    BOOST_TEST(
        r.body.find("<href>/dav/feeds/meetups/ffff.ics</href><status>HTTP/1.1 404") != std::string::npos
    );
}

std::string query(std::string const& inner) {
    return R"(<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>
      <C:filter><C:comp-filter name="VCALENDAR">)" +
           inner + "</C:comp-filter></C:filter></C:calendar-query>";
}

BOOST_AUTO_TEST_CASE(calendar_query_by_component_time_range_and_properties) {
    Fixture const f;
    auto hits = [&](std::string const& inner) {
        return count(f.ask("REPORT", "/dav/feeds/meetups/", query(inner)).body, "<response>");
    };
    BOOST_TEST(hits(R"(<C:comp-filter name="VEVENT"/>)") == 2u);
    BOOST_TEST(hits(R"(<C:comp-filter name="VTODO"/>)") == 1u);
    BOOST_TEST(hits("") == 3u);
    BOOST_TEST(
        hits(
            R"(<C:comp-filter name="VEVENT"><C:time-range start="20260325T000000Z" end="20260501T000000Z"/></C:comp-filter>)"
        ) == 1u
    );
    BOOST_TEST(
        hits(R"(<C:comp-filter name="VEVENT"><C:time-range start="20270101T000000Z"/></C:comp-filter>)") == 0u
    );
    // python3-caldav's todos(): not completed, and not cancelled.
    BOOST_TEST(
        hits(
            R"(<C:comp-filter name="VTODO"><C:prop-filter name="COMPLETED"><C:is-not-defined/></C:prop-filter>
        <C:prop-filter name="STATUS"><C:text-match negate-condition="yes">CANCELLED</C:text-match></C:prop-filter></C:comp-filter>)"
        ) == 1u
    );
    BOOST_TEST(
        hits(
            R"(<C:comp-filter name="VTODO"><C:prop-filter name="STATUS"><C:text-match>needs-action</C:text-match></C:prop-filter></C:comp-filter>)"
        ) == 1u
    );
    BOOST_TEST(
        hits(
            R"(<C:comp-filter name="VTODO"><C:prop-filter name="STATUS"><C:text-match negate-condition="yes">NEEDS</C:text-match></C:prop-filter></C:comp-filter>)"
        ) == 0u
    );
    BOOST_TEST(
        hits(
            R"(<C:comp-filter name="VEVENT"><C:prop-filter name="SUMMARY"><C:text-match>berlin</C:text-match></C:prop-filter></C:comp-filter>)"
        ) == 1u
    );
    BOOST_TEST(
        hits(
            R"(<C:comp-filter name="VEVENT"><C:prop-filter name="LOCATION"><C:is-not-defined/></C:prop-filter></C:comp-filter>)"
        ) == 2u
    );
}

BOOST_AUTO_TEST_CASE(sync_collection_lists_everything_then_exactly_the_changes) {
    Fixture f;
    auto const first = f.ask("REPORT", "/dav/feeds/meetups/", sync_body(""));
    BOOST_TEST(first.status == 207u);
    BOOST_TEST(count(first.body, "<getetag>") == 3u);
    std::string const t1 = f.collection().token();
    BOOST_TEST(first.body.find("<sync-token>" + t1 + "</sync-token>") != std::string::npos);
    auto const kept = f.item_href(0), gone = f.item_href(1);
    // Nothing changed: an empty listing and the same token.
    auto const same = f.ask("REPORT", "/dav/feeds/meetups/", sync_body(t1));
    BOOST_TEST(count(same.body, "<response>") == 0u);
    BOOST_TEST(same.body.find(t1) != std::string::npos);
    // b@x gone, a@x renamed, c@x new, the VTODO unchanged.
    f.publish(
        event("a@x", "20260301T190000Z", "Berlin meetup (moved)") + event("c@x", "20260501T190000Z", "New") +
        todo
    );
    auto const next = f.ask("REPORT", "/dav/feeds/meetups/", sync_body(t1));
    BOOST_TEST(next.status == 207u);
    BOOST_TEST(count(next.body, "<response>") == 3u);
    BOOST_TEST(count(next.body, "<getetag>") == 2u);
    BOOST_TEST(next.body.find("<href>" + kept + "</href>") != std::string::npos);
    BOOST_TEST(next.body.find("<href>" + gone + "</href><status>HTTP/1.1 404") != std::string::npos);
    BOOST_TEST(next.body.find(f.collection().token()) != std::string::npos);
    BOOST_TEST(f.collection().token() != t1);
    // Depth 0 (the RFC's) and 1 (python3-caldav's) alike.
    BOOST_TEST(f.ask("REPORT", "/dav/feeds/meetups/", sync_body(t1), "0").body == next.body);
}

BOOST_AUTO_TEST_CASE(a_token_not_of_this_history_is_403_valid_sync_token) {
    Fixture f;
    auto const t1 = f.collection().token();
    std::string const other_epoch = "http://icsbridge.invalid/sync/0000000000000001-1";
    for (std::string const& bad :
         {std::string("http://example.com/sync/1"),
          other_epoch,
          t1 + "0",
          std::string(4096, 'a'),
          t1.substr(0, t1.size() - 1) + "9"}) {
        auto const r = f.ask("REPORT", "/dav/feeds/meetups/", sync_body(bad));
        BOOST_TEST(r.status == 403u);
        BOOST_TEST(r.body.find("<D:valid-sync-token/>") != std::string::npos);
    }
    // Past [dav] history, a token's changes are trimmed away: refused, so the client lists everything.
    dav::History short_history{std::chrono::hours(1)};
    auto const c1 = short_history.collection("meetups", snap(two), t0);
    auto const c2 = short_history.collection("meetups", snap(todo), t0 + std::chrono::minutes(1));
    auto const c3 = short_history.collection("meetups", snap(two), t0 + std::chrono::hours(3));
    BOOST_TEST(!short_history.since("meetups", *c3, c1->token()));
    BOOST_TEST(short_history.since("meetups", *c3, c2->token()).has_value());
    BOOST_TEST(short_history.since("meetups", *c3, c3->token())->changed.empty());
    // A forgotten feed (removed, redefined) starts a new epoch.
    short_history.forget("meetups");
    auto const c4 = short_history.collection("meetups", snap(two), t0 + std::chrono::hours(4));
    BOOST_TEST(!short_history.since("meetups", *c4, c3->token()));
}

BOOST_AUTO_TEST_CASE(a_snapshot_seen_again_is_not_a_change) {
    dav::History h{std::chrono::hours(1)};
    auto const s1 = snap(two);
    auto const c1 = h.collection("f", s1, t0);
    auto const c2 = h.collection("f", snap(todo), t0);
    BOOST_TEST(h.collection("f", s1, t0) == c1); // a request still holding the older snapshot
    BOOST_TEST(c2->seq == c1->seq + 1);
    // The same bytes published again after others: a change back, recorded.
    auto const c3 = h.collection("f", snap(two), t0);
    BOOST_TEST(c3->seq == c2->seq + 1);
    BOOST_TEST(h.since("f", *c3, c2->token())->changed.size() == 2u);
    BOOST_TEST(h.since("f", *c3, c1->token())->changed.size() == 2u); // gone and back: listed
}

BOOST_AUTO_TEST_CASE(hostile_bodies_are_refused_quickly) {
    Fixture const f;
    std::string const bomb = R"(<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">
      <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
      <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
      <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
      <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
      <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
      <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
      <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
      <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>
      <D:sync-collection xmlns:D="DAV:"><D:sync-token>&lol9;</D:sync-token></D:sync-collection>)";
    std::string const external =
        R"(<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
      <C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:href>&xxe;</D:href></C:calendar-multiget>)";
    std::string deep;
    for (int i = 0; i < 100000; ++i)
        deep += "<D:a xmlns:D=\"DAV:\">";
    for (int i = 0; i < 100000; ++i)
        deep += "</D:a>";
    std::string const propfind_deep =
        "<D:propfind xmlns:D=\"DAV:\"><D:prop>" + deep + "</D:prop></D:propfind>";
    auto const start = std::chrono::steady_clock::now();
    for (auto const& body : {bomb, external, deep}) {
        auto const r = f.ask("REPORT", "/dav/feeds/meetups/", body);
        BOOST_TEST(r.status == 400u);
        BOOST_TEST(r.body.find("root:") == std::string::npos);
        BOOST_TEST(r.body.find("lollol") == std::string::npos);
    }
    BOOST_TEST(f.ask("PROPFIND", "/dav/feeds/meetups/", propfind_deep).status == 400u);
    BOOST_TEST(f.ask("PROPFIND", "/dav/feeds/meetups/", bomb).status == 400u);
    bool const quick = std::chrono::steady_clock::now() - start < std::chrono::seconds(2);
    BOOST_TEST(quick);
    // A nesting just under the limit is read; one over it is not.
    std::string ok = "<D:propfind xmlns:D=\"DAV:\"><D:prop>", over = ok;
    for (int i = 0; i < 60; ++i)
        ok += "<D:a>";
    for (int i = 0; i < 60; ++i)
        ok += "</D:a>";
    for (int i = 0; i < 70; ++i)
        over += "<D:a>";
    for (int i = 0; i < 70; ++i)
        over += "</D:a>";
    BOOST_TEST(f.ask("PROPFIND", "/dav/feeds/meetups/", ok + "</D:prop></D:propfind>", "0").status == 207u);
    BOOST_TEST(f.ask("PROPFIND", "/dav/feeds/meetups/", over + "</D:prop></D:propfind>", "0").status == 400u);
    // A body over the limit (left unread by the server) is 413; an unknown report 403.
    dav::Request big;
    big.method = "REPORT";
    big.path = "/dav/feeds/meetups/";
    big.body_too_large = true;
    BOOST_TEST(dav::answer(big, f.tree, f.history).status == 413u);
    auto const fb = f.ask(
        "REPORT",
        "/dav/feeds/meetups/",
        R"(<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"/>)"
    );
    BOOST_TEST(fb.status == 403u);
}

BOOST_AUTO_TEST_CASE(a_feed_not_fetched_yet_is_an_empty_collection) {
    Fixture f;
    f.tree.feeds[0].collection = nullptr;
    auto const r = f.ask("PROPFIND", "/dav/feeds/meetups/", "", "1");
    BOOST_TEST(r.status == 207u);
    BOOST_TEST(count(r.body, "<response>") == 1u);
    BOOST_TEST(f.ask("REPORT", "/dav/feeds/meetups/", sync_body("")).status == 503u);
}

BOOST_AUTO_TEST_CASE(utc_times_read_as_seconds) {
    BOOST_TEST(*dav::detail::parse_utc("19700102T000001Z") == 86401);
    BOOST_TEST(!dav::detail::parse_utc("20260230T000000Z"));
    BOOST_TEST(!dav::detail::parse_utc("20260101T000000"));
}

BOOST_AUTO_TEST_SUITE_END()
