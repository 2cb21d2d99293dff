// File: publish.hpp
// Publisher: the one place where a feed's new snapshot becomes what is served. Every path that produces
// a calendar (a refresh, a merged feed's rebuild, a sibling replica's row, the copy kept from the last
// run) hands it here, and the steps that follow are written once, in one order.
#pragma once

#include <icsbridge/log.hpp>
#include <icsbridge/store.hpp>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace icsbridge {

/** @brief Where a publication's calendar came from. */
enum class Origin {
    fetched,  ///< rendered from the feed's upstream by a refresh
    patched,  ///< the last refresh's answer with the one event a webhook named read anew
    merged,   ///< built from the snapshots of a merged feed's parts
    adopted,  ///< a sibling replica's row (cluster mode)
    restored, ///< the copy kept by the previous run (storage.dir), loaded at start-up
};

std::string_view to_string(Origin o) noexcept;

/** @brief What every subscriber is told, after the served table already holds `snapshot`. */
struct Publication {
    std::string feed;
    std::shared_ptr<Snapshot const> snapshot; ///< the snapshot served from now on
    bool changed = false;                     ///< false: the same bytes again (only the time moved)
    Origin origin = Origin::fetched;
    sys_seconds at{}; ///< the fetch this publication vouches for (a feed's last success)
};

/**
 * @brief Keeps snapshots (SnapshotBackend::save) on a thread of its own, so that a slow disk or a database
 * that does not answer never holds a refresh or a request. Per feed, only the newest pending snapshot is
 * written: one that was overtaken before its turn is skipped, never written after its successor.
 */
class SnapshotKeeper {
  public:
    explicit SnapshotKeeper(std::shared_ptr<SnapshotBackend> backend, Logger log);
    /** @brief Writes what is still pending, then stops the thread. */
    ~SnapshotKeeper();
    SnapshotKeeper(SnapshotKeeper const&) = delete;
    SnapshotKeeper& operator=(SnapshotKeeper const&) = delete;

    /** @brief Queues `snap` for `feed`; returns at once. Thread-safe. */
    void keep(std::string const& feed, std::shared_ptr<Snapshot const> snap, sys_seconds fetched_at);
    /** @brief Waits until everything queued so far is written (or failed and logged). Thread-safe. */
    void flush();
    /** @brief Writes queued but not yet done (for /metrics and tests). */
    std::size_t pending() const;

  private:
    struct Pending {
        std::shared_ptr<Snapshot const> snap;
        sys_seconds fetched_at{};
    };
    void run();

    std::shared_ptr<SnapshotBackend> backend_;
    Logger log_;
    mutable std::mutex mtx_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    std::map<std::string, Pending> queue_; ///< guarded by mtx_; one entry per feed: the newest
    bool writing_ = false;                 ///< guarded by mtx_
    bool stopping_ = false;                ///< guarded by mtx_
    std::thread worker_;                   ///< last: starts once everything above exists
};

/**
 * @brief The publication sequence. For each publication, in this order:
 *  1. an unchanged ETag changes nothing served: the feed's last success moves on, and that is all;
 *  2. otherwise the served table (ServedFeeds) takes the new snapshot;
 *  3. the snapshot is handed to the SnapshotKeeper (fetched and merged calendars; a sibling's row and a
 *     restored copy are kept already);
 *  4. every subscriber is told, in the order they subscribed (the view cache, the merged feeds, the log,
 *     the push targets: see the service's wiring).
 *
 * A subscriber may publish in turn (a merged feed rebuilt because a part changed): that publication is
 * queued and runs through the same steps right after the current one, never inside it. Publications
 * from several threads are serialised the same way: whoever finds the sequence idle runs the queue.
 *
 * The ETag, the gzip body and the preparers' work (a CalDAV cut) take seconds for a large feed. After
 * prepare_on() (serve), they run on the publisher's own threads, and only the steps above are posted to
 * the thread that publishes (serve's control thread): a pointer swap, a queue and the subscribers, who
 * keep to small bookkeeping. One feed's publications are prepared one at a time and take effect in the
 * order they were made; another feed's go on meanwhile. Before prepare_on() (at start-up, in the
 * commands and tests), publish() does everything before it returns.
 */
class Publisher {
  public:
    using Subscriber = std::function<void(Publication const&)>;
    /// Heavy work a subscriber does with a new snapshot, done before it is served (prepare_with).
    using Preparer = std::function<void(std::string const& feed, std::shared_ptr<Snapshot const> const&)>;
    /// Runs a step on the thread that publishes (serve: a post to the control thread).
    using Post = std::function<void(std::function<void()>)>;

    /** @brief Unsubscribes when destroyed (call on the thread that publishes, e.g. a reload). */
    class Subscription {
      public:
        Subscription() = default;
        Subscription(Publisher* p, std::size_t id)
            : publisher_(p)
            , id_(id) {}
        Subscription(Subscription&& o) noexcept
            : publisher_(std::exchange(o.publisher_, nullptr))
            , id_(o.id_) {}
        Subscription& operator=(Subscription&& o) noexcept;
        ~Subscription();
        Subscription(Subscription const&) = delete;
        Subscription& operator=(Subscription const&) = delete;

      private:
        Publisher* publisher_ = nullptr;
        std::size_t id_ = 0;
    };

    /**
     * @brief `table` must outlive the publisher. `keeper` may be null (nothing kept: `export`, tests).
     * @param gzip whether snapshots built here carry a gzip body (server.gzip)
     */
    Publisher(ServedFeeds& table, std::shared_ptr<SnapshotKeeper> keeper, Logger log, bool gzip = true);
    ~Publisher();
    Publisher(Publisher const&) = delete;
    Publisher& operator=(Publisher const&) = delete;

    /** @brief New calendar bytes for `feed`, rendered from a fetch or merged from parts, as of `at`. */
    void publish(std::string const& feed, std::string body, std::size_t items, Origin origin, sys_seconds at);

    /** @brief A snapshot built elsewhere (a sibling's row, the kept copy), vouching for its own fetched_at.
     */
    void adopt(std::string const& feed, std::shared_ptr<Snapshot const> snap, Origin origin);

    /** @brief Adds a subscriber, told after those already there. */
    [[nodiscard]] Subscription subscribe(Subscriber fn);

    /**
     * @brief Adds a preparer: told of each changed snapshot before it is served, on a preparing thread
     * after prepare_on(), so that its subscriber finds the heavy part done. Call before the first
     * publication; it stays as long as the publisher.
     */
    void prepare_with(Preparer fn);

    /**
     * @brief From now on, publications are prepared on `workers` threads of the publisher's own and take
     * effect through `post`. Call once, before the threads that publish start.
     */
    void prepare_on(unsigned workers, Post post);

    /** @brief Stops the preparing threads (publications not yet in effect are dropped). Idempotent. */
    void stop_preparing();

    /**
     * @brief Runs `fn` on the preparing threads, after every `fn` given here before has ended (one line
     * for all callers, across reloads); at once on the calling thread before prepare_on(). For heavy work
     * that publishes in turn (a merged feed's render): its publications keep the order they were asked in.
     */
    void post_in_order(std::function<void()> fn);

    /**
     * @brief The time of the feed's latest refresh published but not yet in effect (being prepared on the
     * preparing threads), if any: a reload then counts it as the feed's last success.
     */
    std::optional<sys_seconds> refreshed_in_preparation(std::string const& feed);

    /** @brief The snapshot keeper (null when nothing is kept). */
    std::shared_ptr<SnapshotKeeper> const& keeper() const { return keeper_; }
    bool gzip() const { return gzip_; }

  private:
    struct Job {
        std::string feed;
        std::string body;
        std::size_t items = 0;
        std::shared_ptr<Snapshot const> built; ///< adopt(): the snapshot as given
        Origin origin = Origin::fetched;
        sys_seconds at{};
        std::string definition; ///< the feed's when it was published: served only while still in force
    };
    /** @brief A job with its heavy steps done, ready to take effect. */
    struct Prepared {
        Job job;
        std::shared_ptr<Snapshot const> compared; ///< what was served when the ETags were compared
        std::shared_ptr<Snapshot const> snap;     ///< what is served after it (null: nothing to do)
    };
    class Workers;

    void submit(Job job);
    void queue_for(Job job);
    void prepare_next(std::string const& feed);
    Prepared prepare(Job job);
    void run_one(Prepared const& p);
    void unsubscribe(std::size_t id);

    ServedFeeds& table_;
    std::shared_ptr<SnapshotKeeper> keeper_;
    Logger log_;
    bool gzip_;
    std::mutex mtx_;
    std::deque<Job> queue_; ///< guarded by mtx_
    bool running_ = false;  ///< guarded by mtx_: someone is working through queue_
    std::vector<std::pair<std::size_t, std::shared_ptr<Subscriber const>>> subscribers_; ///< guarded by mtx_
    std::size_t next_id_ = 1;                                                            ///< guarded by mtx_
    std::vector<std::shared_ptr<Preparer const>> preparers_;                             ///< guarded by mtx_
    /// After prepare_on(): per feed, its publications not yet in effect, the one being prepared first.
    std::map<std::string, std::deque<Job>, std::less<>> waiting_; ///< guarded by mtx_
    Post post_;
    std::unique_ptr<Workers> workers_; ///< last: its threads stop before anything above goes
};

/**
 * @brief Publishes every configured feed's kept snapshot (origin restored): missing ones are skipped,
 * corrupt ones warned about and never served.
 * @return how many feeds were restored
 */
std::size_t
restore_snapshots(Publisher& publisher, ServedFeeds const& table, SnapshotBackend& kept, Logger const& log);

/**
 * @brief One feed's kept snapshot, checked: null when there is none, and when it is unusable (corrupt,
 * unreadable), which is logged as ignored.
 */
std::shared_ptr<Snapshot const>
load_kept(std::string const& feed, SnapshotBackend& kept, bool gzip, Logger const& log);

/** @brief One feed's kept snapshot published as `origin` (a peer's row); false if none or unusable. */
bool adopt_kept(
    Publisher& publisher,
    std::string const& feed,
    SnapshotBackend& kept,
    bool gzip,
    Origin origin,
    Logger const& log
);

} // namespace icsbridge
