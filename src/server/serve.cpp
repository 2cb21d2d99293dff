// File: serve.cpp
// The `serve` command: load the last-good snapshots, listen, refresh in the background, and stop
// cleanly on SIGINT/SIGTERM (stop accepting, finish requests in flight, exit 0).
#include "server/serve.hpp"

#include <icsbridge/pipeline.hpp>
#include <icsbridge/refresh.hpp>
#include <icsbridge/server.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <sys/resource.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

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

/**
 * @brief Raises the soft open-file limit to the hard one: every client connection is a descriptor, and
 * the soft default (1024) is as low as max_connections' default. Returns the limit now in force.
 */
rlim_t raise_open_file_limit(Logger const& log) {
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return 0;
    if (lim.rlim_cur < lim.rlim_max) {
        rlimit want = lim;
        want.rlim_cur = lim.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &want) == 0)
            lim = want;
        else
            log.warn("cannot raise the open-file limit to " + std::to_string(lim.rlim_max));
    }
    return lim.rlim_cur;
}

} // namespace

int serve_command(Config const& cfg, Logger const& log) {
    for (auto const& w : config_warnings(cfg))
        log.warn(w);
    auto const nofile = raise_open_file_limit(log);
    log.info(
        "open-file limit " + (nofile == RLIM_INFINITY ? std::string("unlimited") : std::to_string(nofile))
    );
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
    // One io_context per HTTP thread, each run by that thread alone, like nginx's worker processes: a
    // request then never takes a lock in the scheduler or wakes another thread. The refreshers and the
    // signals run on a control context of their own, so rendering a large feed never holds up requests;
    // the accept loop has a thread of its own too, or a first render of a large feed would delay every new
    // connection.
    net::io_context ioc(1);
    net::io_context accept_ioc(1);
    auto accept_running = net::make_work_guard(accept_ioc);
    std::vector<std::unique_ptr<net::io_context>> workers;
    std::vector<net::any_io_executor> worker_executors;
    std::vector<net::executor_work_guard<net::io_context::executor_type>> keep_running;
    for (int i = 0; i < threads; ++i) {
        workers.push_back(std::make_unique<net::io_context>(1));
        worker_executors.push_back(workers.back()->get_executor());
        keep_running.push_back(net::make_work_guard(*workers.back()));
    }
    Server server(accept_ioc.get_executor(), cfg, store, log, worker_executors);
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
    pipeline = std::make_unique<Pipeline>(
        cfg,
        refreshers.executor(),
        log,
        [&store](std::string_view source, unsigned status, std::chrono::duration<double> took) {
            store.upstream_metrics().record(source, status, took);
        }
    );
    store.upstream_metrics().set_budget_source([p = pipeline.get()] {
        std::vector<BudgetGauge> out;
        for (auto const& b : p->budgets())
            out.push_back(BudgetGauge{
                b.source,
                b.budget.calls,
                static_cast<long long>(b.budget.period.count()),
                b.used,
                b.left,
                b.waiting_for ? static_cast<long long>(b.waiting_for->count()) : 0});
        return out;
    });
    // The Pipeline goes before the store: nothing may read its budgets after that.
    struct BudgetSourceReset {
        UpstreamMetrics& m;
        ~BudgetSourceReset() { m.set_budget_source({}); }
    } budget_source_reset{store.upstream_metrics()};

    net::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](boost::system::error_code const& e, int sig) {
        if (e)
            return;
        log.info("signal " + std::to_string(sig) + ": shutting down");
        server.stop();
        refreshers.stop();
    });

    std::atomic<int> remaining{2};
    // server.run() returns once every connection has ended; the workers then have nothing left to do.
    auto server_done = [&keep_running,
                        &accept_running,
                        inner = on_done(log, "server", remaining, ioc)](std::exception_ptr e) {
        for (auto& guard : keep_running)
            guard.reset();
        accept_running.reset();
        inner(e);
    };
    net::co_spawn(ioc, server.run(), server_done);
    net::co_spawn(ioc, refreshers.run(), on_done(log, "refreshers", remaining, ioc));
    log.info(
        "listening on http://" + cfg.server.host + ":" + std::to_string(*port) + " (" +
        std::to_string(threads) + " HTTP thread(s))"
    );

    std::vector<std::thread> pool;
    for (auto& w : workers)
        pool.emplace_back([&w] { w->run(); });
    pool.emplace_back([&accept_ioc] { accept_ioc.run(); });
    ioc.run();
    for (auto& t : pool)
        t.join();
    log.info("stopped");
    return 0;
}

} // namespace icsbridge
