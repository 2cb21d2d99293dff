// File: prerender_pool.hpp
// A long list's blocks built on worker threads while its next pages travel: for the one-shot commands,
// where the fetch's own thread then only receives and parses, and the render after the last page only
// assembles.
#pragma once

#include <icsbridge/ical.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace icsbridge {

class PrerenderPool {
  public:
    /**
     * @brief `workers` threads building blocks for `meta` and `opts`. They read `cache` (to skip the blocks
     * it has) until finish_into() returns or the pool is destroyed: nothing may change it meanwhile.
     * `free_on` (optional): where the chunks left when the pool goes (a run abandoned) are freed.
     */
    PrerenderPool(
        CalendarMeta meta,
        EventRenderOptions opts,
        RenderCache const& cache,
        unsigned workers,
        std::optional<boost::asio::any_io_executor> free_on = std::nullopt
    );
    /** @brief Joins the workers, then drops the chunks left (on `free_on`, when given). */
    ~PrerenderPool();
    PrerenderPool(PrerenderPool const&) = delete;
    PrerenderPool& operator=(PrerenderPool const&) = delete;

    /** @brief Queues `events` (the pool's own copy: the source may still change its list) in chunks. */
    void add(std::vector<Event> events);

    /**
     * @brief Waits until every queued chunk is built, building on the calling thread too, then moves the
     * blocks into `cache` in the order they were added. A chunk whose build failed is simply missing: the
     * render builds those events itself and reports the error in context.
     */
    void finish_into(RenderCache& cache);

    /**
     * @brief The workers' thread ids (Linux's, as in /proc/self/task), once each has started and lowered
     * its priority (lower_this_thread): they build at a lower priority than the thread that feeds them.
     */
    std::vector<long> worker_thread_ids();

  private:
    struct Chunk {
        std::shared_ptr<std::vector<Event> const> events;
        std::size_t begin = 0, end = 0;
        std::vector<PrebuiltBlock> blocks;
    };

    void work();
    /** Builds the next unstarted chunk, if any, with the lock held on entry and exit; false if none. */
    bool build_next(std::unique_lock<std::mutex>& lock);
    void stop();

    CalendarMeta const meta_;
    EventRenderOptions const opts_;
    RenderCache const& cache_;
    std::optional<boost::asio::any_io_executor> free_on_;
    std::mutex mutex_;
    std::condition_variable queued_; ///< a chunk was added, or the pool stops
    std::condition_variable built_;  ///< a chunk was built
    std::deque<Chunk> chunks_;       ///< a deque: a worker's chunk stays put while others are added
    std::size_t next_ = 0;           ///< the first chunk no thread has taken
    std::size_t built_count_ = 0;
    std::vector<long> started_;          ///< the thread ids of the workers that have started
    std::condition_variable started_cv_; ///< a worker started
    bool stopping_ = false;
    std::vector<std::thread> workers_;
};

} // namespace icsbridge
