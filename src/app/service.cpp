// File: service.cpp
// Service: builds the parts of `serve` in one order, wires the publications, runs the threads, reloads on
// SIGHUP (service_reload.cpp) and stops cleanly on SIGINT/SIGTERM (stop accepting, finish requests in
// flight, exit 0).
#include "app/service.hpp"

#include "app/backends.hpp"
#include "app/connect_wiring.hpp"
#include "app/dav_wiring.hpp"
#include "app/push_persistence.hpp"
#include "connect/connect_routes.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <exception>

namespace icsbridge {

namespace {

namespace net = boost::asio;

/** @brief One log line for a top-level coroutine that failed; nothing for one that ended normally. */
void log_failure(Logger const& log, std::string const& what, std::exception_ptr const& e) {
    if (!e)
        return;
    try {
        std::rethrow_exception(e);
    } catch (std::exception const& ex) {
        log.error(what + " failed: " + ex.what());
    }
}

/** @brief The log's view of a publication: one line per refresh, and per change of anything else. */
Publisher::Subscriber log_publications(Logger const& log) {
    return [&log](Publication const& p) {
        if (!p.changed && p.origin != Origin::fetched)
            return;
        log.info(
            "feed " + p.feed + ": " + std::to_string(p.snapshot->items) + " items, " +
            std::to_string(p.snapshot->body.size()) + " bytes, " + (p.changed ? "changed" : "unchanged") +
            (p.origin == Origin::fetched ? std::string() : " (" + std::string(to_string(p.origin)) + ")")
        );
    };
}

} // namespace

Service::Service(Config const& cfg, Logger const& log)
    : log_(log)
    , cfg_(std::make_shared<Config const>(cfg))
    , live_(cfg_)
    , backends_(cli::make_backends(*cfg_, log_))
    , store_(*cfg_)
    , node_(
          cfg_->cluster ? std::make_unique<cluster::ClusterNode>(
                              *cfg_->cluster,
                              cfg_->storage.dir,
                              store_,
                              publisher_,
                              log_,
                              cluster_.get_executor(),
                              control_.get_executor()
                          )
                        : nullptr
      )
    , keeper_(std::make_shared<SnapshotKeeper>(cli::kept_snapshots(*cfg_, node_.get(), dav_, store_), log_))
    , publisher_(store_, keeper_, log_, cfg_->server.gzip) {
    restore();
    push_ = make_push();
    push_->configure(cfg_);
    subscribe();
    cli::resume_history(dav_.get(), store_);
    if (node_) {
        refresh_opts_.lease_wait = [n = node_.get()](FeedGroup const& g) { return n->lease_wait(g); };
        shared_calls_ = node_->shared_calls();
        // A webhook any replica received: every replica wakes the source's refreshers, and the lease
        // holder's refresh is the one that goes on. Heard on the database thread; the refreshers are the
        // control thread's.
        node_->on_hook([this](std::string const& source, std::string const& event_id) {
            net::post(control_, [this, source, event_id] {
                if (!stopping_)
                    current_->refreshers->hook(source, event_id);
            });
        });
        keep_cluster_.emplace(cluster_.get_executor());
    }
    refresh_opts_.on_hook_work = [this](std::string const& source, std::string_view kind) {
        metrics_.upstream.record_hook_work(source, kind);
    };
    current_ = next_generation(cfg_, refresh_opts_);

    int const threads = cfg_->server.threads > 0
                            ? cfg_->server.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // One io_context per HTTP thread, each run by that thread alone, like nginx's worker processes: a
    // request then never takes a lock in the scheduler or wakes another thread. The refreshers run on the
    // control context, so rendering a large feed never holds up requests; the accept loop has a thread of
    // its own too, or a first render of a large feed would delay every new connection.
    std::vector<net::any_io_executor> executors;
    for (int i = 0; i < threads; ++i) {
        workers_.push_back(std::make_unique<net::io_context>(1));
        executors.emplace_back(workers_.back()->get_executor());
        keep_running_.push_back(net::make_work_guard(*workers_.back()));
    }
    keep_running_.push_back(net::make_work_guard(accept_));
    // Hooks arrive on the HTTP threads; the generation in force is the control thread's to know.
    server_ = std::make_unique<Server>(
        accept_.get_executor(),
        std::shared_ptr<LiveConfig const>(&live_, [](LiveConfig const*) {}),
        store_,
        views_,
        metrics_,
        log_,
        std::move(executors),
        [this](std::string const& source, std::string const& event_id) {
            net::post(control_, [this, source, event_id] { hook(source, event_id); });
        }
    );
    revoked_ = std::make_shared<RevokedTokens>(
        cfg_->storage.dir,
        std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())
    );
    server_->set_revoked(revoked_);
    wire_dav();
    wire_connections();
}

void Service::wire_dav() {
    server_->set_dav(dav_);
    if (!dav_)
        return;
    dav_push_ = cli::make_dav_push(*cfg_, log_);
    server_->set_push(dav_push_.registry);
    if (!dav_push_.registry || !dav_push_.vapid)
        return;
    // After the history's subscriber: the token a message carries is the one a sync request is answered.
    sender_ = cli::make_sender(*cfg_, dav_push_.registry, *dav_push_.vapid, metrics_.webpush, log_);
    subscriptions_.push_back(publisher_.subscribe(cli::send_pushes(
        sender_,
        dav_,
        dav_push_.registry,
        node_ != nullptr,
        std::shared_ptr<LiveConfig const>(&live_, [](LiveConfig const*) {}) // a member: outlives the
                                                                            // subscription
    )));
    metrics_.webpush.enabled = true;
}

Service::~Service() {
    // A coroutine of the control context may keep the pipeline alive past metrics_: nothing may push there.
    if (current_)
        current_->pipeline->stop_showing_budgets();
}

void Service::wire_connections() {
    if (!cfg_->connect)
        return;
    connections_ = cli::make_connections(
        cfg_,
        *push_,
        connection_status_,
        backends_.push_state,
        backends_.connections(),
        log_
    );
    connections_->count_into(metrics_.connections);
    server_->set_async_routes(std::make_shared<connect::ConnectRoutes>(*connections_, log_));
}

void Service::restore() {
    // A replica starts from its own disk copies in a cluster too: the node's first tick, before any refresh,
    // keeps per feed the newer of that copy and the database's row, so a calendar fetched alone while the
    // database was away is not replaced by an older row after a restart.
    DiskSnapshots disk(cfg_->storage.dir, store_.files());
    auto const restored = restore_snapshots(publisher_, store_, disk, log_);
    log_.info(
        "loaded " + std::to_string(restored) + " of " + std::to_string(cfg_->feeds.size()) +
        " feed snapshot(s) from " + disk.where()
    );
}

void Service::subscribe() {
    // In this order after the served table and the keeper (Publisher's own steps). The merged feeds
    // subscribe per generation (next_generation), a reload replacing them.
    subscriptions_.push_back(publisher_.subscribe([this](Publication const& p) {
        if (p.changed)
            views_.drop(p.feed);
    }));
    subscriptions_.push_back(publisher_.subscribe(log_publications(log_)));
    subscriptions_.push_back(publisher_.subscribe([this](Publication const& p) {
        if (p.changed)
            push_->published(p.feed);
    }));
    // The CalDAV collections: each publication recorded in the history, which the keeper keeps with it;
    // cut before it is served, off the control thread.
    if (dav_) {
        publisher_.prepare_with(cli::prepare_publications(dav_));
        subscriptions_.push_back(publisher_.subscribe(cli::record_publications(dav_)));
    }
    // From here on (the kept snapshots restored), a publication's ETag, gzip and CalDAV cut are made on
    // threads of the publisher's own, and only its swap and the subscribers run on the control thread: a
    // large feed's publication holds up no webhook's patch or reload. Three threads: two large feeds at
    // once still leave one for a small one.
    publisher_.prepare_on(3, [this](std::function<void()> step) { net::post(control_, std::move(step)); });
}

std::unique_ptr<push::PushService> Service::make_push() {
    // The connections' state too (wire_connections, after this). In a cluster another replica may take a
    // target's lease and write its row in between: saved as it goes.
    if (!cfg_->cluster) {
        // Without rows, a save is just its state file's write (make_backends): written in batches.
        saver_ = std::make_unique<push::StateSaver>(log_);
        backends_.push_state =
            saver_->keeping(std::move(backends_.push_state), push::state_files(cfg_->storage.dir));
    }
    auto authorizers = cli::oauth_authorizers(backends_.tokens, cfg_->path, log_);
    return std::make_unique<push::PushService>(
        store_,
        metrics_.push,
        backends_.push_state,
        log_,
        push_lease_wait(),
        std::move(authorizers),
        &connection_status_
    );
}

push::LeaseWait Service::push_lease_wait() {
    if (!node_)
        return {};
    // One replica pushes a target at a time: a lease named after it, claimed and renewed as a feed group's.
    return [node = node_.get()](std::string const& target) -> net::awaitable<std::chrono::milliseconds> {
        FeedGroup group;
        group.key = cli::push_lease_name(target);
        auto claim = node->lease_wait(group);
        co_return co_await std::move(claim);
    };
}

std::shared_ptr<Generation> Service::next_generation(std::shared_ptr<Config const> cfg, RefreshOptions opts) {
    auto gen = make_generation(
        std::move(cfg),
        control_.get_executor(),
        store_,
        publisher_,
        metrics_.upstream,
        log_,
        std::move(opts),
        current_.get()
    );
    if (shared_calls_)
        gen->pipeline->share_budgets(shared_calls_);
    // /metrics shows this config's budgets: the replaced one's push no more (a refresh still running
    // there could otherwise show the old budget of a source whose budget the reload changed).
    if (current_)
        current_->pipeline->stop_showing_budgets();
    gen->pipeline->show_budgets(metrics_.upstream);
    return gen;
}

void Service::start_generation(std::shared_ptr<Generation> gen) {
    auto* runner = gen->refreshers.get();
    // A generation replaced by a reload just ends; the one in force at shutdown ends the service.
    net::co_spawn(control_, runner->run(), [this, gen](std::exception_ptr const& e) {
        if (gen != current_)
            return;
        log_failure(log_, "refreshers", e);
        if (--remaining_ == 0)
            control_.stop();
    });
}

void Service::hook(std::string const& source, std::string const& event_id) {
    if (stopping_)
        return;
    // In a cluster the lease holder may be another replica: tell them all through the database; alone
    // (no cluster, or the database away), here.
    if (!node_) {
        current_->refreshers->hook(source, event_id);
        return;
    }
    node_->announce_hook(source, event_id, [this, source, event_id] {
        net::post(control_, [this, source, event_id] {
            if (!stopping_)
                current_->refreshers->hook(source, event_id);
        });
    });
}

void Service::stop() {
    stopping_ = true;
    server_->stop();
    current_->refreshers->stop();
    push_->stop();
    if (sender_)
        sender_->stop();
    if (dav_push_.registry)
        net::post(control_.get_executor(), [this] {
            push_upkeep_stop_.emit(net::cancellation_type::terminal); // what a coroutine lets through
        });
    if (node_)
        node_->stop();
}

void Service::await_hangup() {
    hangups_.async_wait([this](boost::system::error_code const& e, int) {
        if (e || stopping_)
            return;
        reload();
        await_hangup();
    });
}

int Service::run() {
    auto port = server_->listen();
    if (!port) {
        log_.error(port.error().message);
        return 1;
    }
    stops_.async_wait([this](boost::system::error_code const& e, int sig) {
        if (e)
            return;
        log_.info("signal " + std::to_string(sig) + ": shutting down");
        stop();
    });
    await_hangup();
    // server.run() returns once every connection has ended; the workers then have nothing left to do.
    net::co_spawn(control_, server_->run(), [this](std::exception_ptr const& e) {
        keep_running_.clear();
        boost::system::error_code ignored;
        hangups_.cancel(ignored);
        log_failure(log_, "server", e);
        // Pooled upstream connections may still hold work; nothing else is left to finish.
        if (--remaining_ == 0)
            control_.stop();
    });
    if (node_)
        net::co_spawn(cluster_, node_->run(), [this](std::exception_ptr const& e) {
            if (e)
                log_.error("cluster: node failed; serving and refreshing on our own");
        });
    start_generation(current_);
    // On the control thread, which stops when the rest has ended (a timer left there holds nothing up).
    cli::start_upkeep(dav_push_, control_.get_executor(), push_upkeep_stop_.slot(), log_);
    log_.info(
        "listening on http://" + cfg_->server.host + ":" + std::to_string(*port) + " (" +
        std::to_string(workers_.size()) + " HTTP thread(s))"
    );
    run_threads();
    // Publications still being prepared have no control thread left to take effect on.
    publisher_.stop_preparing();
    // Whatever was published last is on disk (or in the database) before the process ends.
    keeper_->flush();
    log_.info("stopped");
    return 0;
}

void Service::run_threads() {
    std::vector<std::thread> pool;
    pool.reserve(workers_.size() + 2);
    for (auto& w : workers_)
        pool.emplace_back([&w] { w->run(); });
    pool.emplace_back([this] { accept_.run(); });
    if (node_)
        pool.emplace_back([this] { cluster_.run(); });
    control_.run();
    // The node has released its leases by now or will after its statement in flight; then its thread ends.
    keep_cluster_.reset();
    for (auto& t : pool)
        t.join();
}

} // namespace icsbridge
