// File: feed_run.hpp
// Running feeds once for the one-shot commands (export, push): a fresh io_context per command, a feed's
// fetch bounded by its fetch_timeout as in `serve`, and a merged feed built from its parts.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/pipeline.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

namespace icsbridge::cli {

/**
 * Runs one coroutine to completion on a fresh io_context; an exception in it is a bug and propagates to
 * main. With `teardown`, the io_context and the pipeline (render caches, connections, rate budgets) are
 * freed on that thread instead of before returning: a large feed's caches take a noticeable part of a
 * second to free, which the caller spends writing its output meanwhile (the thread joins when the caller's
 * jthread goes out of scope).
 */
template <class T>
Result<T> run_sync(
    std::function<boost::asio::awaitable<Result<T>>(Pipeline&)> fn,
    Config const& cfg,
    Logger const& log,
    std::jthread* teardown = nullptr
) {
    auto ioc = std::make_unique<boost::asio::io_context>();
    auto pipeline = std::make_unique<Pipeline>(cfg, ioc->get_executor(), log);
    // One thread receives and parses; the others build the calendar's blocks meanwhile.
    pipeline->render_on_workers(default_render_workers());
    std::optional<Result<T>> result;
    std::exception_ptr error;
    boost::asio::co_spawn(
        *ioc,
        [&]() -> boost::asio::awaitable<void> { result.emplace(co_await fn(*pipeline)); },
        [&](std::exception_ptr e) { error = e; }
    );
    ioc->run();
    // Nothing runs on the io_context any more: whoever frees the two is their only user.
    if (teardown)
        *teardown = std::jthread([p = std::move(pipeline), i = std::move(ioc)]() mutable {
            p.reset(); // first: it holds executors of the io_context
            i.reset();
        });
    if (error)
        std::rethrow_exception(error);
    return std::move(*result);
}

/**
 * @brief One run of `feed` as of `now`: its pipeline (bounded by its fetch_timeout, every page and retry
 * included), or for a merged feed each part's in turn, merged; the first part that fails fails it.
 */
boost::asio::awaitable<Result<Calendar>> run_feed_once(
    Pipeline& p, Config const& cfg, FeedConfig const& feed, sys_seconds now, ProgressFn progress = {}
);

/** The level ICSBRIDGE_LOG asks for ("debug", "info", "warn", "error"), if it names one. */
std::optional<LogLevel> log_level_from_env();

/**
 * One-shot commands promise one line on failure, so the client's retry chatter stays silent unless
 * ICSBRIDGE_LOG asks for it (troubleshooting an upstream).
 */
Logger command_logger();

} // namespace icsbridge::cli
