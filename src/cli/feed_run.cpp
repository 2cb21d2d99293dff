// File: feed_run.cpp
// run_feed_once(): each fetch within its fetch_timeout, and the merged feed's parts, for export and push.
#include "cli/feed_run.hpp"

#include "pipeline/fetch_within.hpp"
#include <icsbridge/merge.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace icsbridge::cli {

namespace net = boost::asio;

namespace {

/**
 * A merged feed has no snapshot to read here, so its parts are run once each, in order, and merged; the
 * first part that fails fails the export (no calendar missing a part's items is ever written).
 */
net::awaitable<Result<Calendar>>
run_merged(Pipeline& p, Config const& cfg, FeedConfig const& feed, sys_seconds now) {
    std::vector<std::string> calendars;
    std::vector<CalendarPart> parts;
    calendars.reserve(feed.merge.size());
    for (auto const& name : feed.merge) {
        FeedConfig const* part = cfg.find_feed(name);
        if (!part)
            co_return fail(errc::feed_unknown, "unknown part '" + name + "'");
        auto run = fetch_within(p.run(*part, now), *part);
        auto out = co_await std::move(run);
        if (!out)
            co_return fail(out.error().code, "part " + name + ": " + out.error().message);
        calendars.push_back(std::move(out->ics));
    }
    for (std::size_t i = 0; i < calendars.size(); ++i)
        parts.push_back(CalendarPart{feed.merge[i], calendars[i]});
    auto merged = render_merged(feed, parts);
    if (!merged)
        co_return merged.error();
    co_return Calendar{std::move(merged->ics), merged->items};
}

} // namespace

net::awaitable<Result<Calendar>>
run_feed_once(Pipeline& p, Config const& cfg, FeedConfig const& feed, sys_seconds now, ProgressFn progress) {
    if (feed.is_merged())
        return run_merged(p, cfg, feed, now);
    return fetch_within(p.run(feed, now, std::move(progress)), feed);
}

/** The level ICSBRIDGE_LOG asks for ("debug", "info", "warn", "error"), if it names one. */
std::optional<LogLevel> log_level_from_env() {
    char const* v = std::getenv("ICSBRIDGE_LOG");
    if (!v)
        return std::nullopt;
    std::string_view const s(v);
    if (s == "debug")
        return LogLevel::debug;
    if (s == "info")
        return LogLevel::info;
    if (s == "warn")
        return LogLevel::warn;
    if (s == "error")
        return LogLevel::error;
    return std::nullopt;
}

/**
 * One-shot commands promise one line on failure, so the client's retry chatter stays silent unless
 * ICSBRIDGE_LOG asks for it (troubleshooting an upstream).
 */
Logger command_logger() {
    auto lvl = log_level_from_env();
    return lvl ? stderr_logger(*lvl) : null_logger();
}

} // namespace icsbridge::cli
