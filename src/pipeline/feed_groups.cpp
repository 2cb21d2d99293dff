// File: feed_groups.cpp
// Which feeds ask the upstream the same question (one fetch, one render per feed), and the fetch of a
// group over the real Pipeline.
#include <icsbridge/pipeline.hpp>

#include <algorithm>
#include <map>

namespace icsbridge {

namespace net = boost::asio;

std::string fetch_key(FeedConfig const& f) {
    return query_of(f).key();
}

std::vector<FeedGroup> group_feeds(Config const& cfg) {
    std::vector<FeedGroup> groups;
    std::map<std::string, std::size_t> index;
    for (auto const& f : cfg.feeds) {
        // Never fetched: built from its parts' snapshots (include/icsbridge/merge.hpp).
        if (f.is_merged())
            continue;
        auto query = query_of(f);
        auto key = query.key();
        auto [it, fresh] = index.emplace(key, groups.size());
        if (fresh)
            groups.push_back(FeedGroup{key, std::move(query), {}, f.refresh, f.fetch_timeout});
        auto& g = groups[it->second];
        g.feeds.push_back(&f);
        g.refresh = std::min(g.refresh, f.refresh);
        g.fetch_timeout = std::max(g.fetch_timeout, f.fetch_timeout);
        // Read as far back and as many as the most demanding feed asks; each keeps its own share.
        g.query.keep_past = std::max(g.query.keep_past, f.keep_past);
        g.query.max_items = std::max(g.query.max_items, f.max_items);
    }
    return groups;
}

namespace {

// A plain coroutine function, not a coroutine lambda: its parameters are copied into the frame, so
// nothing dangles when the caller's closure is gone before the coroutine runs.
net::awaitable<std::vector<Result<Calendar>>>
run_pipeline(Pipeline* pipeline, FeedGroup const* g, sys_seconds now) {
    std::vector<Result<Calendar>> out;
    if (g->feeds.size() == 1) {
        out.push_back(co_await pipeline->run(*g->feeds.front(), now));
        co_return out;
    }
    auto items = co_await pipeline->fetch(g->query, now);
    if (items)
        co_return co_await pipeline->render_shared(g->feeds, *items);
    out.assign(g->feeds.size(), items.error());
    co_return out;
}

} // namespace

GroupPatch pipeline_patch(Pipeline& pipeline) {
    return [p = &pipeline](FeedGroup const& g, std::string id, sys_seconds now) {
        return p->patch(g, std::move(id), now);
    };
}

GroupFetch pipeline_fetch(Pipeline& pipeline) {
    return [p = &pipeline](FeedGroup const& g, sys_seconds now) { return run_pipeline(p, &g, now); };
}

} // namespace icsbridge
