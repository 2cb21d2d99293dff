// File: generation.hpp
// The refreshing half of `serve` for one config: its Pipeline, Refreshers and merged feeds, built in order
// on one strand. A reload builds the next generation and retires the previous one once its refreshes have
// ended.
#pragma once

#include "app/reload_plan.hpp"
#include <icsbridge/merge.hpp>
#include <icsbridge/net.hpp>
#include <icsbridge/pipeline.hpp>
#include <icsbridge/refresh.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <memory>

namespace icsbridge {

struct Generation {
    std::shared_ptr<Config const> cfg;
    std::shared_ptr<Pipeline> pipeline;
    std::unique_ptr<Refreshers> refreshers;
    /// Rebuilds the merged feeds whenever a part is published (a subscriber of the Publisher until it
    /// goes: a reload drops the previous generation's before it builds this one).
    std::unique_ptr<MergedFeeds> merged;
};

/**
 * @brief Builds the pipeline and the refreshers of `cfg` on `ex` (one thread), and builds its merged feeds
 * from the store's snapshots (call after they were restored). With `previous`, unchanged budgets go on
 * counting in the same window. Every upstream attempt is counted in `upstream`.
 */
std::shared_ptr<Generation> make_generation(
    std::shared_ptr<Config const> cfg,
    boost::asio::any_io_executor ex,
    ServedFeeds& store,
    Publisher& publisher,
    UpstreamMetrics& upstream,
    Logger const& log,
    RefreshOptions opts,
    Generation const* previous = nullptr
);

/**
 * @brief For a reload: groups made only of kept feeds wait out the rest of their interval (from each
 * feed's last success) before their first refresh; any other group refreshes at once. A refresh the
 * Publisher is still preparing counts as a success: the new refreshers do not fetch the feed again.
 */
std::function<std::optional<std::chrono::steady_clock::duration>(FeedGroup const&)>
resume_kept(ReloadPlan const& plan, ServedFeeds const& store, Publisher& publisher);

} // namespace icsbridge
