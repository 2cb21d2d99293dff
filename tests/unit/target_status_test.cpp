// File: target_status_test.cpp
// The push targets as /healthz (targets_json) and /metrics (append_push_metrics) show them: every field's
// value for a target in sync and for one that failed, and nothing at all without targets.
#include "server/target_status.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>

using namespace icsbridge;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(target_status_test)

namespace {

sys_seconds at(long long s) {
    return sys_seconds(std::chrono::seconds(s));
}

/** "family" in sync after writes and a conflict; "locked" refused (401) and never in sync. */
void two_targets(PushStatus& push) {
    push.set_targets({"locked", "family"});
    push.update("family", [](TargetStatus& s) {
        s.last_success = at(1'800'000'000);
        s.items = 34;
        s.created = 34;
        s.updated = 2;
        s.deleted = 1;
        s.conflicts = 1;
        s.requests = 41;
        s.reconciles = 3;
        s.queue = 5;
    });
    push.update("locked", [](TargetStatus& s) {
        s.last_failure = at(1'800'000'100);
        s.last_error = "locked: 401 from REPORT http://127.0.0.1:1/alice/locked/: the server refused the "
                       "credentials; check username and password";
        s.requests = 1;
        s.reconciles = 1;
    });
    push.update("gone", [](TargetStatus& s) { s.items = 99; }); // not a target: nothing recorded
}

json::object const& named(json::array const& targets, std::string const& name) {
    for (auto const& t : targets)
        if (t.as_object().at("name") == name.c_str())
            return t.as_object();
    throw std::runtime_error("no target " + name);
}

/** The value of the series line that starts with `series` ("name{labels}"), or "" when absent. */
std::string value_of(std::string const& text, std::string const& series) {
    auto const at = text.find("\n" + series + " ");
    if (at == std::string::npos)
        return {};
    auto const from = at + series.size() + 2;
    return text.substr(from, text.find('\n', from) - from);
}

} // namespace

BOOST_AUTO_TEST_CASE(healthz_shows_each_targets_values) {
    PushStatus push;
    two_targets(push);
    auto const targets = targets_json(push);
    BOOST_TEST(targets.size() == 2u);
    auto const& family = named(targets, "family");
    BOOST_TEST(family.at("ok").as_bool());
    BOOST_TEST(family.at("last_success").as_string() == "Fri, 15 Jan 2027 08:00:00 GMT");
    BOOST_TEST(family.at("last_failure").is_null());
    BOOST_TEST(family.at("last_error").is_null());
    BOOST_TEST(family.at("items").to_number<int>() == 34);
    auto const& writes = family.at("writes").as_object();
    BOOST_TEST(writes.at("create").to_number<int>() == 34);
    BOOST_TEST(writes.at("update").to_number<int>() == 2);
    BOOST_TEST(writes.at("delete").to_number<int>() == 1);
    BOOST_TEST(family.at("conflicts").to_number<int>() == 1);
    BOOST_TEST(family.at("requests").to_number<int>() == 41);
    BOOST_TEST(family.at("reconciles").to_number<int>() == 3);
    BOOST_TEST(family.at("queue").to_number<int>() == 5);

    auto const& locked = named(targets, "locked");
    BOOST_TEST(!locked.at("ok").as_bool());
    BOOST_TEST(locked.at("last_success").is_null());
    BOOST_TEST(locked.at("last_failure").as_string() == "Fri, 15 Jan 2027 08:01:40 GMT");
    BOOST_TEST(std::string(locked.at("last_error").as_string()).find("401") != std::string::npos);
    BOOST_TEST(locked.at("items").to_number<int>() == 0);
}

BOOST_AUTO_TEST_CASE(metrics_show_each_targets_values) {
    std::string text = "\n";
    PushStatus push;
    two_targets(push);
    append_push_metrics(text, push);
    BOOST_TEST(value_of(text, R"(icsbridge_push_writes_total{target="family",kind="create"})") == "34");
    BOOST_TEST(value_of(text, R"(icsbridge_push_writes_total{target="family",kind="update"})") == "2");
    BOOST_TEST(value_of(text, R"(icsbridge_push_writes_total{target="family",kind="delete"})") == "1");
    BOOST_TEST(value_of(text, R"(icsbridge_push_requests_total{target="family"})") == "41");
    BOOST_TEST(value_of(text, R"(icsbridge_push_conflicts_total{target="family"})") == "1");
    BOOST_TEST(value_of(text, R"(icsbridge_push_items{target="family"})") == "34");
    BOOST_TEST(value_of(text, R"(icsbridge_push_queue{target="family"})") == "5");
    BOOST_TEST(value_of(text, R"(icsbridge_push_up{target="family"})") == "1");
    BOOST_TEST(value_of(text, R"(icsbridge_push_up{target="locked"})") == "0");
    BOOST_TEST(
        value_of(text, R"(icsbridge_push_last_success_timestamp_seconds{target="family"})") == "1800000000"
    );
    BOOST_TEST(value_of(text, R"(icsbridge_push_last_success_timestamp_seconds{target="locked"})") == "0");
    BOOST_TEST(
        value_of(text, R"(icsbridge_push_last_failure_timestamp_seconds{target="locked"})") == "1800000100"
    );
    BOOST_TEST(value_of(text, R"(icsbridge_push_last_failure_timestamp_seconds{target="family"})") == "0");
    BOOST_TEST(text.find("gone") == std::string::npos);
    // Each series is declared once, before its samples.
    BOOST_TEST(
        text.find("# TYPE icsbridge_push_last_failure_timestamp_seconds gauge\n") != std::string::npos
    );
    BOOST_TEST(
        text.find("# TYPE icsbridge_push_writes_total counter\n") < text.find("icsbridge_push_writes_total{")
    );
    // Never an error message: a label or a sample of text could carry a URL.
    BOOST_TEST(text.find("refused") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(no_targets_no_series) {
    PushStatus none;
    std::string text;
    append_push_metrics(text, none);
    BOOST_TEST(text.empty());
    BOOST_TEST(targets_json(none).empty());
}

BOOST_AUTO_TEST_SUITE_END()
