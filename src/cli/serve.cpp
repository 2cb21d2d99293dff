// File: serve.cpp
// The `serve` command: load the last-good snapshots, listen, refresh in the background, re-read the
// config on SIGHUP, and stop cleanly on SIGINT/SIGTERM (stop accepting, finish requests in flight, exit 0).
#include "cli/serve.hpp"

#include "cli/generation.hpp"
#include "cli/reload_plan.hpp"
#include "cluster/cluster_node.hpp"
#include <icsbridge/server.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
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
    return [&log, what = std::move(what), &remaining, &ioc](std::exception_ptr e) {
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

/** @brief What SIGHUP and the hooks act on; touched only on the control context's thread. */
struct Control {
    net::io_context& ioc;
    Logger const& log;
    FeedStore& store;
    Metrics& metrics;
    LiveConfig& live;
    RefreshOptions opts;
    std::shared_ptr<Generation> current;
    bool stopping = false;
    std::function<void(std::shared_ptr<Generation>)> start; ///< runs a generation's refreshers
    std::shared_ptr<SharedCalls> shared_calls; ///< cluster mode: the budgets counted in the database

    /** @brief SIGHUP: the new config, or the old one kept and the refusal logged and shown. */
    void reload() {
        if (stopping)
            return;
        auto const now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
        auto const before = live.get();
        log.info("SIGHUP: reloading " + before->path);
        auto next = load_config(before->path, process_env());
        if (!next) {
            log.error("reload refused, the running config stays: " + next.error().message);
            store.record_reload({now, false, next.error().message});
            return;
        }
        auto plan = plan_reload(*before, *next);
        for (auto const& key : plan.restart_needed)
            log.warn("reload: " + key + " changed; it takes effect only after a restart");
        for (auto const& w : config_warnings(*next))
            log.warn(w);
        auto cfg = std::make_shared<Config const>(std::move(*next));
        // The store first: a new feed must exist before its first refresh publishes, and from the next
        // request on, tokens, removed feeds and pages follow the new config.
        auto opts_next = opts;
        opts_next.first_wait = resume_kept(plan, store);
        store.reconfigure(*cfg);
        live.set(cfg);
        current->merged.reset(); // the store's one publish listener goes to the new generation
        auto fresh =
            make_generation(cfg, ioc.get_executor(), store, metrics.upstream, log, opts_next, current.get());
        if (shared_calls)
            fresh->pipeline->share_budgets(shared_calls);
        show_budgets(metrics.upstream, *fresh->pipeline);
        auto old = std::exchange(current, fresh);
        old->refreshers->stop(); // its run() ends soon; its completion lets it go
        start(fresh);
        log.info(
            "reloaded: " + std::to_string(plan.added.size()) + " feed(s) added, " +
            std::to_string(plan.removed.size()) + " removed, " + std::to_string(plan.changed.size()) +
            " changed (fetched again now), " + std::to_string(plan.kept.size()) + " kept"
        );
        store.record_reload({now, true, {}});
    }
};

} // namespace

int serve_command(Config const& start_cfg, Logger const& log) {
    for (auto const& w : config_warnings(start_cfg))
        log.warn(w);
    auto const nofile = raise_open_file_limit(log);
    log.info(
        "open-file limit " + (nofile == RLIM_INFINITY ? std::string("unlimited") : std::to_string(nofile))
    );
    // What only a restart changes (listen, threads, storage.dir, gzip) is read from here, once.
    auto const cfg = std::make_shared<Config const>(start_cfg);
    LiveConfig live(cfg);
    std::error_code ec;
    std::filesystem::create_directories(cfg->storage.dir, ec);
    if (ec) {
        log.error("cannot create storage directory " + cfg->storage.dir + ": " + ec.message());
        return 1;
    }
    // /metrics' counters (requests, webhooks, upstream attempts), shared by the server and the clients.
    Metrics metrics;
    FeedStore store(*cfg);
    // Where last good snapshots are kept: files under storage.dir on a single box; in a cluster the
    // database's rows, with those files as the local cache.
    std::unique_ptr<cluster::ClusterNode> node;
    std::shared_ptr<SnapshotBackend> snapshots = std::make_shared<DiskSnapshots>(cfg->storage.dir);
    if (cfg->cluster) {
        node = std::make_unique<cluster::ClusterNode>(*cfg->cluster, cfg->storage.dir, store, log);
        snapshots = node->snapshots();
    }
    // A replica starts from its own disk copies in a cluster too: the node's first tick, before any refresh,
    // keeps per feed the newer of that copy and the database's row, so a calendar fetched alone while the
    // database was away is not replaced by an older row after a restart.
    DiskSnapshots disk(cfg->storage.dir);
    auto loaded = store.load_from(disk, log);
    log.info(
        "loaded " + std::to_string(loaded) + " of " + std::to_string(cfg->feeds.size()) +
        " feed snapshot(s) from " + disk.where()
    );

    int threads = cfg->server.threads > 0
                      ? cfg->server.threads
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
        worker_executors.emplace_back(workers.back()->get_executor());
        keep_running.push_back(net::make_work_guard(*workers.back()));
    }

    Control control{ioc, log, store, metrics, live, {}, nullptr, false, {}, nullptr};
    control.opts.snapshots = snapshots;
    if (node)
        control.opts.turn = [n = node.get()](FeedGroup const& g) { return n->turn(g); };
    control.current = make_generation(cfg, ioc.get_executor(), store, metrics.upstream, log, control.opts);
    if (node) {
        control.shared_calls = node->shared_calls();
        control.current->pipeline->share_budgets(control.shared_calls);
        // A webhook any replica received: every replica wakes the source's refreshers, and the lease
        // holder's refresh is the one that goes on.
        node->on_hook([&control](std::string const& source) {
            if (!control.stopping)
                control.current->refreshers->poke(source);
        });
    }
    show_budgets(metrics.upstream, *control.current->pipeline);
    // The pipeline goes before the store: nothing may read its budgets after that.
    struct BudgetSourceReset {
        UpstreamMetrics& m;
        ~BudgetSourceReset() { m.set_budget_source({}); }
    } budget_source_reset{metrics.upstream};

    // Hooks arrive on the HTTP threads; the generation in force is the control thread's to know.
    auto live_ptr = std::shared_ptr<LiveConfig const>(&live, [](LiveConfig const*) {});
    Server server(
        accept_ioc.get_executor(),
        live_ptr,
        store,
        metrics,
        log,
        worker_executors,
        [&](std::string const& source) {
            net::post(ioc, [&control, &node, source] {
                if (control.stopping)
                    return;
                // In a cluster the lease holder may be another replica: tell them all through the
                // database; alone (no cluster, or the database away), refresh here.
                if (node && node->announce_hook(source))
                    return;
                control.current->refreshers->poke(source);
            });
        }
    );
    auto port = server.listen();
    if (!port) {
        log.error(port.error().message);
        return 1;
    }

    std::atomic<int> remaining{2};
    auto refreshers_done = on_done(log, "refreshers", remaining, ioc);
    // A generation replaced by a reload just ends; the one in force at shutdown ends the service.
    control.start = [&](std::shared_ptr<Generation> gen) {
        auto* runner = gen->refreshers.get();
        net::co_spawn(ioc, runner->run(), [&, gen](std::exception_ptr e) {
            if (gen == control.current)
                refreshers_done(e);
        });
    };

    net::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](boost::system::error_code const& e, int sig) {
        if (e)
            return;
        log.info("signal " + std::to_string(sig) + ": shutting down");
        control.stopping = true;
        server.stop();
        control.current->refreshers->stop();
        if (node)
            node->stop();
    });
    net::signal_set hangups(ioc, SIGHUP);
    std::function<void()> await_hangup = [&] {
        hangups.async_wait([&](boost::system::error_code const& e, int) {
            if (e || control.stopping)
                return;
            control.reload();
            await_hangup();
        });
    };
    await_hangup();

    // server.run() returns once every connection has ended; the workers then have nothing left to do.
    auto server_done = [&keep_running,
                        &accept_running,
                        &hangups,
                        inner = on_done(log, "server", remaining, ioc)](std::exception_ptr e) {
        for (auto& guard : keep_running)
            guard.reset();
        accept_running.reset();
        boost::system::error_code ignored;
        hangups.cancel(ignored);
        inner(e);
    };
    net::co_spawn(ioc, server.run(), server_done);
    if (node)
        net::co_spawn(ioc, node->run(), [&log](std::exception_ptr e) {
            if (e)
                log.error("cluster: node failed; serving and refreshing on our own");
        });
    control.start(control.current);
    log.info(
        "listening on http://" + cfg->server.host + ":" + std::to_string(*port) + " (" +
        std::to_string(threads) + " HTTP thread(s))"
    );

    std::vector<std::thread> pool;
    pool.reserve(workers.size() + 1);
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
