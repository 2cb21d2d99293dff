// File: pipeline.hpp
// config -> source -> model -> calendar, once, for one feed: what `export` runs and what each
// refresher runs on its timer. Owns one HttpClient per source and one RenderCache per feed.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/feed_groups.hpp>
#include <icsbridge/ical.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/model.hpp>
#include <icsbridge/net.hpp>
#include <icsbridge/sources.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

class SharedCalls; // sources/rate_budget.hpp: a budget counted across replicas

class Pipeline {
  public:
    /// Told of every upstream HTTP attempt: the source's name in the config, the status (0: no response)
    /// and the time it took.
    using RequestObserver =
        std::function<void(std::string_view source, unsigned status, std::chrono::duration<double> took)>;

    /**
     * @brief `cfg` must outlive the pipeline. With `previous` (the pipeline of the config before a reload),
     * a source whose budget is unchanged goes on counting in the same window: a reload never resets it;
     * and the last answers of the sources it did not change are kept, so that a webhook's patch needs no
     * refresh first.
     */
    Pipeline(
        Config const& cfg,
        boost::asio::any_io_executor ex,
        Logger log = null_logger(),
        RequestObserver const& observe = {},
        Pipeline const* previous = nullptr
    );
    ~Pipeline();
    Pipeline(Pipeline const&) = delete;
    Pipeline& operator=(Pipeline const&) = delete;

    /**
     * @brief From now on run() builds each page's events on `workers` threads of its own while the next pages
     * travel, and renders the calendar after the last page on another thread; a third parses the pages an
     * events list reads several at a time (EventsSource::parse_pages_on): the fetch's thread receives them
     * and keeps their events in page order (0, the default: all of it on the fetch's thread). The run
     * has the feed's render cache to itself meanwhile; a render of the same feed during it (a webhook's
     * patch in `serve`) renders without the cache, to the same bytes.
     */
    void render_on_workers(unsigned workers);

    /** @brief Fetches the feed's items from its upstream and renders the calendar. `feed` must outlive the
     * awaitable. */
    boost::asio::awaitable<Result<Calendar>>
    run(FeedConfig const& feed, sys_seconds now, ProgressFn progress = {});

    /** @brief The fetch half of run(): the answer to `question` (no rendering). `question` must outlive
     * the awaitable. */
    boost::asio::awaitable<Result<FeedItems>>
    fetch(UpstreamQuery const& question, sys_seconds now, ProgressFn progress = {});

    /**
     * @brief The render half of run(): `feed`'s calendar from items fetched for a question it shares
     * (group_feeds). First what is the feed's own: its keep_past, its filter, its max_items (over it:
     * errc::too_many_items for this feed alone); then the feed's RenderCache renders.
     */
    Result<Calendar> render(FeedConfig const& feed, FeedItems const& items);

    /**
     * @brief render() of each of `feeds` (in that order) from the one fetch they share. After
     * render_on_workers(), on the thread where run() renders, each feed's cache lent for it as in run():
     * thousands of events are not rendered on the fetch's thread. `feeds` and `items` must outlive it.
     */
    boost::asio::awaitable<std::vector<Result<Calendar>>>
    render_shared(std::vector<FeedConfig const*> const& feeds, FeedItems const& items);

    /**
     * @brief GroupPatch over this pipeline: the last answer of a question that can be patched (an organizer
     * or organization list, without ticket classes, of a source that takes webhooks) is kept by fetch().
     */
    boost::asio::awaitable<std::optional<std::vector<Result<Calendar>>>>
    patch(FeedGroup const& group, std::string id, sys_seconds now);

    /**
     * @brief From now on `metrics` shows this pipeline's budgets and no others: each pushes its state there
     * now and on every change. After a reload, call stop_showing_budgets() on the replaced pipeline first,
     * so that a budget of its that this one no longer uses cannot push over this one's.
     */
    void show_budgets(UpstreamMetrics& metrics);
    /** @brief This pipeline's budgets push no more; none is under way once it returns. */
    void stop_showing_budgets();

    /**
     * @brief Cluster mode: every source's budget also counts in `shared` (the database), so the replicas
     * together stay within it. Call before the refreshers start.
     */
    void share_budgets(std::shared_ptr<SharedCalls> const& shared);

    /** @brief Category list of a source (events: the seed's table; jobs: GET /api/categories/). */
    boost::asio::awaitable<Result<std::vector<Category>>> categories(std::string const& source);
    /** @brief Tag list of a jobs source (GET /api/tags/). errc::usage for an events source. */
    boost::asio::awaitable<Result<std::vector<Category>>> tags(std::string const& source);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/**
 * @brief The workers Pipeline::render_on_workers is given by the commands and `serve`: one fewer than the
 * machine's cores (one thread receives and parses), at least one, at most four.
 */
unsigned default_render_workers();

/** @brief A GroupPatch over the real Pipeline (Pipeline::patch). */
GroupPatch pipeline_patch(Pipeline& pipeline);

/** @brief A GroupFetch over the real Pipeline (single feeds: run(); shared questions: fetch() +
 * render_shared()). */
GroupFetch pipeline_fetch(Pipeline& pipeline);

} // namespace icsbridge
