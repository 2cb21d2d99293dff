// File: cluster_config_test.cpp
// [cluster]: defaults, the secret from the environment, each mistake at its FILE:LINE:COL, and the
// password never shown (masked URL, error messages).
#include "support/config_text.hpp"
#include <icsbridge/config.hpp>

#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <map>
#include <string>

using namespace icsbridge;
using namespace std::chrono_literals;

namespace cluster_config_test {

Result<Config> parse(std::string const& text, std::map<std::string, std::string> env = {}) {
    return test::parse_config_text(text, "c.toml", std::move(env));
}

std::string error_of(std::string const& text) {
    auto r = parse(text);
    // A secret this environment lacks is no mistake in the file: the config loads and names it.
    if (r && !r->missing_secrets.empty())
        return r->missing_secrets.front().message;
    BOOST_REQUIRE_MESSAGE(!r, "expected a config error for: " + text);
    return r.error().message;
}

} // namespace cluster_config_test

BOOST_AUTO_TEST_SUITE(cluster_config_test)

BOOST_AUTO_TEST_CASE(absent_table_is_a_single_box) {
    auto r = parse("[storage]\ndir = \"x\"\n");
    BOOST_REQUIRE(r);
    BOOST_TEST(!r->cluster.has_value());
}

BOOST_AUTO_TEST_CASE(defaults_and_environment) {
    auto r = parse(
        "[cluster]\ndatabase_url_env = \"DB\"\n",
        {{"DB", "postgresql://icsbridge:s3cret@db:5433/icsbridge"}}
    );
    BOOST_REQUIRE(r);
    BOOST_REQUIRE(r->cluster.has_value());
    BOOST_TEST(r->cluster->database_url == "postgresql://icsbridge:s3cret@db:5433/icsbridge");
    BOOST_TEST(r->cluster->lease == 30s);
    BOOST_TEST(r->cluster->node.empty());
    // The default node: host name, a dash, the pid.
    auto const node = cluster_node(*r->cluster);
    BOOST_TEST(node.ends_with("-" + std::to_string(::getpid())));
    BOOST_TEST(!r->secrets_in_file);
}

BOOST_AUTO_TEST_CASE(explicit_values) {
    auto r = parse(
        "[cluster]\ndatabase_url = \"postgresql://icsbridge@db/icsbridge\"\nnode = \"r-1\"\nlease = \"10s\"\n"
    );
    BOOST_REQUIRE(r);
    BOOST_TEST(cluster_node(*r->cluster) == "r-1");
    BOOST_TEST(r->cluster->lease == 10s);
    // No password in it: the file holds no secret.
    BOOST_TEST(!r->secrets_in_file);
    auto with_pw = parse("[cluster]\ndatabase_url = \"postgresql://u:pw@db/icsbridge\"\n");
    BOOST_REQUIRE(with_pw);
    BOOST_TEST(with_pw->secrets_in_file);
}

BOOST_AUTO_TEST_CASE(mistakes_point_at_the_key) {
    BOOST_TEST(
        error_of("[cluster]\nnode = \"a\"\n") ==
        "c.toml:1:1: [cluster] needs database_url or database_url_env"
    );
    BOOST_TEST(
        error_of("[cluster]\ndatabase_url = \"postgresql://db/x\"\nleas = \"5s\"\n") ==
        "c.toml:3:1: unknown key 'leas' in [cluster]; did you mean 'lease'?"
    );
    BOOST_TEST(
        error_of("[cluster]\ndatabase_url = \"mysql://db/x\"\n") ==
        "c.toml:2:1: database_url must be a libpq URI such as postgresql://USER@HOST/DATABASE"
    );
    BOOST_TEST(
        error_of("[cluster]\ndatabase_url = \"postgresql://db/x\"\nlease = \"1s\"\n") ==
        "c.toml:3:9: lease must be at least \"2s\""
    );
    BOOST_TEST(error_of("[cluster]\ndatabase_url = \"postgresql://db/x\"\nnode = \"a b\"\n")
                   .starts_with("c.toml:3:8: node = \"a b\" may only hold"));
    BOOST_TEST(error_of("[cluster]\ndatabase_url_env = \"NOPE\"\n")
                   .starts_with("c.toml:2:20: environment variable NOPE"));
}

BOOST_AUTO_TEST_CASE(a_bad_uri_never_echoes_the_password) {
    auto const msg = error_of("[cluster]\ndatabase_url = \"postgresql://u:hunter2@db/x?hunter2=1\"\n");
    BOOST_TEST(msg.starts_with("c.toml:2:1: database_url is not a valid libpq URI"));
    BOOST_TEST(msg.find("hunter2") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(masking) {
    BOOST_TEST(mask_database_url("postgresql://u:pw@db/x") == "postgresql://u:***@db/x");
    BOOST_TEST(
        mask_database_url("postgresql://u:p@w@db:5432/x?sslmode=require") ==
        "postgresql://u:***@db:5432/x?sslmode=require"
    );
    BOOST_TEST(
        mask_database_url("postgresql://u@db/x?sslmode=require&password=pw") ==
        "postgresql://u@db/x?sslmode=require&password=***"
    );
    BOOST_TEST(mask_database_url("postgresql://db/x") == "postgresql://db/x");
    BOOST_TEST(mask_database_url("postgresql:///x?host=/tmp") == "postgresql:///x?host=/tmp");
}

BOOST_AUTO_TEST_SUITE_END()
