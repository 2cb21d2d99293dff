// File: generation.cpp
// Building one generation of the refreshing half of `serve`.
#include "app/generation.hpp"

#include <boost/asio/strand.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace icsbridge {

std::shared_ptr<Generation> make_generation(
    std::shared_ptr<Config const> cfg,
    boost::asio::any_io_executor ex,
    ServedFeeds& store,
    Publisher& publisher,
    UpstreamMetrics& upstream,
    Logger const& log,
    RefreshOptions opts,
    Generation const* previous
) {
    auto gen = std::make_shared<Generation>();
    gen->cfg = cfg;
    // The pipeline's HTTP clients and the refreshers that call them share one strand, made first.
    auto strand = boost::asio::make_strand(ex);
    gen->pipeline = std::make_shared<Pipeline>(
        *cfg,
        strand,
        log,
        [&upstream](std::string_view source, unsigned status, std::chrono::duration<double> took) {
            upstream.record(source, status, took);
        },
        previous ? previous->pipeline.get() : nullptr
    );
    // A long list's pages render on workers, its calendar and most pages' JSON on two other threads: the
    // strand, which also runs the webhooks' patches and every publication, mostly only receives.
    gen->pipeline->render_on_workers(default_render_workers());
    // The fetch function owns what it reads: a refresh still running after a reload keeps its config and
    // pipeline alive until it ends.
    GroupFetch fetch = [cfg, pipeline = gen->pipeline](FeedGroup const& g, sys_seconds now) {
        return pipeline_fetch(*pipeline)(g, now);
    };
    // A hook's one event, read into the group's last answer by the same pipeline (kept alive likewise).
    opts.patch = [cfg, pipeline = gen->pipeline](FeedGroup const& g, std::string id, sys_seconds now) {
        return pipeline->patch(g, std::move(id), now);
    };
    gen->refreshers =
        std::make_unique<Refreshers>(strand, *cfg, store, publisher, std::move(fetch), log, std::move(opts));
    gen->merged = std::make_unique<MergedFeeds>(*cfg, store, publisher, log);
    gen->merged->start();
    return gen;
}

std::function<std::optional<std::chrono::steady_clock::duration>(FeedGroup const&)>
resume_kept(ReloadPlan const& plan, ServedFeeds const& store, Publisher& publisher) {
    std::set<std::string> kept(plan.kept.begin(), plan.kept.end());
    std::map<std::string, sys_seconds> last_success;
    for (auto const& s : store.status())
        if (s.last_success && s.snapshot && kept.count(s.name))
            last_success.emplace(s.name, *s.last_success);
    // A refresh that ended but is not served yet (its ETag, gzip and CalDAV cut being made): the feed is
    // unchanged, so it will be served; fetching again would read the whole list for the same answer.
    for (auto const& name : plan.kept)
        if (auto at = publisher.refreshed_in_preparation(name)) {
            auto [it, fresh] = last_success.emplace(name, *at);
            if (!fresh)
                it->second = std::max(it->second, *at);
        }
    return [last_success](FeedGroup const& g) -> std::optional<std::chrono::steady_clock::duration> {
        std::optional<sys_seconds> oldest;
        for (auto const* f : g.feeds) {
            auto it = last_success.find(f->name);
            if (it == last_success.end())
                return std::nullopt; // new, changed or never fetched: at once
            oldest = oldest ? std::min(*oldest, it->second) : it->second;
        }
        auto const now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
        auto const left = *oldest + g.refresh - now;
        return std::chrono::steady_clock::duration(std::max(left, std::chrono::seconds(0)));
    };
}

} // namespace icsbridge
