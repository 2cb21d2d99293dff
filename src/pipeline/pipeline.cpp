// File: pipeline.cpp
// One feed, once: the source's client fetches, the calendar module renders. Every client and render
// cache is created up front, so concurrent runs of different feeds never mutate shared maps.
#include "pipeline/cache_lease.hpp"
#include "pipeline/item_filter.hpp"
#include "pipeline/pipeline_impl.hpp"
#include "pipeline/prerender_pool.hpp"
#include "sources/paging.hpp"
#include "sources/rate_budget.hpp"
#include "util/background.hpp"
#include "util/free_elsewhere.hpp"
#include "util/run_on.hpp"
#include <icsbridge/pipeline.hpp>

#include <boost/asio/thread_pool.hpp>
#include <boost/url/parse.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

namespace icsbridge {

namespace net = boost::asio;

namespace {

/** The upstream's host: the right-hand side of every UID, so ids of two services never collide. */
std::string uid_domain_of(std::string const& base_url) {
    auto u = boost::urls::parse_absolute_uri(base_url);
    if (!u || u->encoded_host().empty())
        return "icsbridge";
    return std::string(u->encoded_host());
}

} // namespace

Pipeline::Impl::Impl(
    Config const& c, net::any_io_executor ex, Logger l, RequestObserver const& observe, Impl const* previous
)
    : cfg(c)
    , log(std::move(l))
    , freer(previous ? previous->freer : nullptr) {
    for (auto const& [name, src] : cfg.sources) {
        Upstream u;
        u.config = &src;
        auto opts = client_options_for(src);
        if (observe)
            opts.on_attempt = [observe, source = name](unsigned status, std::chrono::duration<double> took) {
                observe(source, status, took);
            };
        u.http = std::make_unique<HttpClient>(ex, std::move(opts), log);
        if (src.budget.calls > 0) {
            if (previous)
                if (auto it = previous->upstreams.find(name); it != previous->upstreams.end() &&
                                                              it->second.budget &&
                                                              it->second.budget->spec() == src.budget)
                    u.budget = it->second.budget;
            if (!u.budget)
                u.budget = std::make_shared<RateBudget>(src.budget);
        }
        if (src.type == SourceType::events)
            u.events = std::make_unique<EventsSource>(src, *u.http, log, u.budget.get());
        else
            u.jobs = std::make_unique<JobsSource>(src, *u.http, log, u.budget.get());
        u.uid_domain = uid_domain_of(src.base_url);
        upstreams.emplace(name, std::move(u));
    }
    // A reload keeps the answers of sources it did not change: a hook right after it is a patch still.
    if (previous)
        for (auto const& [key, answer] : previous->answers)
            if (auto const* before = previous->cfg.find_source(answer.source);
                before && cfg.find_source(answer.source) && *before == *cfg.find_source(answer.source))
                answers.emplace(key, answer);
    for (auto const& feed : cfg.feeds)
        caches.try_emplace(feed.name);
}

Pipeline::Pipeline(
    Config const& cfg,
    net::any_io_executor ex,
    Logger log,
    RequestObserver const& observe,
    Pipeline const* previous
)
    : impl_(std::make_unique<Impl>(
          cfg, std::move(ex), std::move(log), observe, previous ? previous->impl_.get() : nullptr
      )) {}

Pipeline::~Pipeline() = default;

net::awaitable<Result<FeedItems>>
Pipeline::fetch(UpstreamQuery const& question, sys_seconds now, ProgressFn progress) {
    auto up = impl_->upstream(question.source);
    if (!up)
        co_return up.error();
    Impl::Upstream& u = **up;
    FeedItems items;
    items.asked_at = now;
    if (u.events) {
        auto events = co_await u.events->fetch(question, now, std::move(progress));
        if (!events)
            co_return events.error();
        items.events = std::move(*events);
        if (impl_->patchable(question))
            impl_->keep_answer(question.key(), {question.source, std::make_shared<FeedItems const>(items)});
    } else {
        auto posts = co_await u.jobs->fetch(question, std::move(progress));
        if (!posts)
            co_return posts.error();
        items.jobs = std::move(*posts);
    }
    co_return items;
}

namespace {

/**
 * @brief What is the feed's own of a fetch it may share with feeds that read further back or keep other
 * items: its keep_past (counted from the fetch's `now`), then its filter. nullopt: all of it, as fetched.
 */
std::optional<FeedItems> own_share(FeedConfig const& feed, FeedItems const& fetched) {
    std::optional<FeedItems> own;
    bool const life = feed.select == "organizer" || feed.select == "organization";
    auto const outlived = [&](Event const& e) { return !in_event_life(e, fetched.asked_at, feed.keep_past); };
    if (life && fetched.asked_at != sys_seconds{} &&
        std::any_of(fetched.events.begin(), fetched.events.end(), outlived)) {
        own = fetched;
        std::erase_if(own->events, outlived);
    }
    // Feeds sharing one fetch may each filter it differently.
    if (!feed.filter.empty())
        own = apply_filter(feed.filter, own ? *own : fetched);
    return own;
}

} // namespace

Result<Calendar> Pipeline::render(FeedConfig const& feed, FeedItems const& fetched) {
    return impl_->render_with(feed, fetched, impl_->cache_of(feed));
}

Result<Calendar>
Pipeline::Impl::render_with(FeedConfig const& feed, FeedItems const& fetched, RenderCache* cache_ptr) {
    auto const own = own_share(feed, fetched);
    FeedItems const& items = own ? *own : fetched;
    // The shared fetch allowed the largest max_items of its feeds: this one's own limit holds for it alone.
    if (items.events.size() + items.jobs.size() > feed.max_items)
        return too_many_items(feed.name, feed.max_items);
    auto up = upstream(feed.source);
    if (!up)
        return up.error();
    Upstream& u = **up;
    CalendarMeta const meta = meta_of(feed, u);

    Calendar out;
    if (u.events) {
        auto ics =
            render_events(meta, items.events, EventRenderOptions{feed.alarm, feed.cancelled}, cache_ptr);
        if (!ics)
            return ics.error();
        out.ics = std::move(*ics);
        out.items = feed.cancelled == CancelledPolicy::drop
                        ? static_cast<std::size_t>(std::count_if(
                              items.events.begin(),
                              items.events.end(),
                              [](Event const& e) { return !e.cancelled(); }
                          ))
                        : items.events.size();
    } else {
        auto ics = render_jobs(meta, items.jobs, JobRenderOptions{feed.due_after, feed.jobs_as}, cache_ptr);
        if (!ics)
            return ics.error();
        out.ics = std::move(*ics);
        out.items = items.jobs.size();
    }
    log.debug(feed.name + ": rendered " + std::to_string(out.items) + " items");
    return out;
}

net::awaitable<Result<Calendar>> Pipeline::Impl::assemble(
    Impl* impl, FeedConfig const* feed, FeedItems const* items, PrerenderPool* pool, RenderCache* cache
) {
    pool->finish_into(*cache);
    co_return impl->render_with(*feed, *items, cache);
}

net::awaitable<std::vector<Result<Calendar>>>
Pipeline::render_shared(std::vector<FeedConfig const*> const& feeds, FeedItems const& items) {
    std::vector<std::unique_ptr<CacheLease>> leases;
    std::vector<RenderCache*> caches;
    for (auto const* f : feeds) {
        leases.push_back(std::make_unique<CacheLease>(impl_->slot_of(*f)));
        caches.push_back(leases.back()->get());
    }
    if (!impl_->assembler)
        co_return co_await Impl::render_each(impl_.get(), &feeds, &items, &caches);
    // As run()'s render: off the thread that runs the refreshers, webhooks and reloads (in `serve`).
    co_return co_await run_on(
        impl_->assembler->get_executor(),
        Impl::render_each(impl_.get(), &feeds, &items, &caches)
    );
}

unsigned default_render_workers() {
    return std::clamp(std::thread::hardware_concurrency(), 2U, 5U) - 1;
}

void Pipeline::render_on_workers(unsigned workers) {
    impl_->render_workers = workers;
    if (workers == 0 || impl_->assembler)
        return;
    // Both below the control thread's priority: on two cores, a page burst's parses and the render after it
    // then give the CPU to a webhook's patch or a reload the moment it comes.
    impl_->assembler = background_pool();
    impl_->parser = background_pool();
    if (!impl_->freer)
        impl_->freer = background_pool();
    for (auto& [name, u] : impl_->upstreams)
        if (u.events) {
            u.events->parse_pages_on(impl_->parser->get_executor());
            u.events->free_lists_on(impl_->freer->get_executor());
        }
}

namespace {

/** The events of a page that the feed keeps, as a copy (the pool's own, or the filtered few). */
std::vector<Event> kept_events(std::span<Event const> added, FeedFilter const& filter) {
    if (filter.empty())
        return {added.begin(), added.end()};
    std::vector<Event> kept;
    for (Event const& e : added)
        if (filter_keeps(filter, e))
            kept.push_back(e);
    return kept;
}

} // namespace

net::awaitable<Result<Calendar>> Pipeline::run(FeedConfig const& feed, sys_seconds now, ProgressFn progress) {
    // While the pages of a long list travel, the CPU mostly waits: build each page's events into the feed's
    // render cache then, so that after the last page the render only assembles (and rebuilds the few
    // events that changed since). Same bytes as rendering afterwards: the cache checks every item's hash.
    auto up = impl_->upstream(feed.source);
    CacheLease const lease(impl_->slot_of(feed));
    RenderCache* cache = lease.get();
    std::unique_ptr<PrerenderPool> pool;
    if (up && (*up)->events && cache) {
        auto meta = Impl::meta_of(feed, **up);
        auto opts = EventRenderOptions{feed.alarm, feed.cancelled};
        if (impl_->render_workers > 0)
            pool =
                std::make_unique<PrerenderPool>(meta, opts, *cache, impl_->render_workers, impl_->freer_on());
        progress = [user = std::move(progress),
                    cache,
                    pool = pool.get(),
                    meta = std::move(meta),
                    opts,
                    filter = feed.filter](FetchProgress const& p) {
            if (user)
                user(p);
            if (pool)
                pool->add(kept_events(p.added, filter));
            else if (filter.empty())
                prerender_events(meta, p.added, opts, *cache);
            else
                prerender_events(meta, kept_events(p.added, filter), opts, *cache);
        };
    }
    auto const question = query_of(feed);
    auto fetched = co_await fetch(question, now, std::move(progress));
    if (!fetched)
        co_return fetched.error();
    // However the run ends, its list is freed by the freer (in `serve`, not on the control thread).
    FreedElsewhere<FeedItems> items(impl_->freer_on());
    *items = std::move(*fetched);
    if (!pool)
        co_return impl_->render_with(feed, *items, cache);
    // Waiting for the last chunks and assembling thousands of blocks take a while: not on the thread that
    // runs the refreshers, webhooks and reloads (in `serve`), which resumes when the calendar is ready.
    co_return co_await run_on(
        impl_->assembler->get_executor(),
        Impl::assemble(impl_.get(), &feed, &*items, pool.get(), cache)
    );
}

net::awaitable<std::optional<std::vector<Result<Calendar>>>>
Pipeline::patch(FeedGroup const& g, std::string id, sys_seconds now) {
    auto const key = g.query.key();
    auto kept = impl_->answers.find(key);
    auto up = impl_->upstream(g.query.source);
    if (kept == impl_->answers.end() || !up || !(*up)->events)
        co_return std::nullopt;
    auto const before = kept->second.items; // the map may change while the event travels
    auto ev = co_await (*up)->events->event(id);
    if (!ev && ev.error().code != errc::upstream_not_found)
        co_return std::nullopt;
    // The event as the lists would give it now: changed, added, or gone (deleted, a draft, ended long ago).
    auto items = std::make_shared<FeedItems>(*before);
    std::erase_if(items->events, [&](Event const& e) { return e.id == id; });
    if (ev && !never_published(*ev) && in_event_life(*ev, now, g.query.keep_past))
        items->events.push_back(std::move(*ev));
    items->asked_at = now;
    impl_->keep_answer(key, {g.query.source, items});
    std::vector<Result<Calendar>> out;
    for (auto const* f : g.feeds)
        out.push_back(render(*f, *items));
    co_return out;
}

void Pipeline::show_budgets(UpstreamMetrics& metrics) {
    std::vector<std::string> shown;
    for (auto const& [name, u] : impl_->upstreams)
        if (u.budget)
            shown.push_back(name);
    metrics.keep_budgets(shown);
    for (auto& [name, u] : impl_->upstreams)
        if (u.budget)
            u.budget->show_in(metrics, name);
}

void Pipeline::stop_showing_budgets() {
    for (auto& [name, u] : impl_->upstreams)
        if (u.budget)
            u.budget->stop_showing();
}

void Pipeline::share_budgets(std::shared_ptr<SharedCalls> const& shared) {
    for (auto& [name, u] : impl_->upstreams)
        if (u.budget)
            u.budget->share(shared, name);
}

net::awaitable<Result<std::vector<Category>>> Pipeline::categories(std::string const& source) {
    auto up = impl_->upstream(source);
    if (!up)
        co_return up.error();
    if ((*up)->events)
        co_return (*up)->events->categories();
    co_return co_await (*up)->jobs->categories();
}

net::awaitable<Result<std::vector<Category>>> Pipeline::tags(std::string const& source) {
    auto up = impl_->upstream(source);
    if (!up)
        co_return up.error();
    if ((*up)->events)
        co_return fail(
            errc::usage,
            "the events service has no tags (source '" + source + "' is an events source)"
        );
    co_return co_await (*up)->jobs->tags();
}

} // namespace icsbridge
