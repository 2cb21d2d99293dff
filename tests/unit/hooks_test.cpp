// File: hooks_test.cpp
// POST /hooks/SOURCE/SECRET through handle_request: who may send one (one 404 for every refusal), the
// body's shape, the api_url's host (never fetched), the size limit, the methods, counting, redaction.
#include "server/hooks.hpp"
#include "support/server_fixtures.hpp"
#include "views/view_cache.hpp"
#include <icsbridge/server.hpp>

#include <boost/test/unit_test.hpp>

using namespace icsbridge;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(hooks_test)

namespace {

sys_seconds const t0 = sys_days{2026y / March / 1} + 9h;
constexpr std::string_view secret = "0123456789abcdef-hook";
constexpr std::string_view good_body =
    R"({"api_url": "https://www.events.example.com/v3/events/377141958787/",)"
    R"( "config": {"action": "event.updated", "user_id": "1", "webhook_id": "9", "endpoint_url": "x"}})";

struct Fixture {
    Config cfg = test::server_test_config();
    ServedFeeds store{cfg};
    ViewCache views;
    Metrics metrics;
    Fixture() {
        SourceConfig eb;
        eb.name = "eb";
        eb.type = SourceType::events;
        eb.base_url = "https://WWW.events.example.com/v3-proxy";
        eb.webhook_secret = std::string(secret);
        cfg.sources["eb"] = eb;
        SourceConfig quiet = eb; // an events source without hooks
        quiet.name = "quiet";
        quiet.webhook_secret.clear();
        cfg.sources["quiet"] = quiet;
        SourceConfig jobs = eb; // a secret on a jobs source never opens a hook (config refuses it anyway)
        jobs.name = "jobs";
        jobs.type = SourceType::jobs;
        cfg.sources["jobs"] = jobs;
    }
    ServerResponse post(std::string target, std::string_view body = good_body, bool too_large = false) {
        ServerRequest r;
        r.method = "POST";
        r.target = target;
        r.body = body;
        r.body_too_large = too_large;
        return handle_request(r, store, views, metrics, cfg, t0);
    }
    ServerResponse get(std::string const& target) {
        ServerRequest r;
        r.method = "GET";
        r.target = target;
        return handle_request(r, store, views, metrics, cfg, t0);
    }
    /** @brief Each hook naming one of `urls` is refused as not on the source's host. */
    void expect_foreign(std::vector<std::string> const& urls) {
        for (auto const& url : urls) {
            auto r = post(hook(), R"({"api_url": ")" + url + R"(", "config": {"action": "event.updated"}})");
            BOOST_TEST_CONTEXT(url) {
                BOOST_TEST(r.status == 400u);
                BOOST_TEST(r.hook_source.empty());
            }
        }
    }
    std::string hook(std::string_view source = "eb", std::string_view s = secret) {
        return "/hooks/" + std::string(source) + "/" + std::string(s);
    }
};

} // namespace

BOOST_FIXTURE_TEST_CASE(a_valid_hook_is_accepted_for_its_source, Fixture) {
    auto r = post(hook());
    BOOST_TEST(r.status == 202u);
    BOOST_TEST((r.route == Route::hooks));
    BOOST_TEST(r.hook_source == "eb");
    BOOST_TEST(r.hook_action == "event.updated");
    BOOST_TEST(r.header("Cache-Control") == "no-store");
    BOOST_TEST(metrics.http.hooks(HookOutcome::accepted) == 1u);
}

BOOST_FIXTURE_TEST_CASE(every_refusal_is_the_same_404_as_an_unknown_feed, Fixture) {
    auto unknown_feed = get("/feeds/nope.ics");
    std::vector<std::string> refused = {
        hook("eb", "0123456789abcdef-hooK"),  // one letter off
        hook("eb", "0123456789abcdef-hook2"), // longer
        hook("eb", "0123456789abcdef"),       // a prefix
        hook("nope"),                         // unknown source
        hook("quiet", ""),                    // no secret set: an empty one must not open it
        hook("quiet"),
        hook("jobs"),
        "/hooks/eb",
        "/hooks/eb/",
        hook() + "/more",
    };
    for (auto const& target : refused) {
        auto r = post(target);
        BOOST_TEST_CONTEXT(target) {
            BOOST_TEST(r.status == 404u);
            BOOST_TEST(r.body() == unknown_feed.body());
            BOOST_TEST(r.hook_source.empty());
            BOOST_TEST((r.headers == unknown_feed.headers));
        }
    }
    BOOST_TEST(metrics.http.hooks(HookOutcome::refused) == refused.size());
    BOOST_TEST(metrics.http.hooks(HookOutcome::accepted) == 0u);
}

BOOST_FIXTURE_TEST_CASE(a_body_that_is_not_a_hook_is_400, Fixture) {
    std::vector<std::string> bodies = {
        "",
        "not json",
        "[]",
        R"({"api_url": "https://www.events.example.com/v3/events/1/"})", // no config
        R"({"config": {"action": "event.updated"}})",                    // no api_url
        R"({"api_url": 42, "config": {"action": "event.updated"}})",     // not a string
        R"({"api_url": "https://www.events.example.com/v3/events/1/", "config": {"action": 1}})", // action
        R"({"api_url": "https://www.events.example.com/v3/events/1/", "config": "x"})",
        std::string(good_body) + "}",
    };
    for (auto const& body : bodies) {
        auto r = post(hook(), body);
        BOOST_TEST_CONTEXT(body) {
            BOOST_TEST(r.status == 400u);
            BOOST_TEST(r.hook_source.empty());
        }
    }
    BOOST_TEST(metrics.http.hooks(HookOutcome::malformed) == bodies.size());
}

BOOST_FIXTURE_TEST_CASE(an_api_url_off_the_sources_host_is_refused, Fixture) {
    std::vector<std::string> urls = {
        "https://evil.example.org/v3/events/1/",
        "https://www.events.example.com.evil.org/v3/events/1/",
        "https://www.events.example.com@evil.org/v3/events/1/", // userinfo: the host is evil.org
        "http://127.0.0.1/v3/events/1/",
        "file:///etc/passwd",
        "ftp://www.events.example.com/x",
        "//www.events.example.com/v3/events/1/",
        "/v3/events/1/",
    };
    expect_foreign(urls);
    BOOST_TEST(metrics.http.hooks(HookOutcome::foreign_url) == urls.size());
    // The host compares without case and without the port or path of base_url.
    auto ok = post(
        hook(),
        R"({"api_url": "http://www.EVENTS.example.com:8443/v3/events/2/", "config": {"action": "x"}})"
    );
    BOOST_TEST(ok.status == 202u);
}

BOOST_FIXTURE_TEST_CASE(an_ipv4_base_url_accepts_its_own_host_only, Fixture) {
    // Issue 29: with base_url on an IPv4 address, look-alike hosts were accepted (202).
    cfg.sources["eb"].base_url = "http://127.0.0.1:8099";
    std::vector<std::string> urls = {
        "http://127.0.0.1.evil.com:8099/v3/events/1/",
        "http://127.0.0.1x:8099/v3/events/1/",
        "http://127.0.0.1evil/v3/events/1/",
        "http://127.0.0.1%2fevil.com/v3/events/1/",
        "http://127.0.0.1%2Fevil.com/v3/events/1/",
        "http://127.0.0.10:8099/v3/events/1/",
        "http://127.0.0.1.:8099/v3/events/1/",
        "http://0x7f.0.0.1:8099/v3/events/1/",
        "http://[::ffff:127.0.0.1]:8099/v3/events/1/",
        "http://localhost:8099/v3/events/1/",
    };
    expect_foreign(urls);
    for (auto url : {"http://127.0.0.1:8099/v3/events/2/", "https://127.0.0.1/v3/events/2/"}) {
        auto body = R"({"api_url": ")" + std::string(url) + R"(", "config": {"action": "x"}})";
        BOOST_TEST(post(hook(), body).status == 202u, url);
    }
}

BOOST_FIXTURE_TEST_CASE(a_body_too_large_is_413_only_behind_the_secret, Fixture) {
    auto r = post(hook(), "", true);
    BOOST_TEST(r.status == 413u);
    BOOST_TEST(r.hook_source.empty());
    BOOST_TEST(post(hook("eb", "wrong-wrong-wrong-1"), "", true).status == 404u);
    BOOST_TEST(metrics.http.hooks(HookOutcome::too_large) == 1u);
}

BOOST_FIXTURE_TEST_CASE(only_post_reaches_a_hook_and_only_hooks_take_post, Fixture) {
    auto g = get(hook());
    BOOST_TEST(g.status == 405u);
    BOOST_TEST(g.header("Allow") == "POST");
    BOOST_TEST(g.hook_source.empty());
    auto p = post("/feeds/pub.ics");
    BOOST_TEST(p.status == 405u);
    BOOST_TEST(p.header("Allow") == "GET, HEAD");
    BOOST_TEST(post("/elsewhere").status == 405u);
}

BOOST_AUTO_TEST_CASE(the_secret_segment_is_redacted_in_log_targets) {
    BOOST_TEST(redact_hook_target("/hooks/eb/0123456789abcdef") == "/hooks/eb/***");
    BOOST_TEST(redact_hook_target("/hooks/eb/0123456789abcdef/x?y=1") == "/hooks/eb/***");
    BOOST_TEST(redact_hook_target("/hooks/eb") == "/hooks/eb");
    BOOST_TEST(redact_hook_target("/feeds/a.ics?token=t") == "/feeds/a.ics?token=t"); // redact_url's job
}

BOOST_AUTO_TEST_CASE(hook_paths_split_into_source_and_secret) {
    std::string_view source, s;
    BOOST_TEST(split_hook_path("eb/abc", source, s));
    BOOST_TEST(source == "eb");
    BOOST_TEST(s == "abc");
    BOOST_TEST(!split_hook_path("eb", source, s));
    BOOST_TEST(!split_hook_path("/abc", source, s));
    BOOST_TEST(!split_hook_path("eb/", source, s));
    BOOST_TEST(!split_hook_path("eb/a/b", source, s));
}

BOOST_AUTO_TEST_SUITE_END()
