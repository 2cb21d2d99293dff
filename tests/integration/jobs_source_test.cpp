// File: jobs_source_test.cpp
// The job board client over real loopback HTTP: paging with api_key, recent, one post, categories, tags,
// `"stat": "fail"` answers and the key never showing in messages or logs.
#include "fake_upstream/fake_upstream.hpp"
#include "integration/source_harness.hpp"

#include <boost/test/unit_test.hpp>

#include <set>
#include <string>
#include <vector>

using namespace icsbridge;
using icsbridge::test::ScriptedReply;
using icsbridge::test::ScriptedRequest;
using icsbridge::test::ScriptedUpstream;

namespace jobs_source_test {

std::string const api_key = "s3cr3t-jobs-key-0815";

std::string listing(std::string const& id) {
    return R"({"id":")" + id + R"(","title":"Job )" + id +
           R"(","post_date":"2019-10-25 14:32:14","telecommuting":1,"company":{"name":"ACME"}})";
}

std::string listings_page(std::vector<std::string> const& ids, int page, int pages) {
    std::string out = R"({"listings":{"listing":[)";
    for (std::size_t i = 0; i < ids.size(); ++i)
        out += (i ? "," : "") + listing(ids[i]);
    return out + R"(],"total":7,"perpage":"100","page":)" + std::to_string(page) + R"(,"pages":)" +
           std::to_string(pages) + R"(},"stat":"ok"})";
}

struct JobsFixture : test::SourceFixture {
    JobsFixture()
        : SourceFixture(SourceType::jobs, api_key, "search") {}

    template <class T, class Fn>
    Result<T> run(ScriptedUpstream const& up, Fn fn) {
        src.base_url = up.base_url();
        return test::run_source<T, JobsSource>(src, logs, fn);
    }

    Result<std::vector<JobPost>> fetch(ScriptedUpstream const& up) {
        return run<std::vector<JobPost>>(up, [this](JobsSource& s) {
            return s.fetch(ask(), record_progress());
        });
    }
};

} // namespace jobs_source_test

BOOST_AUTO_TEST_SUITE(jobs_source_test)

BOOST_FIXTURE_TEST_CASE(search_follows_pages_with_the_api_key_as_documented, JobsFixture) {
    // Setup: page 2 repeats post 2.
    feed.params = {{"keywords", "designer"}, {"category", "3"}, {"location", ""}, {"page", "9"}};
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.param("page") == "1")
            return {200, listings_page({"1", "2"}, 1, 3)};
        if (r.param("page") == "2")
            return {200, listings_page({"2", "3"}, 2, 3)};
        return {200, listings_page({"4"}, 3, 3)};
    });

    // Run
    auto r = fetch(up);

    // Check
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(
        test::ids_of(*r) == (std::vector<std::string>{"1", "2", "3", "4"}),
        boost::test_tools::per_element()
    );
    BOOST_TEST((*r)[0].remote);
    auto reqs = up.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 3u);
    for (int i = 0; i < 3; ++i) {
        auto const& q = reqs[i];
        BOOST_TEST(q.path == "/api/posts/search/");
        BOOST_TEST(q.authorization.empty());
        std::vector<std::pair<std::string, std::string>> const expected{
            {"api_key", api_key},
            {"keywords", "designer"},
            {"category", "3"},
            {"perpage", "100"},
            {"page", std::to_string(i + 1)},
        };
        BOOST_TEST_REQUIRE(q.query.size() == expected.size());
        for (std::size_t k = 0; k < expected.size(); ++k) {
            BOOST_TEST(q.query[k].first == expected[k].first);
            BOOST_TEST(q.query[k].second == expected[k].second);
        }
    }
    BOOST_TEST_REQUIRE(progress.size() == 3u);
    BOOST_TEST(progress[1].items == 3u);
    BOOST_TEST((progress[1].total == 7u));
}

BOOST_FIXTURE_TEST_CASE(recent_takes_only_the_first_page, JobsFixture) {
    feed.select = "recent";
    ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
        return {200, test::read_fixture("jobs/search_2015.json")}; // announces 101 pages
    });

    auto r = fetch(up);

    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(test::ids_of(*r) == (std::vector<std::string>{"25963"}), boost::test_tools::per_element());
    auto reqs = up.requests();
    BOOST_TEST_REQUIRE(reqs.size() == 1u);
    BOOST_TEST(reqs[0].path == "/api/posts/recent/");
    BOOST_TEST(reqs[0].query.front().first == "api_key");
}

BOOST_FIXTURE_TEST_CASE(a_server_ignoring_page_stops_with_a_clear_error, JobsFixture) {
    ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
        return {200, listings_page({"1"}, 1, 5)};
    });

    auto r = fetch(up);

    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_malformed));
    BOOST_TEST(
        r.error().message ==
        "job board API: malformed response from /api/posts/search/: asked for page 2, got page 1; stopped "
        "following pages"
    );
}

BOOST_FIXTURE_TEST_CASE(rejected_key_gives_a_clear_message_without_the_key, JobsFixture) {
    {
        ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
            return {403, test::read_fixture("jobs/error_invalid_key.json")};
        });
        auto r = fetch(up);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST((r.error().code == errc::upstream_auth));
        BOOST_TEST(r.error().message == "job board API rejected the api_key (403: Invalid API key)");
    }
    {
        // The board also reports failures inside a 200.
        ScriptedUpstream up([](ScriptedRequest const&) -> ScriptedReply {
            return {200, R"({"stat":"fail","code":1,"desc":"Invalid API key )" + api_key + R"("})"};
        });
        auto r = fetch(up);
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST((r.error().code == errc::upstream_auth));
        BOOST_TEST(r.error().message == "job board API rejected the api_key (code 1: Invalid API key ***)");
    }
}

BOOST_FIXTURE_TEST_CASE(one_post_categories_and_tags, JobsFixture) {
    ScriptedUpstream up([](ScriptedRequest const& r) -> ScriptedReply {
        if (r.path == "/api/posts/31701/")
            return {200, test::read_fixture("jobs/post_2019.json")};
        if (r.path == "/api/categories/")
            return {200, test::read_fixture("jobs/categories_2009.json")};
        if (r.path == "/api/tags/")
            return {200, test::read_fixture("jobs/tags.json")};
        return {404, R"({"stat":"fail","code":2,"desc":"No such listing"})"};
    });

    auto post = run<JobPost>(up, [](JobsSource& s) { return s.post("31701"); });
    BOOST_TEST_REQUIRE(post.has_value(), post.error().message);
    BOOST_TEST(post->title == "Full Stack Developer");

    auto missing = run<JobPost>(up, [](JobsSource& s) { return s.post("1"); });
    BOOST_TEST_REQUIRE(missing.has_error());
    BOOST_TEST((missing.error().code == errc::upstream_not_found));
    BOOST_TEST(
        missing.error().message ==
        "job board API answered 404 (code 2) for GET /api/posts/1/: No such listing"
    );

    auto cats = run<std::vector<Category>>(up, [](JobsSource& s) { return s.categories(); });
    BOOST_TEST_REQUIRE(cats.has_value(), cats.error().message);
    BOOST_TEST(cats->size() == 6u);

    auto tags = run<std::vector<Category>>(up, [](JobsSource& s) { return s.tags(); });
    BOOST_TEST_REQUIRE(tags.has_value(), tags.error().message);
    BOOST_TEST(tags->front().id == "javascript");

    for (auto const& q : up.requests())
        BOOST_TEST(q.param("api_key") == api_key);
}

BOOST_AUTO_TEST_CASE(search_recent_and_a_wrong_key_against_the_fake_upstream) {
    test::FakeUpstream fake;
    test::SourceFixture f(SourceType::jobs, test::FakeUpstreamOptions{}.jobs_api_key, "search");
    f.src.base_url = fake.base_url();
    auto fetch = [&] {
        return test::run_source<std::vector<JobPost>, JobsSource>(f.src, f.logs, [&](JobsSource& s) {
            return s.fetch(f.ask(), f.record_progress());
        });
    };

    auto all = fetch();
    BOOST_TEST_REQUIRE(all.has_value(), all.error().message);
    BOOST_TEST_REQUIRE(!all->empty());
    auto const got = test::ids_of(*all);
    BOOST_TEST(std::set<std::string>(got.begin(), got.end()).size() == got.size());
    BOOST_TEST((f.progress.back().total == got.size()));
    BOOST_TEST(all->front().last_update.has_value());

    f.feed.select = "recent";
    auto recent = fetch();
    BOOST_TEST_REQUIRE(recent.has_value(), recent.error().message);
    BOOST_TEST(!recent->empty());

    f.src.secret = "not-the-demo-key";
    auto denied = fetch();
    BOOST_TEST_REQUIRE(denied.has_error());
    BOOST_TEST((denied.error().code == errc::upstream_auth));
    BOOST_TEST(denied.error().message == "job board API rejected the api_key (403: Invalid API key)");
}

BOOST_AUTO_TEST_SUITE_END()
