// File: routes_test.cpp
// handle_request on an in-memory ServedFeeds: every route and status, validators, gzip, tokens, pages.
#include "store/gzip.hpp"
#include "support/fixtures.hpp"
#include "support/server_fixtures.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/server.hpp>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <deque>

using namespace icsbridge;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(routes_test)

namespace {

sys_seconds const t0 = sys_days{2026y / March / 1} + 9h;

struct Fixture {
    Config cfg = test::server_test_config();
    ServedFeeds store{cfg};
    ViewCache views;
    Metrics metrics;
    Fixture() {
        test::publish(store, "pub", test::calendar_body(3), 3, t0);
        test::publish(store, "secret", test::calendar_body(2, "s"), 2, t0);
        test::publish(store, "team", test::calendar_body(1, "t"), 1, t0);
    }
    ServerResponse get(std::string_view target, std::string_view method = "GET") {
        ServerRequest r;
        r.method = method;
        r.target = target;
        return handle_request(r, store, views, metrics, cfg, t0 + 10min);
    }
    ServerResponse with(ServerRequest r) { return handle_request(r, store, views, metrics, cfg, t0 + 10min); }
};

ServerRequest req(std::string_view target) {
    ServerRequest r;
    r.method = "GET";
    r.target = target;
    return r;
}

} // namespace

BOOST_FIXTURE_TEST_CASE(public_feed_has_every_header, Fixture) {
    auto r = get("/feeds/pub.ics");
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(r.body() == test::calendar_body(3));
    BOOST_TEST(r.header("Content-Type") == "text/calendar; charset=utf-8");
    BOOST_TEST(r.header("ETag") == store.get("pub")->etag);
    BOOST_TEST(r.header("Last-Modified") == "Sun, 01 Mar 2026 09:00:00 GMT");
    BOOST_TEST(r.header("Cache-Control") == "public, max-age=900");
    BOOST_TEST(r.header("Content-Disposition") == "inline; filename=\"pub.ics\"");
    BOOST_TEST(r.header("Vary") == "Accept-Encoding");
    BOOST_TEST(r.header("Content-Encoding").empty());
    BOOST_TEST(r.snapshot == store.get("pub")); // served from the snapshot, not a copy
}

BOOST_FIXTURE_TEST_CASE(head_has_the_same_headers_and_no_body, Fixture) {
    auto g = get("/feeds/pub.ics");
    auto h = get("/feeds/pub.ics", "HEAD");
    BOOST_TEST(h.status == 200u);
    BOOST_TEST(h.head);
    BOOST_TEST(!g.head);
    BOOST_TEST((h.headers == g.headers));
    BOOST_TEST(h.body().size() == g.body().size()); // the listener sends it as Content-Length only
}

BOOST_FIXTURE_TEST_CASE(conditional_requests_give_304, Fixture) {
    auto etag = store.get("pub")->etag;
    auto r = req("/feeds/pub.ics");
    r.if_none_match = etag;
    auto a = with(r);
    BOOST_TEST(a.status == 304u);
    BOOST_TEST(a.body().empty());
    BOOST_TEST(a.header("ETag") == etag);
    BOOST_TEST(a.header("Cache-Control") == "public, max-age=900");

    auto r2 = req("/feeds/pub.ics");
    r2.if_modified_since = "Sun, 01 Mar 2026 09:00:00 GMT";
    BOOST_TEST(with(r2).status == 304u);
    r2.if_modified_since = "Sun, 01 Mar 2026 08:59:59 GMT";
    BOOST_TEST(with(r2).status == 200u);
    r2.if_none_match = "\"other\"";
    r2.if_modified_since = "Sun, 01 Mar 2026 10:00:00 GMT";
    BOOST_TEST(with(r2).status == 200u); // If-None-Match present: the date is ignored
}

BOOST_FIXTURE_TEST_CASE(gzip_only_when_accepted, Fixture) {
    auto r = req("/feeds/pub.ics");
    r.accept_encoding = "gzip, deflate";
    auto a = with(r);
    BOOST_TEST(a.gzip);
    BOOST_TEST(a.header("Content-Encoding") == "gzip");
    BOOST_TEST(test::gunzipped(a.body()) == test::calendar_body(3));
    r.accept_encoding = "gzip;q=0";
    BOOST_TEST(!with(r).gzip);
}

BOOST_FIXTURE_TEST_CASE(gzip_and_identity_have_distinct_etags_and_both_revalidate, Fixture) {
    // Issue 16: one strong ETag for two different byte sequences contradicts RFC 9110 8.8.3.
    auto plain = req("/feeds/pub.ics");
    auto gz = req("/feeds/pub.ics");
    gz.accept_encoding = "gzip";
    auto p = with(plain), g = with(gz);
    BOOST_TEST(g.gzip);
    std::string const p_tag(p.header("ETag")), g_tag(g.header("ETag"));
    BOOST_TEST(p_tag == store.get("pub")->etag);
    BOOST_TEST(g_tag != p_tag);
    BOOST_TEST((g_tag.front() == '"' && g_tag.back() == '"'));
    // Each validates its own representation: 304 with its own ETag; the other's tag gets the full body.
    plain.if_none_match = p_tag;
    gz.if_none_match = g_tag;
    auto p304 = with(plain), g304 = with(gz);
    BOOST_TEST(p304.status == 304u);
    BOOST_TEST(p304.header("ETag") == p_tag);
    BOOST_TEST(g304.status == 304u);
    BOOST_TEST(g304.header("ETag") == g_tag);
    plain.if_none_match = g_tag;
    gz.if_none_match = p_tag;
    BOOST_TEST(with(plain).status == 200u);
    BOOST_TEST(with(gz).status == 200u);
    std::string const list = "W/" + g_tag + ", \"x\""; // weak comparison, in a list
    gz.if_none_match = list;
    BOOST_TEST(with(gz).status == 304u);
    // A date in the future is ignored, for both.
    plain.if_none_match.reset();
    plain.if_modified_since = "Fri, 01 Jan 2100 00:00:00 GMT";
    BOOST_TEST(with(plain).status == 200u);
}

BOOST_AUTO_TEST_CASE(gzip_can_be_turned_off) {
    auto cfg = test::server_test_config();
    cfg.server.gzip = false;
    ServedFeeds store(cfg);
    ViewCache views;
    Metrics metrics;
    test::publish(store, "pub", test::calendar_body(3), 3, t0);
    auto r = req("/feeds/pub.ics");
    r.accept_encoding = "gzip";
    auto a = handle_request(r, store, views, metrics, cfg, t0);
    BOOST_TEST(!a.gzip);
    BOOST_TEST(a.header("Content-Encoding").empty());
    BOOST_TEST(a.header("Vary").empty());
    BOOST_TEST(a.body() == test::calendar_body(3));
}

BOOST_FIXTURE_TEST_CASE(tokens_and_unknown_feeds_share_one_404, Fixture) {
    auto unknown = get("/feeds/nope.ics");
    BOOST_TEST(unknown.status == 404u);
    for (auto target :
         {"/feeds/secret.ics",
          "/feeds/secret.ics?token=wrong",
          "/feeds/secret.ics?token=",
          "/feeds/team.ics",
          "/feeds/team.ics?token=s3cret-token-value",
          "/feeds/secret.ics?token=alice-secret-1"}) {
        auto r = get(target);
        BOOST_TEST(r.status == 404u, target);
        BOOST_TEST(r.body() == unknown.body(), target);
        BOOST_TEST((r.headers == unknown.headers), target);
    }
    auto ok = get("/feeds/secret.ics?token=s3cret-token-value");
    BOOST_TEST(ok.status == 200u);
    BOOST_TEST(ok.header("Cache-Control") == "private, max-age=900");
    BOOST_TEST(get("/feeds/team.ics?token=bob-secret-2").status == 200u);
    BOOST_TEST(get("/feeds/team.ics?x=1&token=alice-secret-1").status == 200u);
    BOOST_TEST(get("/feeds/team.ics?token=alice%2Dsecret-1").status == 200u); // percent-decoded
}

BOOST_FIXTURE_TEST_CASE(never_fetched_feed_is_503_with_retry_after, Fixture) {
    auto r = get("/feeds/later.ics");
    BOOST_TEST(r.status == 503u);
    BOOST_TEST(!r.header("Retry-After").empty());
    BOOST_TEST(std::stoi(std::string(r.header("Retry-After"))) > 0);
}

BOOST_FIXTURE_TEST_CASE(unknown_paths_404_and_other_methods_405, Fixture) {
    for (auto target : {"/nope", "/feeds/", "/feeds/pub", "/feeds/pub.ics/x", "/healthz/", "/index.html"})
        BOOST_TEST(get(target).status == 404u, target);
    for (auto target : {"/", "/healthz", "/metrics", "/feeds/pub.ics", "/feeds/nope.ics"})
        for (auto method : {"POST", "PUT", "DELETE", "OPTIONS", "PATCH"}) {
            auto r = get(target, method);
            BOOST_TEST(r.status == 405u, target << " " << method);
            BOOST_TEST(r.header("Allow") == "GET, HEAD");
        }
    // Issue 11: writes answer 405 on every path, unknown ones included (was 404).
    for (auto method : {"POST", "PUT", "DELETE", "PATCH"}) {
        auto r = get("/nope", method);
        BOOST_TEST(r.status == 405u, method);
        BOOST_TEST(r.header("Allow") == "GET, HEAD");
    }
    BOOST_TEST(get("/nope", "HEAD").head); // no body on any HEAD answer
    BOOST_TEST(get("/feeds/later.ics", "HEAD").head);
}

BOOST_FIXTURE_TEST_CASE(invalid_targets_are_400, Fixture) {
    for (auto target : {"*", "http://host/feeds/pub.ics", "/feeds/p ub.ics", "/feeds/%zz.ics", ""})
        BOOST_TEST(get(target).status == 400u, target);
}

BOOST_FIXTURE_TEST_CASE(index_lists_public_feeds_only, Fixture) {
    auto r = get("/");
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(r.header("Content-Type") == "text/html; charset=utf-8");
    auto html = std::string(r.body());
    BOOST_TEST(html.find("webcal://cal.example.org:8080/feeds/pub.ics") != std::string::npos);
    BOOST_TEST(html.find("http://cal.example.org:8080/feeds/later.ics") != std::string::npos);
    BOOST_TEST(html.find("Talks &lt;&amp;&gt; &quot;Meetups&quot;") != std::string::npos);
    BOOST_TEST(html.find("<&>") == std::string::npos);
    BOOST_TEST(html.find("secret") == std::string::npos);
    BOOST_TEST(html.find("team") == std::string::npos);
    BOOST_TEST(html.find("alice") == std::string::npos);
    for (auto app : {"Google", "Apple", "Outlook", "Thunderbird"})
        BOOST_TEST(html.find(app) != std::string::npos, app);
}

BOOST_AUTO_TEST_CASE(every_page_escapes_all_five_html_specials) {
    // One escaper for every page: a ' left raw ends a single-quoted attribute as surely as " a double one.
    std::string const hostile = "x'y\"z<w>v&u";
    std::string const escaped = "x&#39;y&quot;z&lt;w&gt;v&amp;u";
    Config cfg = test::server_test_config();
    cfg.feeds.front().title = "T " + hostile;
    cfg.feeds.front().description = "D " + hostile;
    ServedFeeds store{cfg};
    ViewCache views;
    Metrics metrics;
    test::publish(
        store,
        "pub",
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:e1@test\r\n"
        "DTSTAMP:20260101T000000Z\r\nDTSTART:20260310T100000Z\r\nDTEND:20260310T110000Z\r\nSUMMARY:S " +
            hostile + "\r\nLOCATION:L " + hostile + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        1,
        t0
    );
    for (std::string target : {"/", "/feeds/pub.html"}) {
        ServerRequest r;
        r.method = "GET";
        r.target = target;
        auto res = handle_request(r, store, views, metrics, cfg, t0 + 10min);
        BOOST_TEST_REQUIRE(res.status == 200u, target);
        auto html = std::string(res.body());
        BOOST_TEST(html.find(hostile) == std::string::npos, target);
        BOOST_TEST(html.find("T " + escaped) != std::string::npos, target);
    }
    ServerRequest r;
    r.method = "GET";
    r.target = "/";
    auto index = std::string(handle_request(r, store, views, metrics, cfg, t0).body());
    BOOST_TEST(index.find("D " + escaped) != std::string::npos);
    r.target = "/feeds/pub.html";
    auto agenda = std::string(handle_request(r, store, views, metrics, cfg, t0).body());
    BOOST_TEST(agenda.find("S " + escaped) != std::string::npos);
    BOOST_TEST(agenda.find("L " + escaped) != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(healthz_reports_each_feed_without_secrets, Fixture) {
    cfg.server.admin_token = "admin-secret-9";
    get("/feeds/team.ics?token=alice-secret-1");
    store.record_failure("later", Error{errc::upstream_auth, "events API: token rejected (401)"}, t0);
    auto hr = req("/healthz");
    hr.authorization = "Bearer admin-secret-9";
    auto r = with(hr);
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(r.header("Content-Type") == "application/json");
    auto body = std::string(r.body());
    for (auto secret : {"s3cret-token-value", "alice-secret-1", "bob-secret-2"})
        BOOST_TEST(body.find(secret) == std::string::npos);
    auto v = boost::json::parse(body).as_object();
    BOOST_TEST(v.at("ok").as_bool() == false); // "later" never succeeded
    auto const& feeds = v.at("feeds").as_array();
    BOOST_TEST_REQUIRE(feeds.size() == 4u);
    auto const& pub = feeds[0].as_object();
    BOOST_TEST(pub.at("name").as_string() == "pub");
    BOOST_TEST(pub.at("stale").as_bool() == false);
    BOOST_TEST(pub.at("items").as_int64() == 3);
    BOOST_TEST(pub.at("last_success").as_string() == "Sun, 01 Mar 2026 09:00:00 GMT");
    BOOST_TEST(pub.at("last_error").is_null());
    auto const& team = feeds[2].as_object();
    BOOST_TEST(
        team.at("subscribers").at("alice").at("last_fetch").as_string() == "Sun, 01 Mar 2026 09:10:00 GMT"
    );
    BOOST_TEST(team.at("subscribers").at("bob").at("last_fetch").is_null());
    auto const& later = feeds[3].as_object();
    BOOST_TEST(later.at("stale").as_bool() == true);
    BOOST_TEST(later.at("last_error").as_string() == "events API: token rejected (401)");
}

BOOST_FIXTURE_TEST_CASE(healthz_and_metrics_hide_token_feeds_without_the_admin_token, Fixture) {
    // Issue 16.2: token feeds' names, sizes, Last-Modified and subscribers were public here.
    cfg.server.admin_token = "admin-secret-9";
    get("/feeds/team.ics?token=alice-secret-1");
    for (auto path : {"/healthz", "/metrics"}) {
        auto r = get(path);
        BOOST_TEST(r.status == 200u, path);
        auto body = std::string(r.body());
        for (auto hidden : {"secret", "team", "alice", "bob"})
            BOOST_TEST(body.find(hidden) == std::string::npos, path << " shows " << hidden);
        BOOST_TEST(body.find("pub") != std::string::npos, path << " lacks the public feed");
    }
    auto v = boost::json::parse(get("/healthz").body()).as_object();
    BOOST_TEST(v.at("details").as_bool() == false);
    BOOST_TEST(v.at("feeds").as_array().size() == 2u); // pub and later
    BOOST_TEST(v.at("ok").as_bool() == false);         // "later" never succeeded: still counted

    // The right bearer token shows everything, a wrong one or another scheme is refused with 401 (never a
    // quiet downgrade), and so is any credential when no admin_token is configured.
    for (auto [auth, status] : std::initializer_list<std::pair<char const*, unsigned>>{
             {"Bearer admin-secret-9", 200},
             {"bearer admin-secret-9", 200},
             {"Bearer admin-secret-", 401},
             {"Bearer admin-secret-99", 401},
             {"Bearer ", 401},
             {"Basic YWRtaW46YWRtaW4=", 401},
             {"admin-secret-9", 401},
         })
        for (auto path : {"/healthz", "/metrics"}) {
            auto r = req(path);
            r.authorization = auth;
            auto res = with(r);
            BOOST_TEST(res.status == status, path << " with '" << auth << "'");
            BOOST_TEST(std::string(res.body()).find("admin-secret-9") == std::string::npos);
            if (status == 401)
                BOOST_TEST(res.header("WWW-Authenticate") == "Bearer realm=\"icsbridge\"");
            else
                BOOST_TEST(std::string(res.body()).find("team") != std::string::npos);
        }
    cfg.server.admin_token.clear();
    auto r = req("/healthz");
    r.authorization = "Bearer anything";
    BOOST_TEST(with(r).status == 401u);
}

BOOST_FIXTURE_TEST_CASE(html_pages_forbid_script_sniffing_and_referers, Fixture) {
    // Issue 29 "Also": the pages sent none of these (the agenda page only Referrer-Policy).
    for (auto target : {"/", "/feeds/pub.html", "/feeds/team.html?token=alice-secret-1"}) {
        auto r = get(target);
        BOOST_TEST_CONTEXT(target) {
            BOOST_TEST_REQUIRE(r.status == 200u);
            BOOST_TEST(r.header("Content-Type") == "text/html; charset=utf-8");
            std::string const csp(r.header("Content-Security-Policy"));
            BOOST_TEST(csp.starts_with("default-src 'none'; "), csp);
            BOOST_TEST(csp.find("style-src 'unsafe-inline'") != std::string::npos, csp);
            BOOST_TEST(csp.find("script") == std::string::npos, csp);
            BOOST_TEST(csp.find("frame-ancestors 'none'") != std::string::npos, csp);
            BOOST_TEST(r.header("X-Content-Type-Options") == "nosniff");
            BOOST_TEST(r.header("Referrer-Policy") == "no-referrer");
            // What the policy allows is all the page uses: one inline stylesheet, no script.
            std::string const html(r.body());
            BOOST_TEST(html.find("<script") == std::string::npos);
            BOOST_TEST(html.find(" style=") == std::string::npos);
            BOOST_TEST(html.find("<style>") != std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(google_gets_a_view_that_fits_for_the_plain_url_of_a_big_feed) {
    // Issue 28: Google Calendar silently drops a subscribed calendar over about 1 MB.
    Config cfg = test::server_test_config();
    ServedFeeds store{cfg};
    ViewCache views;
    Metrics metrics;
    std::string big = test::calendar_body(12000, "b");
    for (auto p = big.find("DTSTART:2026"); p != std::string::npos; p = big.find("DTSTART:2026", p))
        big.replace(p, 12, "DTSTART:2027"); // all still to come
    BOOST_TEST_REQUIRE(big.size() > 1'000'000u);
    test::publish(store, "pub", big, 12000, t0);
    test::publish(store, "later", test::calendar_body(3), 3, t0);
    auto get = [&](std::string_view target, std::string_view agent) {
        ServerRequest r;
        r.method = "GET";
        r.target = target;
        r.user_agent = agent;
        return handle_request(r, store, views, metrics, cfg, t0 + 10min);
    };
    std::string_view const google = "Mozilla/5.0 (compatible; Google-Calendar-Importer)";
    auto const plain = get("/feeds/pub.ics", "Mozilla/5.0");
    auto const fitted = get("/feeds/pub.ics", google);
    BOOST_TEST(plain.body() == big);
    BOOST_TEST(fitted.status == 200u);
    BOOST_TEST(fitted.body().size() < 900'000u);
    BOOST_TEST(fitted.header("ETag") != plain.header("ETag"));
    std::string text(fitted.body());
    for (auto p = text.find("\r\n "); p != std::string::npos; p = text.find("\r\n ", p))
        text.erase(p, 3); // unfolded
    BOOST_TEST(text.find("later items are left out") != std::string::npos);
    BOOST_TEST(
        text.find("The full calendar: http://cal.example.org:8080/feeds/pub.ics\r\n") != std::string::npos
    );
    for (auto const* r : {&plain, &fitted})
        BOOST_TEST(std::string(r->header("Vary")).find("User-Agent") != std::string::npos);
    // The same view by its own URL, for anyone; a small feed is the same for Google as for everyone.
    auto const asked = get("/feeds/pub.ics?for=google", "Mozilla/5.0");
    BOOST_TEST(asked.header("ETag") == fitted.header("ETag"));
    BOOST_TEST(std::string(asked.header("Vary")).find("User-Agent") == std::string::npos);
    auto const small = get("/feeds/later.ics", google);
    BOOST_TEST(small.body() == test::calendar_body(3));
    BOOST_TEST(std::string(small.header("Vary")).find("User-Agent") == std::string::npos);

    // /healthz warns about the big one only.
    auto health = boost::json::parse(get("/healthz", "curl").body()).at("feeds").as_array();
    for (auto const& f : health) {
        bool const is_big = f.at("name") == "pub";
        BOOST_TEST(f.as_object().contains("warnings") == is_big);
        if (is_big)
            BOOST_TEST(
                std::string(f.at("warnings").as_array().at(0).as_string()).starts_with("the calendar is 1.")
            );
    }
}

BOOST_FIXTURE_TEST_CASE(add_to_google_links_use_the_google_view, Fixture) {
    auto index = std::string(get("/").body());
    BOOST_TEST(
        index.find(
            "https://calendar.google.com/calendar/r?cid=webcal%3A%2F%2Fcal.example.org%3A8080%2Ffeeds%2Fpub."
            "ics%3Ffor%3Dgoogle"
        ) != std::string::npos
    );
    auto agenda = std::string(get("/feeds/team.html?token=alice-secret-1").body());
    BOOST_TEST(
        agenda.find(
            "cid=webcal%3A%2F%2Fcal.example.org%3A8080%2Ffeeds%2Fteam.ics%3Ftoken%3Dalice-secret-1%26for%"
            "3Dgoogle"
        ) != std::string::npos
    );
    // Fetched (and last changed) ten minutes before the request.
    BOOST_TEST(agenda.find("changed 10 min ago, checked 10 min ago") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(agenda_gives_the_caldav_address_of_whoever_opened_it, Fixture) {
    // Issue 40, item 5: a public feed's collection; a token feed's under the principal of the subscriber
    // whose token opened the page, with their user name; nothing of another subscriber, and nothing without
    // [dav].
    auto const npos = std::string::npos;
    auto pub = std::string(get("/feeds/pub.html").body());
    BOOST_TEST(pub.find("<code class=\"url\">http://cal.example.org:8080/dav/feeds/pub/</code>") != npos);
    BOOST_TEST(pub.find("the user name") == npos);
    auto bob = std::string(get("/feeds/team.html?token=bob-secret-2").body());
    BOOST_TEST(
        bob.find("<code class=\"url\">http://cal.example.org:8080/dav/users/bob/feeds/team/</code>") != npos
    );
    BOOST_TEST(bob.find("the user name bob and, as the password, this calendar&#39;s token") != npos);
    BOOST_TEST((bob.find("alice") == npos && bob.find("/dav/feeds/team/") == npos));
    auto single = std::string(get("/feeds/secret.html?token=s3cret-token-value").body());
    BOOST_TEST(single.find("/dav/users/subscriber/feeds/secret/") != npos);
    cfg.dav.enabled = false;
    BOOST_TEST(std::string(get("/feeds/pub.html").body()).find("CalDAV") == npos);
}

BOOST_AUTO_TEST_CASE(healthz_never_names_a_token_part_of_a_merge_anonymously) {
    // Issue 29.4: the anonymous /healthz listed a token part in a public merge's `merge` array. The config
    // refuses such a merge now; the page hides the name whatever config it is handed.
    Config cfg = test::server_test_config();
    FeedConfig all;
    all.name = "all";
    all.merge = {"pub", "secret", "team"};
    all.refresh = minutes(15);
    cfg.feeds.push_back(all);
    ServedFeeds store{cfg};
    ViewCache views;
    Metrics metrics;
    ServerRequest r;
    r.method = "GET";
    r.target = "/healthz";
    auto body = std::string(handle_request(r, store, views, metrics, cfg, t0).body());
    for (auto hidden : {"secret", "team"})
        BOOST_TEST(body.find(hidden) == std::string::npos, "/healthz names " << hidden << ": " << body);
    auto feeds = boost::json::parse(body).at("feeds").as_array();
    bool found = false;
    for (auto const& f : feeds)
        if (f.at("name") == "all") {
            found = true;
            BOOST_TEST(f.at("merge").as_array() == boost::json::array({"pub"}));
        }
    BOOST_TEST(found);
}

BOOST_FIXTURE_TEST_CASE(metrics_count_requests_and_refreshes, Fixture) {
    metrics.http.count(Route::feed, 200);
    metrics.http.count(Route::feed, 200);
    metrics.http.count(Route::other, 404);
    store.record_failure("pub", Error{errc::upstream_timeout, "x"}, t0);
    store.record_fetch_duration("pub", milliseconds(300));
    metrics.upstream.record("eb", 200, milliseconds(80));
    metrics.upstream.record("eb", 200, milliseconds(700));
    metrics.upstream.record("eb", 0, milliseconds(20000));
    auto text = std::string(get("/metrics").body());
    for (auto line : {
             "icsbridge_http_requests_total{route=\"feed\",status=\"200\"} 2\n",
             "icsbridge_http_requests_total{route=\"other\",status=\"404\"} 1\n",
             "icsbridge_refreshes_total{feed=\"pub\",result=\"ok\"} 1\n",
             "icsbridge_refreshes_total{feed=\"pub\",result=\"failed\"} 1\n",
             "icsbridge_last_success_timestamp_seconds{feed=\"later\"} 0\n",
             "icsbridge_snapshot_bytes{feed=\"pub\"} ",
             "icsbridge_upstream_fetch_duration_seconds_bucket{feed=\"pub\",le=\"0.25\"} 0\n",
             "icsbridge_upstream_fetch_duration_seconds_bucket{feed=\"pub\",le=\"0.5\"} 1\n",
             "icsbridge_upstream_fetch_duration_seconds_bucket{feed=\"pub\",le=\"+Inf\"} 1\n",
             "icsbridge_upstream_fetch_duration_seconds_count{feed=\"pub\"} 1\n",
             "# TYPE icsbridge_http_requests_total counter\n",
             "# TYPE icsbridge_upstream_request_duration_seconds histogram\n",
             "icsbridge_upstream_request_duration_seconds_bucket{source=\"eb\",code=\"2xx\",le=\"0.05\"} 0\n",
             "icsbridge_upstream_request_duration_seconds_bucket{source=\"eb\",code=\"2xx\",le=\"0.1\"} 1\n",
             "icsbridge_upstream_request_duration_seconds_bucket{source=\"eb\",code=\"2xx\",le=\"1\"} 2\n",
             "icsbridge_upstream_request_duration_seconds_count{source=\"eb\",code=\"2xx\"} 2\n",
             "icsbridge_upstream_request_duration_seconds_bucket{source=\"eb\",code=\"error\",le=\"10\"} 0\n",
             "icsbridge_upstream_request_duration_seconds_bucket{source=\"eb\",code=\"error\",le=\"30\"} 1\n",
             "icsbridge_upstream_request_duration_seconds_sum{source=\"eb\",code=\"error\"} 20\n",
         })
        BOOST_TEST(text.find(line) != std::string::npos, line);
}

BOOST_FIXTURE_TEST_CASE(metrics_and_healthz_show_each_sources_call_budget, Fixture) {
    // No budget pushed: no budget series, an empty list in /healthz.
    BOOST_TEST(std::string(get("/metrics").body()).find("icsbridge_upstream_budget") == std::string::npos);
    // eb: 20 calls a minute, all spent just now, a refresh waiting 42 s for room; jobs: 7 of 100 an hour.
    auto const now = BudgetState::clock::now();
    // (limit, period, calls, the cluster's count and when it was seen, the end of the wait)
    metrics.upstream.set_budget("eb", BudgetState{20, 60s, std::deque(20, now), 0, std::nullopt, now + 42s});
    metrics.upstream.set_budget(
        "jobs",
        BudgetState{100, 3600s, std::deque(7, now), 0, std::nullopt, std::nullopt}
    );
    auto text = std::string(get("/metrics").body());
    for (auto line : {
             "# TYPE icsbridge_upstream_budget_used gauge\n",
             "icsbridge_upstream_budget_calls{source=\"eb\",period_seconds=\"60\"} 20\n",
             "icsbridge_upstream_budget_used{source=\"eb\"} 20\n",
             "icsbridge_upstream_budget_left{source=\"jobs\"} 93\n",
             "icsbridge_upstream_budget_wait_seconds{source=\"eb\"} 42\n",
             "icsbridge_upstream_budget_wait_seconds{source=\"jobs\"} 0\n",
         })
        BOOST_TEST(text.find(line) != std::string::npos, line);
    auto health = std::string(get("/healthz").body());
    BOOST_TEST(health.find("\"the call budget is spent: refreshes wait 42s\"") != std::string::npos, health);
    BOOST_TEST(health.find("\"source\":\"jobs\"") != std::string::npos);
    metrics.upstream.keep_budgets({});
}

BOOST_AUTO_TEST_SUITE_END()
