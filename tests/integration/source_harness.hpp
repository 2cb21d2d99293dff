// File: source_harness.hpp
// Runs a source client (EventsSource, JobsSource) against a ScriptedUpstream and checks, whatever the
// outcome, that the source's secret shows in no log line and no error message.
#pragma once

#include "integration/scripted_upstream.hpp"
#include "support/fixtures.hpp"
#include "support/run_coro.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/net.hpp>
#include <icsbridge/sources.hpp>

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace icsbridge::test {

/** @brief What every source test sets up: a source with a secret, one feed of it, a log and the progress. */
struct SourceFixture {
    SourceConfig src;
    FeedConfig feed;
    StringLogger logs;
    std::vector<FetchProgress> progress;

    SourceFixture(SourceType type, std::string const& secret, std::string const& select) {
        src.name = "upstream";
        src.type = type;
        src.secret = secret;
        feed.name = "feed";
        feed.source = src.name;
        feed.select = select;
    }

    ProgressFn record_progress() {
        return [this](FetchProgress const& p) { progress.push_back(p); };
    }

    /** @brief The question `feed` asks now, kept here so it outlives the fetch that reads it. */
    UpstreamQuery const& ask() {
        question = query_of(feed);
        return question;
    }
    UpstreamQuery question;
};

/** @brief The `id` of each item, in order. */
template <class T>
std::vector<std::string> ids_of(std::vector<T> const& items) {
    std::vector<std::string> out;
    for (auto const& item : items)
        out.push_back(item.id);
    return out;
}

/** @brief Builds an HttpClient (one attempt per request) and a `Source` for `src`, and awaits `fn(source)`.
 */
template <class T, class Source, class Fn>
Result<T> run_source(SourceConfig const& src, StringLogger const& logs, Fn fn) {
    Result<T> out = fail(errc::ok, "not run");
    run_coro([&](boost::asio::any_io_executor ex) -> boost::asio::awaitable<void> {
        auto opts = client_options_for(src);
        opts.retry.max_attempts = 1; // failures are scripted; retrying them only slows the test
        HttpClient http(ex, opts, logs.logger());
        Source source(src, http, logs.logger());
        out = co_await fn(source);
    });
    BOOST_TEST(logs.joined().find(src.secret) == std::string::npos);
    if (!out)
        BOOST_TEST(out.error().message.find(src.secret) == std::string::npos);
    return out;
}

} // namespace icsbridge::test
