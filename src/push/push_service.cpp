// File: push_service.cpp
// PushService and its TargetLoops. Everything here runs on the push thread: publications and reloads are
// posted to it, so the loops' flags and the loop table need no lock. A loop reads the served snapshots
// (ServedFeeds is thread-safe) when it reconciles, never a copy taken at publication.
#include "push/push_service.hpp"

#include "push/fair_budget.hpp"
#include "push/target_loop.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace icsbridge::push {

namespace net = boost::asio;

namespace {

std::vector<Mirrored> mirrored_into(Config const& cfg, std::string const& target) {
    std::vector<Mirrored> out;
    for (auto const& f : cfg.feeds)
        for (auto const& to : f.push)
            if (to.target == target)
                out.push_back(Mirrored{f.name, to.view});
    return out;
}

/** The drift repair period: the shortest refresh of the feeds mirrored (an hour when none). */
std::chrono::seconds period_of(Config const& cfg, std::vector<Mirrored> const& feeds) {
    std::chrono::seconds p = std::chrono::hours(1);
    for (auto const& m : feeds)
        if (auto const* f = cfg.find_feed(m.feed))
            p = std::min(p, std::chrono::duration_cast<std::chrono::seconds>(f->refresh));
    return std::max<std::chrono::seconds>(p, std::chrono::seconds(10));
}

/**
 * A thousand connections' reconciles free most of what they allocate, but glibc keeps the freed pages (of
 * every thread's arena) unless asked: measured in bench-connect.sh at 1,000 connections, 108 of 270 MiB of
 * RSS were free pages, given back by one malloc_trim(0).
 */
void give_back_free_pages() {
#if defined(__GLIBC__)
    ::malloc_trim(0);
#endif
}

} // namespace

PushService::PushService(
    ServedFeeds const& store,
    PushStatus& status,
    PersistenceFor<KeptState> keeping,
    Logger log,
    LeaseWait lease_wait,
    Authorizers authorizers,
    PushStatus* connection_status
)
    : store_(store)
    , status_(status)
    , keeping_(std::move(keeping))
    , log_(std::move(log))
    , lease_wait_(std::move(lease_wait))
    , authorizers_(std::move(authorizers))
    , keep_(ioc_.get_executor())
    , connection_status_(connection_status)
    , thread_([this] { ioc_.run(); }) {}

PushService::~PushService() {
    try {
        stop();
        if (thread_.joinable())
            thread_.join();
    } catch (...) { // at exit: nothing is left to tell, and the thread must not outlive a join that threw
        if (thread_.joinable())
            thread_.detach();
    }
}

void PushService::configure(std::shared_ptr<Config const> cfg) {
    net::post(ioc_, [this, cfg = std::move(cfg)] { apply(cfg); });
}

void PushService::apply(std::shared_ptr<Config const> const& cfg) {
    if (stopping_)
        return;
    cfg_ = cfg;
    std::vector<std::string> names;
    for (auto const& [name, t] : cfg->targets)
        if (!mirrored_into(*cfg, name).empty())
            names.push_back(name); // an unused target is left alone: nothing to show
    status_.set_targets(names);
    // A target whose settings or feeds changed starts anew (its state file carries over); one gone stops.
    for (auto it = loops_.begin(); it != loops_.end();) {
        auto const* t = cfg->find_target(it->first);
        auto const feeds = mirrored_into(*cfg, it->first);
        if (t && it->second->same(*t, feeds, period_of(*cfg, feeds))) {
            ++it;
            continue;
        }
        it->second->stop();
        it = loops_.erase(it);
    }
    for (auto const& [name, t] : cfg->targets) {
        if (loops_.contains(name))
            continue;
        auto feeds = mirrored_into(*cfg, name);
        if (feeds.empty())
            continue; // no feed pushes into it: its calendar is left alone (`check` says so)
        auto const period = period_of(*cfg, feeds);
        auto auth = authorizers_ && t.type != TargetType::caldav ? authorizers_(ioc_.get_executor(), t)
                                                                 : Authorizer{};
        auto loop = std::make_shared<TargetLoop>(
            ioc_.get_executor(),
            t,
            std::move(feeds),
            period,
            TargetLoop::Deps{
                store_,
                status_,
                keeping_,
                log_,
                lease_wait_,
                {},
                tls_,
                lookups_,
                claims_,
                shared_items_},
            std::move(auth)
        );
        loops_.emplace(name, loop);
        start(name, std::move(loop));
    }
}

void PushService::start(std::string const& name, std::shared_ptr<TargetLoop> loop) {
    ++running_;
    net::co_spawn(ioc_, loop->run(), [this, target = name](std::exception_ptr const& e) {
        if (e)
            log_.error("push " + target + ": the target's loop failed; it pushes again after a restart");
        if (--running_ == 0 && stopping_)
            ioc_.stop();
    });
}

void PushService::set_connections(std::vector<ConnectionTarget> connections, Budget rate) {
    // The newest list replaces one the push thread has not taken yet: each new connection sends the whole
    // list, and a thousand flows at once queued hundreds of them, a thousand targets each (issue 39).
    {
        std::lock_guard lock(pending_mtx_);
        bool const posted = pending_connections_.has_value();
        pending_connections_.emplace(std::move(connections), rate);
        if (posted)
            return;
    }
    net::post(ioc_, [this] {
        std::optional<std::pair<std::vector<ConnectionTarget>, Budget>> newest;
        {
            std::lock_guard lock(pending_mtx_);
            newest.swap(pending_connections_);
        }
        if (newest)
            apply_connections(newest->first, newest->second);
    });
}

void PushService::apply_connections(std::vector<ConnectionTarget> const& connections, Budget rate) {
    if (stopping_ || !connection_status_)
        return;
    if (!shared_) {
        shared_ = std::make_shared<FairBudget>(ioc_.get_executor(), rate);
        net::co_spawn(ioc_, give_back_memory(), net::detached);
    } else
        shared_->set_rate(rate);
    std::vector<std::string> names;
    names.reserve(connections.size());
    for (auto const& c : connections)
        names.push_back(c.target.name);
    connection_status_->set_targets(names);
    std::map<std::string, ConnectionTarget const*> wanted;
    for (auto const& c : connections)
        wanted.emplace(c.target.name, &c);
    auto period_for = [this](Mirrored const& m) {
        return cfg_ ? period_of(*cfg_, {m}) : std::chrono::seconds(std::chrono::hours(1));
    };
    for (auto it = connection_loops_.begin(); it != connection_loops_.end();) {
        auto w = wanted.find(it->first);
        if (w != wanted.end() &&
            it->second->same(w->second->target, {w->second->feed}, period_for(w->second->feed))) {
            ++it;
            continue;
        }
        it->second->stop();
        it = connection_loops_.erase(it);
    }
    for (auto const& c : connections) {
        if (connection_loops_.contains(c.target.name))
            continue;
        // Each request waits its turn in the budget every connection shares, one request per connection
        // per round: a 10,000-event upload goes on beside a 5-event one instead of ahead of it.
        Gate gate = [budget = shared_, name = c.target.name] { return budget->take(name); };
        auto loop = std::make_shared<TargetLoop>(
            ioc_.get_executor(),
            c.target,
            std::vector<Mirrored>{c.feed},
            period_for(c.feed),
            TargetLoop::Deps{
                store_,
                *connection_status_,
                keeping_,
                log_,
                lease_wait_,
                std::move(gate),
                tls_,
                lookups_,
                nullptr,
                shared_items_},
            c.authorizer ? c.authorizer(ioc_.get_executor()) : Authorizer{}
        );
        connection_loops_.emplace(c.target.name, loop);
        start(c.target.name, std::move(loop));
    }
}

net::awaitable<void> PushService::give_back_memory() {
    net::steady_timer tick(ioc_);
    std::uint64_t seen = 0;
    while (!stopping_) {
        tick.expires_after(std::chrono::seconds(1));
        co_await tick.async_wait(net::as_tuple(net::use_awaitable));
        if (stopping_ || !shared_)
            co_return;
        if (shared_->granted() != seen) {
            seen = shared_->granted();
            give_back_free_pages();
        }
    }
}

void PushService::drop_connection(std::string const& name) {
    net::post(ioc_, [this, name] {
        if (auto it = connection_loops_.find(name); it != connection_loops_.end()) {
            it->second->stop();
            connection_loops_.erase(it);
        }
    });
}

void PushService::published(std::string const& feed) {
    net::post(ioc_, [this, feed] {
        shared_items_->forget(feed); // what was shaped from its last calendar is shaped again once
        for (auto* table : {&loops_, &connection_loops_})
            for (auto& [name, loop] : *table)
                if (loop->mirrors(feed))
                    loop->wake();
    });
}

void PushService::stop() {
    net::post(ioc_, [this] {
        if (stopping_)
            return;
        stopping_ = true;
        for (auto* table : {&loops_, &connection_loops_}) {
            for (auto& [name, loop] : *table)
                loop->stop();
            table->clear();
        }
        if (shared_)
            shared_->stop();
        keep_.reset();
        if (running_ == 0) {
            ioc_.stop();
            return;
        }
        // A write in flight to a slow target gets a few seconds; the state has what landed before it.
        auto grace = std::make_shared<net::steady_timer>(ioc_, std::chrono::seconds(3));
        grace->async_wait([this, grace](boost::system::error_code const&) { ioc_.stop(); });
    });
}

} // namespace icsbridge::push
