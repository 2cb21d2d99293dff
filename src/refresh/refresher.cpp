// File: refresher.cpp
// The refresh loops: one per group of feeds, all on one strand, with jitter, backoff, confirmation of
// large drops; what they fetch goes to the Publisher, what fails to the feed's status.
#include "pipeline/fetch_within.hpp"
#include "refresh/hook_hand_over.hpp"
#include "refresh/refresh_loop.hpp"
#include "util/run_on.hpp"
#include "util/use_tuple.hpp"
#include <icsbridge/refresh.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <set>

namespace icsbridge {

namespace {

namespace net = boost::asio;
using namespace boost::asio::experimental::awaitable_operators;

sys_seconds wall_now() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

} // namespace

struct Refreshers::Impl {
    Impl(
        net::any_io_executor ex,
        Config const& cfg,
        ServedFeeds& s,
        Publisher& p,
        GroupFetch f,
        Logger l,
        RefreshOptions o
    )
        : strand(net::make_strand(ex))
        , groups(group_feeds(cfg))
        , store(s)
        , publisher(p)
        , fetch(std::move(f))
        , log(std::move(l))
        , opts(std::move(o))
        , rng(std::random_device{}()) {}

    net::strand<net::any_io_executor> strand;
    std::vector<FeedGroup> groups;
    ServedFeeds& store;
    Publisher& publisher;
    GroupFetch fetch;
    Logger log;
    RefreshOptions opts;
    std::mt19937 rng;
    // Only touched on the strand.
    bool stopped = false;
    std::set<net::steady_timer*> timers;
    net::steady_timer stop_timer{strand, std::chrono::steady_clock::time_point::max()};
    std::size_t running = 0; ///< loops not yet ended
    std::vector<GroupWake> wake = make_wakes();

    std::vector<GroupWake> make_wakes() {
        HookSchedule::Limits const limits{
            opts.hook_delay,
            opts.hook_gap,
            opts.hook_refreshes,
            opts.hook_window};
        std::vector<GroupWake> out;
        out.reserve(groups.size());
        for (auto const& g : groups) {
            RefreshLoop::Policy policy{g.refresh, opts.retry_initial, static_cast<bool>(opts.lease_wait), {}};
            policy.jitter = [this](std::chrono::seconds base) { return jittered(base); };
            out.push_back(GroupWake{RefreshLoop(std::move(policy), limits), nullptr, {}});
        }
        return out;
    }
    net::steady_timer all_done{strand, std::chrono::steady_clock::time_point::max()};

    /** @brief Waits `d`; false if stop() came first. */
    net::awaitable<bool> sleep(std::chrono::steady_clock::duration d) {
        if (stopped)
            co_return false;
        net::steady_timer t(strand, d);
        timers.insert(&t);
        co_await t.async_wait(use_tuple);
        timers.erase(&t);
        co_return !stopped;
    }

    /** @brief Waits until `until`, or until hook() moves the group's schedule. */
    net::awaitable<void> wait_until(std::size_t gi, std::chrono::steady_clock::time_point until) {
        if (stopped)
            co_return;
        net::steady_timer t(strand, until);
        timers.insert(&t);
        wake[gi].sleeper = &t;
        co_await t.async_wait(use_tuple); // hook() cancels it to move the target
        wake[gi].sleeper = nullptr;
        timers.erase(&t);
    }

    /**
     * @brief A webhook for `source` (naming event `id`, or none): each of its groups reads that one event
     * after hook_delay when it can (patch), or else refreshes after hook_delay (so a burst is one refresh),
     * at least hook_gap after its last refresh began, and never more than hook_refreshes times in a
     * hook_window for hooks. `arrived`: when Refreshers::hook() was called, which hook_delay counts from.
     */
    void
    hook(std::string const& source, std::string const& id, std::chrono::steady_clock::time_point arrived) {
        for (std::size_t gi = 0; gi < groups.size(); ++gi) {
            if (groups[gi].feeds.front()->source != source)
                continue;
            wake[gi].loop.schedule().hooked(id, static_cast<bool>(opts.patch), arrived);
            if (wake[gi].sleeper)
                wake[gi].sleeper->cancel();
        }
    }

    /** @brief The events hooks named, each read and put in the group's answer; a refresh where that fails. */
    net::awaitable<void> apply_patches(std::size_t gi) {
        auto const ids = wake[gi].loop.schedule().take_patches();
        HookWorkUnderWay const reading(wake[gi], {ids, std::chrono::steady_clock::now(), std::nullopt});
        auto const& g = groups[gi];
        // In a cluster the lease holder reads the event; the others hear of its publish.
        if (opts.lease_wait && (co_await opts.lease_wait(g)).count() > 0)
            co_return;
        for (auto const& id : ids) {
            if (stopped || wake[gi].loop.schedule().refresh_due(std::chrono::steady_clock::now()))
                co_return; // a refresh is coming: it reads every event anyway
            // Raced with stop(): a read waiting for room in the budget must not hold a shutdown.
            auto read = co_await (opts.patch(g, id, wall_now()) || until_stopped());
            if (read.index() != 0)
                co_return;
            auto results = std::get<0>(std::move(read));
            if (!results) {
                wake[gi].loop.schedule().refresh_needed(std::chrono::steady_clock::now());
                co_return;
            }
            if (opts.on_hook_work)
                opts.on_hook_work(g.feeds.front()->source, "event");
            if (results->size() == g.feeds.size())
                publish(g, *results, Origin::patched);
            wake[gi].reading.events.erase(id);
        }
    }

    /** @brief Ends waits and fetches in flight; the loops end soon. On the strand. */
    void halt() {
        stopped = true;
        for (auto* t : timers)
            t->cancel();
        stop_timer.cancel();
    }

    /** @brief Completes on stop() (or when cancelled, e.g. by the other side of an `||`). */
    net::awaitable<void> until_stopped() {
        if (!stopped)
            co_await stop_timer.async_wait(use_tuple);
    }

    /** @brief The group's fetch, abandoned if stop() comes first. Records the fetch duration. */
    net::awaitable<std::optional<std::vector<Result<Calendar>>>> fetch_group(FeedGroup const& g) {
        if (stopped)
            co_return std::nullopt;
        auto t0 = std::chrono::steady_clock::now();
        // The shared fetch may take as long as the most patient feed allows; a feed with a shorter
        // fetch_timeout fails alone when it took longer (below), as it would have alone.
        auto limit = std::max(g.fetch_timeout, g.feeds.front()->fetch_timeout);
        auto bounded = fetch_within(fetch(g, wall_now()), limit);
        auto r = co_await (std::move(bounded) || until_stopped());
        if (r.index() == 1)
            co_return std::nullopt;
        auto const took = std::chrono::steady_clock::now() - t0;
        auto& got = std::get<0>(r);
        bool const timed_out = !got;
        std::vector<Result<Calendar>> out;
        if (!timed_out) {
            for (auto const* f : g.feeds)
                store.record_fetch_duration(f->name, took);
            out = std::move(*got);
        }
        // The losing fetch was cancelled (its requests end with it); nothing it read is published. A fetch
        // function that returns the wrong count is a bug: never let it publish to the wrong feed.
        if (out.size() != g.feeds.size())
            out.assign(
                g.feeds.size(),
                fail(errc::render_failed, "internal error: wrong number of rendered feeds")
            );
        for (std::size_t i = 0; i < g.feeds.size(); ++i)
            if (timed_out || took > g.feeds[i]->fetch_timeout)
                out[i] = fetch_too_slow(*g.feeds[i]);
        co_return out;
    }

    /** @brief Google deletes on the subscriber's side what a 200 no longer lists: is this drop too sudden? */
    bool suspicious_drop(FeedConfig const& f, Result<Calendar> const& r) const {
        if (!r)
            return false;
        auto snap = store.get(f.name);
        if (!snap)
            return false;
        if (snap->items > 0 && r->items == 0)
            return true;
        return snap->items >= opts.shrink_min_items && r->items * 2 < snap->items;
    }

    bool
    publish(FeedGroup const& g, std::vector<Result<Calendar>>& results, Origin origin = Origin::fetched) {
        bool all_ok = true;
        auto now = wall_now();
        for (std::size_t i = 0; i < g.feeds.size(); ++i) {
            auto const& name = g.feeds[i]->name;
            auto& r = results[i];
            if (!r) {
                all_ok = false;
                store.record_failure(name, r.error(), now);
                log.warn(
                    "feed " + name + ": refresh failed, keeping the last good snapshot: " + r.error().message
                );
                continue;
            }
            publisher.publish(name, std::move(r->ics), r->items, origin, now);
        }
        return all_ok;
    }

    net::awaitable<bool> refresh_once(std::size_t gi) {
        auto const& g = groups.at(gi);
        auto const now = std::chrono::steady_clock::now();
        // Whatever started this refresh, it reads the upstream after every hook received so far: until it
        // ends, that is hook work under way.
        bool const absorbs = wake.at(gi).loop.schedule().next().has_value();
        bool const hooked = wake.at(gi).loop.schedule().refresh_started(now);
        if (hooked && opts.on_hook_work)
            opts.on_hook_work(g.feeds.front()->source, "refresh");
        HookWorkUnderWay const reading(
            wake.at(gi),
            {{}, std::nullopt, absorbs ? std::optional(now) : std::nullopt}
        );

        auto results = co_await fetch_group(g);
        if (!results)
            co_return false;
        bool drop = false;
        for (std::size_t i = 0; i < g.feeds.size(); ++i)
            drop = drop || suspicious_drop(*g.feeds[i], (*results)[i]);
        if (drop) {
            log.warn(
                "feed " + g.feeds.front()->name +
                ": far fewer items than the current snapshot; fetching again to confirm before publishing"
            );
            bool const awake = co_await sleep(opts.confirm_delay);
            if (!awake)
                co_return false;
            results = co_await fetch_group(g);
            if (!results)
                co_return false;
        }
        co_return publish(g, *results);
    }

    std::chrono::steady_clock::duration jittered(std::chrono::seconds base) {
        std::uniform_real_distribution<double> d(1 - opts.jitter, 1 + opts.jitter);
        return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(static_cast<double>(base.count()) * d(rng))
        );
    }

    /** @brief Carries out one action of the group's loop; what the loop does next. */
    net::awaitable<RefreshLoop::Action> carry_out(std::size_t gi, RefreshLoop::Action action) {
        auto& policy = wake[gi].loop;
        auto const now = [] { return std::chrono::steady_clock::now(); };
        switch (action.kind) {
        case RefreshLoop::Action::wait:
            co_await wait_until(gi, action.until);
            co_return policy.woke(now());
        case RefreshLoop::Action::patch:
            co_await apply_patches(gi);
            co_return policy.woke(now());
        case RefreshLoop::Action::ask_lease: {
            auto const not_yet = co_await opts.lease_wait(groups[gi]);
            co_return policy.lease(not_yet, now());
        }
        case RefreshLoop::Action::refresh: {
            bool const ok = co_await refresh_once(gi);
            co_return policy.refreshed(ok, now());
        }
        }
        co_return action;
    }

    net::awaitable<void> loop(std::size_t gi) {
        std::chrono::steady_clock::duration first = opts.stagger * static_cast<int>(gi);
        if (opts.first_wait)
            if (auto w = opts.first_wait(groups[gi]))
                first = *w;
        auto action = wake[gi].loop.start(first, std::chrono::steady_clock::now());
        while (!stopped)
            action = co_await carry_out(gi, action);
    }
};

Refreshers::Refreshers(
    net::any_io_executor ex,
    Config const& cfg,
    ServedFeeds& store,
    Publisher& publisher,
    GroupFetch fetch,
    Logger log,
    RefreshOptions opts
)
    : impl_(
          std::make_shared<Impl>(ex, cfg, store, publisher, std::move(fetch), std::move(log), std::move(opts))
      ) {}

Refreshers::~Refreshers() = default;

net::any_io_executor Refreshers::executor() const {
    return impl_->strand;
}

std::vector<FeedGroup> const& Refreshers::groups() const {
    return impl_->groups;
}

// A static coroutine taking the shared state by value: the frame owns it for as long as the loops run.
net::awaitable<void> Refreshers::run_all(std::shared_ptr<Impl> impl) {
    impl->running += impl->groups.size();
    for (std::size_t i = 0; i < impl->groups.size(); ++i)
        net::co_spawn(impl->strand, impl->loop(i), [impl, i](std::exception_ptr e) {
            if (e) {
                try {
                    std::rethrow_exception(e);
                } catch (std::exception const& ex) {
                    impl->log.error(
                        "refresher of feed " + impl->groups[i].feeds.front()->name + " failed: " + ex.what()
                    );
                }
            }
            if (--impl->running == 0)
                impl->all_done.cancel();
        });
    while (impl->running > 0)
        co_await impl->all_done.async_wait(use_tuple);
}

net::awaitable<void> Refreshers::run() {
    // All loops share the strand, so `stopped`, `running` and the timers need no lock.
    co_await run_on(impl_->strand, run_all(impl_));
}

net::awaitable<bool> Refreshers::refresh_once(std::size_t group) {
    auto impl = impl_;
    co_return co_await run_on(impl->strand, impl->refresh_once(group));
}

void Refreshers::poke(std::string const& source) {
    hook(source, {});
}

void Refreshers::hook(std::string const& source, std::string const& id) {
    auto impl = impl_;
    // hook_delay counts from now, not from when the strand gets to it: a strand busy as the hook comes (a
    // reload's hand-over, a page burst) must not push the patch back by as long.
    auto const arrived = std::chrono::steady_clock::now();
    net::post(impl->strand, [impl, source, id, arrived] { impl->hook(source, id, arrived); });
}

void Refreshers::stop() {
    auto impl = impl_;
    net::post(impl->strand, [impl] { impl->halt(); });
}

void Refreshers::hand_over(Refreshers& next) {
    auto impl = impl_;
    auto to = next.impl_;
    net::post(impl->strand, [impl, to] {
        auto pending = pending_hooks(impl->groups, impl->wake);
        impl->halt();
        net::post(to->strand, [to, pending = std::move(pending)] {
            resume_hooks(to->groups, to->wake, pending, static_cast<bool>(to->opts.patch));
        });
    });
}

} // namespace icsbridge
