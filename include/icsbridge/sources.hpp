// File: sources.hpp
// The two upstream clients: the events service (API v3, bearer token) and the job board (api_key).
// They turn a feed's selection into model values, over one shared HttpClient per source.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/model.hpp>
#include <icsbridge/net.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace icsbridge {

class RateBudget;
class PageNumberMemory;

/**
 * @brief What a fetch asks the upstream, and nothing else: feeds whose questions are equal share one fetch
 * (group_feeds), and what each feed does with the answer (its keep_past, max_items, filter, alarm,
 * rendering) is applied to it afterwards, per feed (Pipeline::render).
 */
struct UpstreamQuery {
    std::string name;   ///< who asks, for messages: the (first) feed's name
    std::string source; ///< key into Config::sources
    std::string select; ///< events: organizer|organization|search; jobs: search|recent
    std::string organization_id;
    std::vector<std::pair<std::string, std::string>> params; ///< query parameters, in file order
    std::optional<std::chrono::seconds> window;              ///< search: start_date range [now, now+window]
    bool ticket_classes = false;
    /// organizer/organization: past events are read this far back (the longest keep_past of the askers)
    std::chrono::seconds keep_past{std::chrono::days(30)};
    /// a list longer than this fails the fetch (the largest max_items of the askers)
    std::size_t max_items = 100000;

    /** @brief What makes two questions the same (everything above but `name`, `keep_past`, `max_items`). */
    std::string key() const;
};

/** @brief The question `feed` asks by itself. */
UpstreamQuery query_of(FeedConfig const& feed);

/** @brief Paging progress, reported after each page (for `export`'s progress line, and for work that can
 * start before the list is complete: the pipeline renders each page's events while the next pages travel). */
struct FetchProgress {
    int pages = 0;
    std::size_t items = 0;
    std::optional<std::size_t> total; ///< pagination.object_count / total, when the upstream says
    /// Events sources: the events this page added to the result, valid during the call only. Some may still
    /// change before the fetch returns (completed individually, ticket classes added).
    std::span<Event const> added = {};
};
using ProgressFn = std::function<void(FetchProgress const&)>;

/**
 * @brief The events service client (seed 001, API v3).
 *
 * select = "organizer":    GET /v3/users/me/events/
 * select = "organization": GET /v3/organizations/{id}/events/ (id from the feed, or the first of
 *                          GET /v3/users/me/organizations/)
 *   both with status=live,started,ended,completed,canceled: time_filter=current_future (every page), then
 *   time_filter=past&order_by=start_desc until a page lies wholly before now - keep_past (in_event_life).
 * select = "search":       GET /v3/events/search/ with the feed's params and window
 * Every page is followed (page numbers and continuation; pages 2..N by number, several at a time, where
 * page 1 announces a count and the endpoint takes page numbers) up to the feed's max_items; events lacking
 * expansions are completed with GET /v3/events/{id}/?expand=venue,ticket_availability,organizer; ticket
 * classes when the feed asks.
 */
class EventsSource {
  public:
    /// `budget` (optional) is the source's call budget, shared with its other feeds; it must outlive this.
    EventsSource(
        SourceConfig const& src, HttpClient& http, Logger log = null_logger(), RateBudget* budget = nullptr
    );
    ~EventsSource();
    EventsSource(EventsSource const&) = delete;
    EventsSource& operator=(EventsSource const&) = delete;

    /// `question` must outlive the returned awaitable (it is read while the fetch runs).
    boost::asio::awaitable<Result<std::vector<Event>>>
    fetch(UpstreamQuery const& question, sys_seconds now, ProgressFn progress = {});

    /** @brief One event by id, expanded as the lists are (GET /v3/events/{id}/): what a webhook names.
     * errc::upstream_not_found when it is gone. */
    boost::asio::awaitable<Result<Event>> event(std::string id);

    /** @brief The seed's category table (the API has no list endpoint documented). */
    std::vector<Category> categories() const;

    /**
     * @brief From now on the pages a list reads several at a time are parsed on `ex` (in `serve`, off the
     * control thread, which then only receives them and keeps their events in page order).
     */
    void parse_pages_on(boost::asio::any_io_executor ex);

    /**
     * @brief From now on what a list read is freed on `ex` when the list ends: the ids it saw, and the events
     * of a list abandoned (a reload) or failed. In `serve`, not on the control thread, where freeing 40,000
     * of them held up webhooks' patches.
     */
    void free_lists_on(boost::asio::any_io_executor ex);

  private:
    SourceConfig const& src_;
    HttpClient& http_;
    Logger log_;
    RateBudget* budget_;
    std::optional<boost::asio::any_io_executor> parse_on_;
    std::optional<boost::asio::any_io_executor> free_on_;
    /// Which of this source's endpoints take `page=N` (tried once per endpoint; see paging.hpp).
    std::unique_ptr<PageNumberMemory> page_numbers_;
};

/**
 * @brief The job board client (seed 000).
 *
 * select = "search": GET /api/posts/search/?api_key=K&<params>;  select = "recent": GET
 * /api/posts/recent/?api_key=K Pages are followed (page/pages envelope). Also one post, categories and tags.
 */
class JobsSource {
  public:
    JobsSource(
        SourceConfig const& src, HttpClient& http, Logger log = null_logger(), RateBudget* budget = nullptr
    );

    boost::asio::awaitable<Result<std::vector<JobPost>>>
    fetch(UpstreamQuery const& question, ProgressFn progress = {});
    /// `id` by value: a coroutine keeps its parameters, and a reference to a caller's temporary would dangle.
    boost::asio::awaitable<Result<JobPost>> post(std::string id);
    boost::asio::awaitable<Result<std::vector<Category>>> categories();
    boost::asio::awaitable<Result<std::vector<Category>>> tags();

  private:
    SourceConfig const& src_;
    HttpClient& http_;
    Logger log_;
    RateBudget* budget_;
};

/** @brief ClientOptions for a source (service name, timeout, concurrency, CA file, user agent). */
ClientOptions client_options_for(SourceConfig const& src);

} // namespace icsbridge
