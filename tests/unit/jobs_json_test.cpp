// File: jobs_json_test.cpp
// The job board parsers on the real 2009, 2015 and 2019 Authentic Jobs shapes (UPSTREAM.md part 2).
#include "sources/jobs_json.hpp"
#include "sources/upstream_call.hpp"
#include "sources/upstream_error.hpp"
#include "support/fixtures.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>

using namespace icsbridge;
using icsbridge::test::read_fixture;

BOOST_AUTO_TEST_SUITE(jobs_json_test)

BOOST_AUTO_TEST_CASE(search_2015_reads_flags_location_and_last_update) {
    // Run
    auto page = parse_jobs_page(read_fixture("jobs/search_2015.json"));

    // Check
    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST((page->page == 1));
    BOOST_TEST(page->pages == 101);
    BOOST_TEST((page->total == 101u));
    BOOST_TEST((page->perpage == 1)); // "1" on the wire
    BOOST_TEST_REQUIRE(page->posts.size() == 1u);
    auto const& j = page->posts[0];
    BOOST_TEST(j.id == "25963");
    BOOST_TEST(j.title == "Front-End Designer/Developer");
    BOOST_TEST((j.posted == LocalDateTime{2015, 10, 16, 15, 8, 18}));
    BOOST_TEST(j.category_id == "4");
    BOOST_TEST(j.category == "Front-end Development");
    BOOST_TEST(j.type == "Full-time");
    BOOST_TEST(j.company == "Northeastern University");
    BOOST_TEST(j.company_url == "http://www.neu.edu");
    BOOST_TEST(j.location == "Boston, MA, MA, US");
    BOOST_TEST(*j.latitude == 42.3587, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*j.longitude == -71.0567, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(!j.remote);
    BOOST_TEST(!j.relocation);
    BOOST_TEST(j.perks.empty()); // null
    BOOST_TEST(j.url == "http://www.authenticjobs.com/jobs/25963/front-end-designer-developer");
    BOOST_TEST(j.apply_url == "http://apptrkr.com/690479");
    // 2015-10-16T17:57:01-05:00
    auto expected = std::chrono::sys_days{std::chrono::year{2015} / 10 / 16} + std::chrono::hours{22} +
                    std::chrono::minutes{57} + std::chrono::seconds{1};
    BOOST_TEST_REQUIRE(j.last_update.has_value());
    BOOST_TEST((*j.last_update == expected));
}

BOOST_AUTO_TEST_CASE(search_2009_has_no_url_flags_or_last_update) {
    auto page = parse_jobs_page(read_fixture("jobs/search_2009.json"));

    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST((page->perpage == 10));
    BOOST_TEST(page->pages == 1);
    BOOST_TEST(!page->last_update.has_value());
    BOOST_TEST_REQUIRE(page->posts.size() == 2u);
    BOOST_TEST(page->posts[0].id == "4428");
    BOOST_TEST(page->posts[0].url.empty());
    BOOST_TEST(page->posts[0].location == "Austin, TX, US");
    BOOST_TEST(page->posts[1].id == "4385");
    BOOST_TEST(page->posts[1].perks.find("15 days of PTO") != std::string::npos);
    BOOST_TEST(page->posts[1].description_html.find("\r\n") != std::string::npos);
    BOOST_TEST(!page->posts[1].last_update.has_value());
}

BOOST_AUTO_TEST_CASE(single_object_listing_envelope_2019_without_company_location) {
    auto page = parse_jobs_page(read_fixture("jobs/recent_2019_single.json"));

    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST_REQUIRE(page->posts.size() == 1u);
    auto const& j = page->posts[0];
    BOOST_TEST(j.id == "31689");
    BOOST_TEST(j.remote); // telecommuting: 1
    BOOST_TEST(j.type == "Part-time");
    BOOST_TEST(j.location.empty());
    BOOST_TEST(!j.latitude.has_value());
    BOOST_TEST(j.apply_url == "http://mailto:jared@confluentdesign.com");
    BOOST_TEST((page->perpage == 100));
}

BOOST_AUTO_TEST_CASE(one_post_categories_and_tags) {
    auto post = parse_job_body(read_fixture("jobs/post_2019.json"));
    BOOST_TEST_REQUIRE(post.has_value());
    BOOST_TEST(post->id == "31701");
    BOOST_TEST(post->company == "BrandYourself");

    auto cats = parse_categories(read_fixture("jobs/categories_2009.json"));
    BOOST_TEST_REQUIRE(cats.has_value());
    BOOST_TEST_REQUIRE(cats->size() == 6u);
    BOOST_TEST((*cats)[1].id == "3");
    BOOST_TEST((*cats)[1].name == "Interaction Design");

    auto tags = parse_tags(read_fixture("jobs/tags.json"));
    BOOST_TEST_REQUIRE(tags.has_value());
    BOOST_TEST_REQUIRE(tags->size() == 3u);
    BOOST_TEST((*tags)[2].name == "rails");
}

BOOST_AUTO_TEST_CASE(flags_as_bools_strings_and_ints) {
    auto page = parse_jobs_page(R"({"listings":{"listing":[
        {"id":7,"title":"a","post_date":"2020-01-02 03:04:05","telecommuting":true,"relocation_assistance":"1"},
        {"id":"8","title":"b","post_date":"2020-01-02 03:04:05","telecommuting":"0","relocation_assistance":0,
         "company":{"name":"C","location":{"id":"x","city":"Berlin"}}}],
        "page":"2","pages":"3","perpage":"100","total":"250"},"stat":"ok"})");
    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST((page->page == 2));
    BOOST_TEST(page->pages == 3);
    BOOST_TEST((page->total == 250u));
    BOOST_TEST(page->posts[0].id == "7");
    BOOST_TEST(page->posts[0].remote);
    BOOST_TEST(page->posts[0].relocation);
    BOOST_TEST(!page->posts[1].remote);
    BOOST_TEST(page->posts[1].location == "Berlin"); // no name: the city
}

BOOST_AUTO_TEST_CASE(empty_result_without_inner_list) {
    auto page = parse_jobs_page(R"({"listings":{"total":0,"page":1,"pages":0},"stat":"ok"})");
    BOOST_TEST_REQUIRE(page.has_value());
    BOOST_TEST(page->posts.empty());
}

BOOST_AUTO_TEST_CASE(malformed_required_field_names_its_json_path) {
    auto r = parse_jobs_page(R"({"listings":{"listing":[
        {"id":"1","title":"a","post_date":"2020-01-02 03:04:05"},
        {"id":"2","title":"b","post_date":"02/01/2020"}]},"stat":"ok"})");
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_malformed));
    BOOST_TEST(r.error().message == "listings.listing[1].post_date is not a date-time");

    r = parse_jobs_page(
        R"({"listings":{"listing":{"title":"a","post_date":"2020-01-02 03:04:05"}},"stat":"ok"})"
    );
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == "listings.listing.id is missing");

    r = parse_jobs_page(R"({"stat":"ok"})");
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == "listings is missing");
}

BOOST_AUTO_TEST_CASE(stat_fail_is_an_error_even_with_http_200) {
    auto r = parse_jobs_page(read_fixture("jobs/error_invalid_key.json"));
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST((r.error().code == errc::upstream_auth));
    BOOST_TEST(r.error().message == "job board API rejected the api_key (code 1: Invalid API key)");

    auto c = parse_categories(read_fixture("jobs/error_unknown_method.json"));
    BOOST_TEST_REQUIRE(c.has_error());
    BOOST_TEST((c.error().code == errc::upstream_status));
    BOOST_TEST(
        c.error().message ==
        "job board API reported a failure (code 5): Unknown method: aj.categories.getlists"
    );

    auto e =
        upstream_error(403, read_fixture("jobs/error_invalid_key.json"), Api::jobs, "/api/posts/search/");
    BOOST_TEST((e.code == errc::upstream_auth));
    BOOST_TEST(e.message == "job board API rejected the api_key (403: Invalid API key)");

    e = upstream_error(404, R"({"stat":"fail","code":2,"desc":"No such post"})", Api::jobs, "/api/posts/9/");
    BOOST_TEST((e.code == errc::upstream_not_found));
    BOOST_TEST(e.message == "job board API answered 404 (code 2) for GET /api/posts/9/: No such post");
}

BOOST_AUTO_TEST_CASE(api_key_is_the_first_query_parameter) {
    boost::asio::io_context ioc;
    HttpClient http(ioc.get_executor(), ClientOptions{});
    SourceConfig src;
    src.type = SourceType::jobs;
    src.base_url = "https://jobs.example.com";
    src.secret = "k/ey+1";
    Logger const log = null_logger();
    UpstreamCall const call(src, http, log, Api::jobs);

    Query const q{{"keywords", "php,mysql"}, {"perpage", "100"}, {"page", "2"}};
    auto const url = call.url("/api/posts/search/", q);
    BOOST_TEST(
        url ==
        "https://jobs.example.com/api/posts/search/?api_key=k/ey%2B1&keywords=php,mysql&perpage=100&page=2"
    );
    BOOST_TEST(redact_url(url).find("k/ey") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
