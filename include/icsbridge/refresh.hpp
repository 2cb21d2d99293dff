// File: refresh.hpp
// Background refresh: one coroutine per group of feeds that ask the upstream the same question
// (one fetch, one render per feed), on a timer with jitter, backoff on failure, and a second fetch
// to confirm a sudden large drop before it is published. A failure never replaces a good snapshot.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/feed_groups.hpp>
#include <icsbridge/log.hpp>
#include <icsbridge/publish.hpp>
#include <icsbridge/store.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

struct RefreshOptions {
    std::chrono::milliseconds retry_initial{
        std::chrono::seconds(30)}; ///< first retry after a failure; doubles up to refresh
    std::chrono::milliseconds confirm_delay{
        std::chrono::seconds(30)};                              ///< wait before the confirming second fetch
    std::chrono::milliseconds stagger{std::chrono::seconds(2)}; ///< between the groups' first refreshes
    double jitter = 0.1;                                        ///< each interval is refresh x (1 +- jitter)
    std::size_t shrink_min_items = 10; ///< a drop below half is suspicious only from this many items on
    /// A webhook's refresh waits this long, so that the hooks of one change (created, published, …) are one
    /// refresh; and begins at least hook_gap after the group's previous refresh began, so that a burst of
    /// hooks is at most two refreshes. The sum bounds how stale a hooked change can be (5 s promised).
    std::chrono::milliseconds hook_delay{500};
    std::chrono::milliseconds hook_gap{std::chrono::seconds(3)};
    /// At most this many refreshes that hooks cause, per group, in any hook_window (the README's "ten hooks
    /// in a minute cost at most two refreshes"); a hook that names one event costs one read instead (patch).
    std::size_t hook_refreshes = 2;
    std::chrono::milliseconds hook_window{std::chrono::minutes(1)};
    /// A hook's one event into the group's last answer (Pipeline::patch); empty: every hook is a refresh.
    GroupPatch patch;
    /// Told of the upstream work each hook causes ("event" or "refresh"), for /metrics.
    std::function<void(std::string const& source, std::string_view kind)> on_hook_work;
    /// When it gives a wait for a group, its first refresh comes after that wait instead of at start
    /// (staggered): a reload hands in the rest of the interval of feeds whose calendar it keeps.
    std::function<std::optional<std::chrono::steady_clock::duration>(FeedGroup const&)> first_wait;
    /// Cluster mode: asked before each refresh of a group; zero: refresh now (this replica holds the
    /// group's lease, or is on its own); more: another replica refreshes it, ask again after this long.
    /// Awaited, so that the database's answer never holds the refreshers' thread. Empty: always refresh
    /// (a single box).
    std::function<boost::asio::awaitable<std::chrono::milliseconds>(FeedGroup const&)> lease_wait;
};

/**
 * @brief The refreshers of all feeds. They run on one strand made from `ex` (serve hands in the strand
 * its Pipeline's HttpClients run on); what they fetch goes to `publisher`, failures to the feed's status
 * in `store`.
 */
class Refreshers {
  public:
    Refreshers(
        boost::asio::any_io_executor ex,
        Config const& cfg,
        ServedFeeds& store,
        Publisher& publisher,
        GroupFetch fetch,
        Logger log,
        RefreshOptions opts = {}
    );
    ~Refreshers();
    Refreshers(Refreshers const&) = delete;
    Refreshers& operator=(Refreshers const&) = delete;

    /** @brief The strand everything here runs on. */
    boost::asio::any_io_executor executor() const;
    std::vector<FeedGroup> const& groups() const;

    /** @brief Refreshes every group now (staggered), then every `refresh`; returns once stop() was called. */
    boost::asio::awaitable<void> run();

    /**
     * @brief One refresh of one group: fetch; if a feed suddenly lost most of its items, wait and fetch
     * again to confirm; publish successes, record failures.
     * @return true if every feed of the group was refreshed
     */
    boost::asio::awaitable<bool> refresh_once(std::size_t group);

    /** @brief Thread-safe: a webhook of `source` arrived; its feeds refresh within seconds (see hook_delay).
     */
    void poke(std::string const& source);

    /**
     * @brief Thread-safe: a webhook of `source` named event `id`: the groups that can be patched read that
     * one event (RefreshOptions::patch), the others refresh (at most hook_refreshes per hook_window).
     * hook_delay counts from this call.
     */
    void hook(std::string const& source, std::string const& id);

    /** @brief Thread-safe: ends waits and fetches in flight; run() returns soon after. */
    void stop();

    /**
     * @brief Thread-safe: stop(), and what webhooks asked of these refreshers and is not done yet (events
     * to read, refreshes, also those under way) goes to `next` (a reload's new refreshers), due when it was
     * due here: a hook that came just before a reload is not lost with the generation it went to.
     */
    void hand_over(Refreshers& next);

  private:
    struct Impl;
    /// A free-standing coroutine taking the shared state by value: the frame owns it while the loops run.
    static boost::asio::awaitable<void> run_all(std::shared_ptr<Impl> impl);
    std::shared_ptr<Impl> impl_;
};

} // namespace icsbridge
