// File: pipeline_impl.hpp
// Pipeline::Impl, what one config's pipeline holds: a client per source, a render cache per feed, the threads
// that parse, render and free off the fetch's thread, and the last answers a webhook can patch. Private to
// src/pipeline/ (used by pipeline.cpp).
#pragma once

#include "pipeline/cache_lease.hpp"
#include "sources/rate_budget.hpp"
#include "util/free_elsewhere.hpp"
#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/ical.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/net.hpp>
#include <icsbridge/pipeline.hpp>
#include <icsbridge/sources.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icsbridge {

class PrerenderPool;

struct Pipeline::Impl {
    struct Upstream {
        SourceConfig const* config = nullptr;
        std::unique_ptr<HttpClient> http;
        std::shared_ptr<RateBudget> budget; // shared by every feed of the source (and across a reload)
        std::unique_ptr<EventsSource> events;
        std::unique_ptr<JobsSource> jobs;
        std::string uid_domain;
    };

    Config const& cfg;
    Logger log;
    std::map<std::string, Upstream, std::less<>> upstreams;
    /// One per feed, made up front: the map itself never changes.
    std::map<std::string, CacheSlot, std::less<>> caches;
    unsigned render_workers = 0;                         ///< see Pipeline::render_on_workers
    std::unique_ptr<boost::asio::thread_pool> assembler; ///< with render_workers: where run() renders at last
    /// With render_workers: where a list's pages are parsed; not the assembler, whose render of a long
    /// feed would hold up another feed's pages (a webhook's refresh of a small feed) meanwhile.
    std::unique_ptr<boost::asio::thread_pool> parser;
    /// With render_workers: where large values this pipeline lets go of are freed (a long list after its
    /// run, a list abandoned, its render caches when it goes). Shared across a reload: the pipeline it
    /// replaces goes on the control thread (`serve`) while its caches are freed here.
    std::shared_ptr<boost::asio::thread_pool> freer;
    /// The last answer of a question a webhook can patch, and the source it came from.
    struct Answer {
        std::string source;
        std::shared_ptr<FeedItems const> items;
    };
    /// The last answer of each question a webhook can patch (UpstreamQuery::key()); on the pipeline's strand
    std::map<std::string, Answer> answers;

    std::optional<boost::asio::any_io_executor> freer_on() const {
        if (!freer)
            return std::nullopt;
        return boost::asio::any_io_executor(freer->get_executor());
    }

    /** @brief `answer` for `key`, the one it replaces freed by the freer (a long list's copy). */
    void keep_answer(std::string const& key, Answer answer) {
        free_elsewhere(freer_on(), std::exchange(answers[key], std::move(answer)));
    }

    /** @brief Whether a hook's one event can update this question's answer (see Pipeline::patch). */
    bool patchable(UpstreamQuery const& q) const {
        auto src = cfg.sources.find(q.source);
        return src != cfg.sources.end() && !src->second.webhook_secret.empty() && !q.ticket_classes &&
               (q.select == "organizer" || q.select == "organization");
    }

    /** Every client and cache up front; with `previous` (a reload), its unchanged budgets, answers, freer. */
    Impl(
        Config const& c,
        boost::asio::any_io_executor ex,
        Logger l,
        RequestObserver const& observe,
        Impl const* previous
    );

    // A reload that changed a source lets go of its last answer here, which may be a long list's copy.
    ~Impl() { free_elsewhere(freer_on(), std::make_pair(std::move(caches), std::move(answers))); }
    Impl(Impl const&) = delete;
    Impl& operator=(Impl const&) = delete;

    CacheSlot* slot_of(FeedConfig const& feed) {
        auto it = caches.find(feed.name);
        return it == caches.end() ? nullptr : &it->second;
    }

    /** The feed's cache; null while a run has it (CacheLease) or for a feed the config does not have. */
    RenderCache* cache_of(FeedConfig const& feed) {
        CacheSlot* slot = slot_of(feed);
        return slot == nullptr || slot->lent ? nullptr : &slot->cache;
    }

    /** Pipeline::render with `cache` (null: none). */
    Result<Calendar> render_with(FeedConfig const& feed, FeedItems const& fetched, RenderCache* cache);

    /** The end of a run with workers: the last page's blocks into `cache`, then the render. */
    static boost::asio::awaitable<Result<Calendar>> assemble(
        Impl* impl, FeedConfig const* feed, FeedItems const* items, PrerenderPool* pool, RenderCache* cache
    );

    /** Pipeline::render_shared's renders, each feed with its cache (null: none). */
    static boost::asio::awaitable<std::vector<Result<Calendar>>> render_each(
        Impl* impl,
        std::vector<FeedConfig const*> const* feeds,
        FeedItems const* items,
        std::vector<RenderCache*> const* caches
    ) {
        std::vector<Result<Calendar>> out;
        for (std::size_t i = 0; i < feeds->size(); ++i)
            out.push_back(impl->render_with(*(*feeds)[i], *items, (*caches)[i]));
        co_return out;
    }

    static CalendarMeta meta_of(FeedConfig const& feed, Upstream const& u) {
        return CalendarMeta{feed.name, feed.title, feed.description, feed.refresh, u.uid_domain};
    }

    Result<Upstream*> upstream(std::string_view name) {
        auto it = upstreams.find(name);
        if (it == upstreams.end())
            return fail(errc::feed_unknown, "unknown source '" + std::string(name) + "'");
        return &it->second;
    }
};

} // namespace icsbridge
