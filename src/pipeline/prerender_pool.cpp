// File: prerender_pool.cpp
// Chunks of events -> prebuild_events() on a few threads -> adopt_blocks() in the order they came.
#include "pipeline/prerender_pool.hpp"

#include "util/background.hpp"
#include "util/free_elsewhere.hpp"

#include <span>

namespace icsbridge {

namespace {

// Small enough that the threads finish the last page together, large enough that taking a chunk
// (a lock, a wake-up) costs nothing next to building it (~25 µs an event).
constexpr std::size_t chunk_events = 64;

} // namespace

PrerenderPool::PrerenderPool(
    CalendarMeta meta,
    EventRenderOptions opts,
    RenderCache const& cache,
    unsigned workers,
    std::optional<boost::asio::any_io_executor> free_on
)
    : meta_(std::move(meta))
    , opts_(opts)
    , cache_(cache)
    , free_on_(std::move(free_on)) {
    // libical's process-wide set-up is lazy and unlocked: done here, before a worker could race to it.
    init_libical();
    workers_.reserve(workers);
    for (unsigned i = 0; i < workers; ++i)
        workers_.emplace_back([this] { work(); });
}

PrerenderPool::~PrerenderPool() {
    stop();
    // The workers are done with the cache: the events and blocks left need nothing else.
    free_elsewhere(free_on_, std::move(chunks_));
}

void PrerenderPool::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    queued_.notify_all();
    for (auto& t : workers_)
        if (t.joinable())
            t.join();
}

void PrerenderPool::add(std::vector<Event> events) {
    if (events.empty())
        return;
    auto shared = std::make_shared<std::vector<Event> const>(std::move(events));
    {
        std::lock_guard lock(mutex_);
        for (std::size_t b = 0; b < shared->size(); b += chunk_events)
            chunks_.push_back(Chunk{shared, b, std::min(shared->size(), b + chunk_events), {}});
    }
    queued_.notify_all();
}

bool PrerenderPool::build_next(std::unique_lock<std::mutex>& lock) {
    if (next_ == chunks_.size())
        return false;
    Chunk& chunk = chunks_[next_++];
    lock.unlock();
    std::vector<PrebuiltBlock> blocks;
    try {
        auto const events =
            std::span<Event const>(*chunk.events).subspan(chunk.begin, chunk.end - chunk.begin);
        blocks = prebuild_events(meta_, events, opts_, &cache_);
    } catch (std::exception const&) {
        blocks.clear(); // out of memory: the render builds these itself, or fails with a message
    }
    lock.lock();
    chunk.blocks = std::move(blocks);
    chunk.events.reset();
    ++built_count_;
    built_.notify_all();
    return true;
}

void PrerenderPool::work() {
    // Below the thread that adds the pages (serve's control thread): it wins the CPU when it has a webhook's
    // patch or a reload to run.
    lower_this_thread();
    std::unique_lock lock(mutex_);
    started_.push_back(this_thread_id());
    started_cv_.notify_all();
    for (;;) {
        queued_.wait(lock, [&] { return stopping_ || next_ < chunks_.size(); });
        if (stopping_)
            return;
        build_next(lock);
    }
}

std::vector<long> PrerenderPool::worker_thread_ids() {
    std::unique_lock lock(mutex_);
    started_cv_.wait(lock, [&] { return started_.size() == workers_.size(); });
    return started_;
}

void PrerenderPool::finish_into(RenderCache& cache) {
    {
        std::unique_lock lock(mutex_);
        while (build_next(lock)) {
        }
        built_.wait(lock, [&] { return built_count_ == chunks_.size(); });
    }
    stop();
    for (auto& chunk : chunks_)
        adopt_blocks(cache, std::move(chunk.blocks));
    chunks_.clear();
}

} // namespace icsbridge
