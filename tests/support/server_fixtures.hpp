// File: server_fixtures.hpp
// A config with public, token and per-subscriber-token feeds, and a calendar body, shared by the
// server's unit and integration tests.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/publish.hpp>
#include <icsbridge/store.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

// Time points print as their HTTP-date in failure messages.
namespace boost::test_tools::tt_detail {
template <class Duration>
struct print_log_value<std::chrono::time_point<std::chrono::system_clock, Duration>> {
    void operator()(std::ostream& os, std::chrono::time_point<std::chrono::system_clock, Duration> t) {
        os << std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count() << "s";
    }
};
} // namespace boost::test_tools::tt_detail

namespace icsbridge::test {

/** @brief Feeds: "pub" (public, title with HTML specials), "secret" (token), "team" (tokens alice/bob),
 * "later" (public). */
inline Config server_test_config() {
    Config cfg;
    cfg.server.public_url = "http://cal.example.org:8080";
    auto add = [&](std::string name) -> FeedConfig& {
        FeedConfig f;
        f.name = std::move(name);
        f.source = "eb";
        f.select = "organizer";
        f.refresh = std::chrono::minutes(15);
        cfg.feeds.push_back(f);
        return cfg.feeds.back();
    };
    add("pub").title = "Talks <&> \"Meetups\"";
    add("secret").token = "s3cret-token-value";
    auto& team = add("team");
    team.tokens = {{"alice", "alice-secret-1"}, {"bob", "bob-secret-2"}};
    add("later");
    return cfg;
}

/** @brief A small calendar body with `n` events. */
inline std::string calendar_body(int n, std::string const& tag = "a") {
    std::string s = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n";
    for (int i = 0; i < n; ++i)
        s += "BEGIN:VEVENT\r\nUID:" + tag + std::to_string(i) +
             "@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260102T100000Z\r\nSUMMARY:Event " +
             std::to_string(i) + "\r\nEND:VEVENT\r\n";
    return s + "END:VCALENDAR\r\n";
}

/**
 * @brief Publishes `body` for `feed` as a refresh would (through a Publisher that keeps nothing), so that
 * tests of what is served start from the same snapshots serve makes.
 * @return the snapshot now served (null for an unknown feed) and whether it changed
 */
inline std::pair<std::shared_ptr<Snapshot const>, bool>
publish(ServedFeeds& store, std::string const& feed, std::string body, std::size_t items, sys_seconds at) {
    auto const before = store.get(feed);
    Publisher publisher(store, nullptr, null_logger(), store.gzip_enabled());
    publisher.publish(feed, std::move(body), items, Origin::fetched, at);
    auto after = store.get(feed);
    return {after, after != before};
}

/** @brief Restores every feed's kept snapshot from `dir` as serve does at start; returns how many. */
inline std::size_t restore(ServedFeeds& store, std::string const& dir, Logger const& log) {
    Publisher publisher(store, nullptr, log, store.gzip_enabled());
    DiskSnapshots disk(dir);
    return restore_snapshots(publisher, store, disk, log);
}

} // namespace icsbridge::test
