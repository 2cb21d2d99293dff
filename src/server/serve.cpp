// File: serve.cpp
// The `serve` command: load the last-good snapshots, listen, refresh in the background, and stop
// cleanly on SIGINT/SIGTERM (stop accepting, finish requests in flight, exit 0).
#include "server/serve.hpp"

#include <icsbridge/pipeline.hpp>
#include <icsbridge/refresh.hpp>
#include <icsbridge/server.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <atomic>
#include <filesystem>
#include <thread>

namespace icsbridge {

namespace {

namespace net = boost::asio;

/** @brief Contains a failure of a top-level coroutine to one log line; the last one to end stops the loop. */
auto on_done(Logger const& log, std::string what, std::atomic<int>& remaining, net::io_context& ioc) {
    return [&log, what, &remaining, &ioc](std::exception_ptr e) {
        if (e) {
            try {
                std::rethrow_exception(e);
            } catch (std::exception const& ex) {
                log.error(what + " failed: " + ex.what());
            }
        }
        // Pooled upstream connections may still hold work; nothing else is left to finish.
        if (--remaining == 0)
            ioc.stop();
    };
}

} // namespace

int serve_command(Config const& cfg, Logger const& log) {
    std::error_code ec;
    std::filesystem::create_directories(cfg.storage.dir, ec);
    if (ec) {
        log.error("cannot create storage directory " + cfg.storage.dir + ": " + ec.message());
        return 1;
    }
    FeedStore store(cfg);
    auto loaded = store.load_dir(cfg.storage.dir, log);
    log.info(
        "loaded " + std::to_string(loaded) + " of " + std::to_string(cfg.feeds.size()) +
        " feed snapshot(s) from " + cfg.storage.dir
    );

    int threads = cfg.server.threads > 0
                      ? cfg.server.threads
                      : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    net::io_context ioc(threads);
    Server server(ioc.get_executor(), cfg, store, log);
    auto port = server.listen();
    if (!port) {
        log.error(port.error().message);
        return 1;
    }

    RefreshOptions ropts;
    ropts.storage_dir = cfg.storage.dir;
    // The Pipeline's HttpClients live on the refreshers' strand, which is where they are called from.
    std::unique_ptr<Pipeline> pipeline;
    Refreshers refreshers(
        ioc.get_executor(),
        cfg,
        store,
        [&pipeline](FeedGroup const& g, sys_seconds now) { return pipeline_fetch(*pipeline)(g, now); },
        log,
        ropts
    );
    pipeline = std::make_unique<Pipeline>(cfg, refreshers.executor(), log);

    net::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](boost::system::error_code const& e, int sig) {
        if (e)
            return;
        log.info("signal " + std::to_string(sig) + ": shutting down");
        server.stop();
        refreshers.stop();
    });

    std::atomic<int> remaining{2};
    net::co_spawn(ioc, server.run(), on_done(log, "server", remaining, ioc));
    net::co_spawn(ioc, refreshers.run(), on_done(log, "refreshers", remaining, ioc));
    log.info(
        "listening on http://" + cfg.server.host + ":" + std::to_string(*port) + " (" +
        std::to_string(threads) + " thread(s))"
    );

    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i)
        pool.emplace_back([&ioc] { ioc.run(); });
    ioc.run();
    for (auto& t : pool)
        t.join();
    log.info("stopped");
    return 0;
}

} // namespace icsbridge
