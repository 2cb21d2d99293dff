// File: error_test.cpp
// errc names, exit codes and URL redaction.
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>

#include <boost/test/unit_test.hpp>

using namespace icsbridge;

BOOST_AUTO_TEST_SUITE(error_test)

BOOST_AUTO_TEST_CASE(config_and_usage_errors_exit_2_runtime_errors_exit_1) {
    BOOST_TEST(exit_code(errc::ok) == 0);
    BOOST_TEST(exit_code(errc::usage) == 2);
    BOOST_TEST(exit_code(errc::config_invalid) == 2);
    BOOST_TEST(exit_code(errc::feed_unknown) == 2);
    BOOST_TEST(exit_code(errc::upstream_timeout) == 1);
    BOOST_TEST(exit_code(errc::io_error) == 1);
}

BOOST_AUTO_TEST_CASE(each_errc_is_answered_with_one_http_status) {
    // A client's mistake is 4xx, an upstream's 502/504, ours 500, a pause 503: a proxy retries only those.
    BOOST_TEST(http_status(errc::usage) == 400u);
    BOOST_TEST(http_status(errc::feed_unknown) == 404u);
    BOOST_TEST(http_status(errc::upstream_timeout) == 504u);
    BOOST_TEST(http_status(errc::upstream_auth) == 502u);
    BOOST_TEST(http_status(errc::upstream_malformed) == 502u);
    BOOST_TEST(http_status(errc::render_failed) == 500u);
    BOOST_TEST(http_status(errc::io_error) == 500u);
    BOOST_TEST(http_status(errc::shutdown) == 503u);
    BOOST_TEST(http_status(errc::snapshot_corrupt) == 503u);
    BOOST_TEST(http_status(errc::not_connected) == 502u);
    for (int c = 1; c <= static_cast<int>(errc::not_connected); ++c) {
        auto const s = http_status(static_cast<errc>(c));
        BOOST_TEST((s >= 400u && s < 600u), to_string(static_cast<errc>(c)) << " -> " << s);
    }
}

BOOST_AUTO_TEST_CASE(every_errc_has_its_stable_name) {
    // Scripts read these in /healthz and logs; a corrupt snapshot is not an upstream's fault.
    BOOST_TEST(to_string(errc::upstream_auth) == "upstream_auth");
    BOOST_TEST(to_string(errc::upstream_malformed) == "upstream_malformed");
    BOOST_TEST(to_string(errc::snapshot_corrupt) == "snapshot_corrupt");
    BOOST_TEST(to_string(errc::shutdown) == "shutdown");
    BOOST_TEST(exit_code(errc::snapshot_corrupt) == 1);
    // An OAuth target nobody connected (or whose consent ended) is a runtime failure, not a config error.
    BOOST_TEST(to_string(errc::not_connected) == "not_connected");
    BOOST_TEST(exit_code(errc::not_connected) == 1);
}

BOOST_AUTO_TEST_CASE(redact_url_hides_every_secret_parameter) {
    BOOST_TEST(
        redact_url("https://jobs.example.com/api/posts/search/?api_key=SECRET123&keywords=php") ==
        "https://jobs.example.com/api/posts/search/?api_key=***&keywords=php"
    );
    // A fragment is dropped whole: it may hold a token in any shape.
    BOOST_TEST(redact_url("/feeds/a.ics?x=1&Token=abc#frag") == "/feeds/a.ics?x=1&Token=***#***");
    BOOST_TEST(redact_url("/feeds/a.ics") == "/feeds/a.ics");
    BOOST_TEST(redact_url("/x?token") == "/x?token");
    BOOST_TEST(redact_url("/x?a=1&access_token=zz&&") == "/x?a=1&access_token=***&&");
}

BOOST_AUTO_TEST_CASE(redact_url_hides_tokens_in_every_odd_placement) {
    // Issue 16: "?x=1#&token=SECRET" was logged as is.
    BOOST_TEST(redact_url("/f.ics?x=1#&token=SECRET") == "/f.ics?x=1#***");
    BOOST_TEST(redact_url("/f.ics#token=SECRET") == "/f.ics#***");
    BOOST_TEST(redact_url("/f.ics#?token=SECRET") == "/f.ics#***");
    BOOST_TEST(redact_url("/f.ics#SECRET") == "/f.ics#***");
    BOOST_TEST(
        redact_url("/f.ics?token=A&token=B&x=1&TOKEN=C") == "/f.ics?token=***&token=***&x=1&TOKEN=***"
    );
    BOOST_TEST(
        redact_url("/f.ics?%74oken=SECRET&tok%65n=S2&%54OKEN=S3") ==
        "/f.ics?%74oken=***&tok%65n=***&%54OKEN=***"
    );
    BOOST_TEST(redact_url("/f.ics?token=a=b") == "/f.ics?token=***");
    BOOST_TEST(redact_url("/f.ics?token==SECRET") == "/f.ics?token=***");
    BOOST_TEST(redact_url("/f.ics?token") == "/f.ics?token");
    BOOST_TEST(redact_url("/f.ics?") == "/f.ics?");
    BOOST_TEST(redact_url("/f.ics#") == "/f.ics#");
    BOOST_TEST(redact_url("?token=SECRET") == "?token=***");
}

BOOST_AUTO_TEST_SUITE_END()
