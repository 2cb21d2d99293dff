// File: store.hpp
// The served table: each feed's current snapshot (immutable, swapped atomically) with its refresh status
// and metrics; and the snapshot's kept form (SnapshotBackend: files under storage.dir, or the cluster's
// rows), which the Publisher writes and a restart serves at once, even with the upstream down.
#pragma once

#include <icsbridge/config.hpp>
#include <icsbridge/duration.hpp>
#include <icsbridge/error.hpp>
#include <icsbridge/log.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace icsbridge {

class SnapshotBackend;

using sys_seconds = std::chrono::sys_seconds;

/**
 * @brief Snapshot bytes in a file only this process holds, for sendfile(): the kernel then hands the pages to
 * the socket instead of copying them from our heap on every request. Either an unlinked O_TMPFILE in
 * storage.dir's filesystem (SnapshotFiles; page cache, with large folios on ext4/xfs) or a sealed memfd.
 * Never written after it is made; mapped read-only, so the same pages are what the process reads.
 */
class SealedFile {
  public:
    /** @brief A copy of `bytes` in a new sealed memfd; null if none can be made or descriptors run short. */
    static std::shared_ptr<SealedFile const> make(std::string_view bytes);
    /** @brief Owns `fd` and its read-only mapping `map`; `shmem`: the file's pages are shmem's (a memfd, a
     * file on tmpfs), not a disk filesystem's page cache. */
    SealedFile(int fd, void const* map, std::size_t size, bool shmem = true) noexcept
        : fd_(fd)
        , map_(map)
        , size_(size)
        , shmem_(shmem) {}
    ~SealedFile();
    SealedFile(SealedFile const&) = delete;
    SealedFile& operator=(SealedFile const&) = delete;
    int fd() const noexcept { return fd_; }
    /** @brief The file's bytes, as mapped. */
    std::string_view bytes() const noexcept { return {static_cast<char const*>(map_), size_}; }
    /** @brief The largest body worth sending from this file with sendfile() rather than writing it from the
     * mapping: unlimited for a disk filesystem's page cache, sendfile_max_shmem_bytes for shmem. */
    std::size_t sendfile_max() const noexcept;

  private:
    int fd_;
    void const* map_;
    std::size_t size_;
    bool shmem_;
};

/// Over this size a body in shmem (a memfd, tmpfs) is written from its mapping, not sent with sendfile().
/// shmem's pages are 4 KiB (shmem_enabled is "never" on most machines), and a reader on the same host (a
/// proxy in front, or wrk) pays per page for what sendfile() hands it: with a 9.8 MB feed, wrk spent 11.1 ms
/// a request against 7.3 ms on a copy, more than the 1.1 ms our copy costs. Requests/s with sendfile()
/// against a copy: 1.28x at 425 KB, 1.1x at 1 MB, 1.1-1.3x at 4.4 MB, 1.0x at 6.9 MB, 0.8x at 9.8 MB (pairs
/// as in deploy/bench-serve.sh, 2 cores at load 11). ext4's and xfs's page cache comes in large folios and
/// has no such limit: the 9.8 MB feed from an O_TMPFILE cost half the CPU a request with sendfile().
inline constexpr std::size_t sendfile_max_shmem_bytes = std::size_t{8} * 1024 * 1024;

/**
 * @brief Where large snapshot bodies are made: unlinked O_TMPFILE files in a directory the operator gave
 * (storage.dir), opened once; where that directory has no O_TMPFILE (tmpfs without it, overlayfs, an old
 * kernel), cannot be opened, or is full, a sealed memfd; failing that, the heap. Immutable: share it.
 */
class SnapshotFiles {
  public:
    /** @brief Memfds only. */
    SnapshotFiles() = default;
    /** @brief Files in `dir` (an O_PATH descriptor); memfds only when it cannot be opened. */
    explicit SnapshotFiles(std::string const& dir);
    ~SnapshotFiles();
    SnapshotFiles(SnapshotFiles const&) = delete;
    SnapshotFiles& operator=(SnapshotFiles const&) = delete;
    /** @brief A copy of `bytes` in a new file (the directory's, else a memfd); null if neither can be made.
     */
    std::shared_ptr<SealedFile const> make(std::string_view bytes) const;

  private:
    int dir_ = -1;
    bool dir_shmem_ = false; ///< the directory is on tmpfs: its files' pages are shmem, as a memfd's
};

/// A body this large or larger is kept in a SealedFile (sent with sendfile()); smaller ones stay on the heap
/// and go out with the header in one write.
inline constexpr std::size_t sendfile_min_bytes = std::size_t{32} * 1024;

/**
 * @brief A snapshot's calendar, held once: a large one in a SealedFile (its mapping is what readers see, its
 * file what the server sends with sendfile()), a small one, or one the system gives no memfd for, on the
 * heap. Reads as a std::string_view.
 */
class SnapshotBody {
  public:
    SnapshotBody() = default;
    /** @brief Takes `bytes`: moved into a sealed memfd when large enough (implicit: a body is its bytes). */
    SnapshotBody(std::string bytes)
        : SnapshotBody(std::move(bytes), nullptr) {}
    /** @brief Takes `bytes`: moved into a file of `files` (null: a memfd) when large enough. */
    SnapshotBody(std::string bytes, SnapshotFiles const* files);
    operator std::string_view() const noexcept { return view(); }
    std::string_view view() const noexcept { return file_ ? file_->bytes() : std::string_view(heap_); }
    char const* data() const noexcept { return view().data(); }
    std::size_t size() const noexcept { return view().size(); }
    bool empty() const noexcept { return view().empty(); }
    /** @brief The file holding the bytes, or null (they are on the heap). */
    SealedFile const* file() const noexcept { return file_.get(); }
    friend bool operator==(SnapshotBody const& a, std::string_view b) noexcept { return a.view() == b; }

  private:
    std::string heap_;
    std::shared_ptr<SealedFile const> file_;
};

/** @brief Writes the body's bytes (what a test shows when a comparison fails). */
std::ostream& operator<<(std::ostream& out, SnapshotBody const& body);

/** @brief One published version of a feed. Never modified after creation: share it as shared_ptr<Snapshot
 * const>. */

struct Snapshot {
    SnapshotBody body;              ///< the calendar
    std::string gzip_body;          ///< gzip of body, computed once; empty when disabled
    std::string etag;               ///< strong, quoted: "\"<hex of SHA-256(body)>\""
    sys_seconds last_modified{};    ///< when the content last changed (not when it was fetched)
    std::string last_modified_http; ///< last_modified as an IMF-fixdate
    sys_seconds fetched_at{};       ///< the first fetch that produced these bytes
    std::size_t items = 0;          ///< events or job posts in it
    /// The definition of the feed it was made under (definition_of): a snapshot kept from another one (a
    /// feed renamed onto this name, a private feed made public) is never served. Empty: not known (kept
    /// by an icsbridge before 0.4), accepted.
    std::string definition;
    /// gzip_body again, when it is large enough to be worth sending with sendfile() (the gzip form is a
    /// few percent of the calendar, so holding it twice costs little; the identity body is held once)
    std::shared_ptr<SealedFile const> gzip_file;
};

/**
 * @brief Builds a snapshot: hashes the body into the ETag, formats Last-Modified, gzips once if `gzip`.
 * @param changed_at the Last-Modified time (the content changed then)
 * @param etag the body's ETag when the caller already has it (make_etag(body)); empty: computed here
 * @param files where a large body and gzip form are kept; null: memfds
 */
std::shared_ptr<Snapshot const> make_snapshot(
    std::string body,
    std::size_t items,
    sys_seconds changed_at,
    sys_seconds fetched_at,
    bool gzip = true,
    std::string etag = {},
    std::string definition = {},
    SnapshotFiles const* files = nullptr
);

/**
 * @brief Writes a snapshot to DIR/NAME.snapshot atomically: one JSON header line (etag, last_modified,
 * fetched_at, items, bytes, definition) then the body, so body and metadata can never disagree after a crash.
 * @param fetched_at the latest fetch that gave these bytes (default: snap.fetched_at); a restart takes
 * the feed's last success from it
 */
Result<void> save_snapshot(
    std::string const& dir,
    std::string const& name,
    Snapshot const& snap,
    std::optional<sys_seconds> fetched_at = std::nullopt
);

/**
 * @brief Reads DIR/NAME.snapshot; errc::io_error if absent or unreadable, errc::snapshot_corrupt
 * if corrupt (bad header, wrong length, or a body whose hash is not the stored ETag).
 */
Result<std::shared_ptr<Snapshot const>> load_snapshot(
    std::string const& dir, std::string const& name, bool gzip = true, SnapshotFiles const* files = nullptr
);

/**
 * @brief Why a kept body must not be served under `etag`, or empty when it may: it is not an iCalendar
 * stream as icsbridge writes them (BEGIN:VCALENDAR ... END:VCALENDAR, CRLF), or its hash is not its
 * ETag. Disk snapshots and cluster rows go through the same check, so a row altered or written by
 * something else is refused exactly like a damaged file.
 */
std::string kept_body_defect(std::string_view body, std::string_view etag);

struct SubscriberStatus {
    std::string name; ///< the subscriber's name from `tokens` (never the secret)
    std::optional<sys_seconds> last_fetch;
};

/**
 * @brief Where each feed's last good snapshot is kept between runs: the seam between publishing (the
 * Publisher's SnapshotKeeper writes, restore_snapshots reads at start) and where snapshots live: files
 * under storage.dir (DiskSnapshots), or in cluster mode the database row with the file as a local cache
 * (cluster::ClusterSnapshots).
 */
class SnapshotBackend {
  public:
    virtual ~SnapshotBackend() = default;

    /**
     * @brief Keeps `snap` as the feed's last good snapshot, whole or not at all (a crash never leaves
     * half of one). `fetched_at`: the latest fetch that gave these bytes (a restart reports it as the
     * feed's last success).
     */
    virtual Result<void> save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) = 0;

    /**
     * @brief The feed's kept snapshot: nullptr when there is none, errc::snapshot_corrupt when it does not
     * check out (never served), errc::io_error when it cannot be read. `gzip`: also build the gzip body.
     */
    virtual Result<std::shared_ptr<Snapshot const>> load(std::string const& feed, bool gzip) = 0;

    /** @brief Where snapshots are kept, for log lines ("storage.dir /var/lib/icsbridge"). */
    virtual std::string where() const = 0;
};

/** @brief DIR/NAME.snapshot files (save_snapshot / load_snapshot). */
class DiskSnapshots final : public SnapshotBackend {
  public:
    /** @param files where loaded bodies are kept (ServedFeeds::files()); null: opened here on `dir` */
    explicit DiskSnapshots(std::string dir, std::shared_ptr<SnapshotFiles const> files = nullptr);
    Result<void> save(std::string const& feed, Snapshot const& snap, sys_seconds fetched_at) override;
    Result<std::shared_ptr<Snapshot const>> load(std::string const& feed, bool gzip) override;
    std::string where() const override { return "storage.dir " + dir_; }
    std::string const& dir() const { return dir_; }

  private:
    std::string dir_;
    std::shared_ptr<SnapshotFiles const> files_;
};

/** @brief What /healthz and /metrics report for one feed (a copy, taken under the store's lock). */
struct FeedStatus {
    std::string name;
    std::string title;
    bool is_public = true;
    std::chrono::seconds refresh{0};
    std::optional<sys_seconds> last_success;
    std::optional<sys_seconds> last_failure;
    std::string last_error; ///< user-facing message without secrets; empty after a success
    std::uint64_t refreshes_ok = 0;
    std::uint64_t refreshes_failed = 0;
    std::array<std::uint64_t, duration_buckets.size() + 1> duration_counts{}; ///< non-cumulative, last = +Inf
    double duration_sum = 0;
    std::vector<SubscriberStatus> subscribers;
    std::vector<std::string> merge; ///< a merged feed's parts (see merge.hpp); empty for a fetched feed
    std::shared_ptr<Snapshot const> snapshot;
    /// Cluster mode: whether this replica holds the lease of the feed's fetch group; nullopt on a single box
    std::optional<bool> lease_held;

    /** @brief No success within 2 x refresh + 5 min (or never). */
    bool stale(sys_seconds now) const;
};

/** @brief The outcome of the last config reload (SIGHUP), for /healthz. */
struct ReloadStatus {
    sys_seconds at{};
    bool ok = true;
    std::string error; ///< FILE:LINE:COL: … of a config that was refused (never holds a secret)
};

/**
 * @brief The fingerprint of what a feed's calendar is: the question it asks its upstream (source, its type
 * and base URL, select, parameters, window, organization, ticket classes), the parts of a merged feed, and
 * who may read it (public or not). Hex of a SHA-256; kept with each snapshot.
 */
std::string definition_of(Config const& cfg, FeedConfig const& feed);

/** @brief Who a feed request was authorised as. */
struct Access {
    bool allowed = false;
    int subscriber = -1; ///< index into the feed's subscribers for `tokens` feeds
};

/** @brief A feed's serving settings from the config in force; a reload replaces them whole. */
struct FeedSettings {
    std::string definition; ///< definition_of() the feed in the config in force
    std::string title;
    bool is_public = true;
    std::chrono::seconds refresh{0};
    std::vector<std::string> merge; ///< a merged feed's parts; empty for a fetched feed
    std::vector<std::string> subscribers;
    std::vector<std::pair<std::array<unsigned char, 32>, int>>
        digests; ///< token digest -> subscriber index (-1: the single `token`)
    /// Each subscriber's last fetch (seconds since the epoch), written lock-free by requests
    std::unique_ptr<std::atomic<std::int64_t>[]> subscriber_last;
};

/** @brief Everything one feed request needs, from one lookup under the store's lock. */
struct FeedLookup {
    Access access;
    std::shared_ptr<Snapshot const> snapshot;     ///< null: never fetched, or access refused
    std::shared_ptr<FeedSettings const> settings; ///< null: no such feed
    /** @brief Notes that the authorised `tokens` subscriber fetched the feed (lock-free). */
    void record_fetch(sys_seconds now) const;
};

/**
 * @brief The served table: each feed's current snapshot and its status. Readers copy a shared_ptr under a
 * mutex and never wait for a refresh; the Publisher (publish.hpp) swaps the pointer. Feeds come from the
 * config, and change with reconfigure().
 */
class ServedFeeds {
  public:
    explicit ServedFeeds(Config const& cfg);
    ~ServedFeeds();
    ServedFeeds(ServedFeeds const&) = delete;
    ServedFeeds& operator=(ServedFeeds const&) = delete;

    /**
     * @brief Takes the feeds of a new config: new ones start empty, removed ones are forgotten (their files
     * stay on disk), the others keep snapshot and status and take the new settings (tokens, title…). A
     * feed whose definition changed (another question, or public where it was private) drops its snapshot:
     * what the old definition fetched is never served under the new one.
     */
    void reconfigure(Config const& cfg);

    /**
     * @brief One feed request's lookup: the token checked (as authorize()), the snapshot and the settings.
     */
    FeedLookup lookup(std::string_view name, std::string_view presented) const;

    /** @brief The current snapshot; nullptr for an unknown feed or one never fetched. */
    std::shared_ptr<Snapshot const> get(std::string_view name) const;

    /** @brief definition_of() the feed in the config in force; empty for an unknown feed. */
    std::string definition(std::string_view name) const;

    /**
     * @brief The served table's swap: `snap` becomes the feed's snapshot (null: it keeps the one it has),
     * and `success_at` its last success. Only the Publisher (publish.hpp) calls this.
     * @param refreshed a refresh or a merge of this replica (counted, clears the last error); false for a
     * snapshot adopted from elsewhere (a sibling's row, the copy kept by the last run)
     * @return false for a feed not in the config in force
     */
    bool
    put(std::string_view name,
        std::shared_ptr<Snapshot const> snap,
        sys_seconds success_at,
        bool refreshed = true);

    /** @brief Records a failed refresh; the snapshot is left alone. */
    void record_failure(std::string_view name, Error const& err, sys_seconds now);

    /** @brief Adds one upstream fetch duration to the feed's histogram. */
    void record_fetch_duration(std::string_view name, std::chrono::duration<double> d);

    /**
     * @brief Checks a presented token (may be empty) against the feed's token(s) in constant time
     * (fixed-size SHA-256 digests compared with CRYPTO_memcmp, every secret compared).
     * Public feeds always allow. Unknown feeds never do.
     */
    Access authorize(std::string_view name, std::string_view presented) const;

    /** @brief Notes that a `tokens` subscriber fetched the feed (lock-free). */
    void record_subscriber_fetch(std::string_view name, int subscriber, sys_seconds now) const;

    std::vector<FeedStatus> status() const;
    void record_reload(ReloadStatus r);
    /** @brief nullopt until the first reload. */
    std::optional<ReloadStatus> last_reload() const;
    /** @brief Cluster mode: whether the database answers (/healthz `cluster`, /metrics). Thread-safe. */
    void record_cluster(bool connected);
    /** @brief nullopt on a single box (no `[cluster]`). */
    std::optional<bool> cluster_connected() const;
    /** @brief Cluster mode: whether this replica holds the lease of the feed's group (/metrics). */
    void record_lease(std::string_view name, bool held);
    /**
     * @brief Cluster mode: a subscriber's fetch seen by another replica; kept when later than the one this
     * replica knows (fetch times only move forward). Unknown feeds and names are ignored.
     */
    void merge_subscriber_fetch(std::string_view feed, std::string_view subscriber, sys_seconds at);
    bool gzip_enabled() const { return gzip_; }
    /** @brief Where snapshot bodies are made: files in storage.dir (opened at construction), else memfds. */
    std::shared_ptr<SnapshotFiles const> const& files() const { return files_; }
    /** @brief Configured feed names, in config order. */
    std::vector<std::string> names() const;

  private:
    struct Entry;
    std::shared_ptr<Entry> find(std::string_view name) const;
    std::shared_ptr<Entry> find_locked(std::string_view name) const;

    bool gzip_;
    std::shared_ptr<SnapshotFiles const> files_;
    mutable std::mutex mtx_;
    std::vector<std::shared_ptr<Entry>> entries_; ///< guarded by mtx_
    std::optional<ReloadStatus> reload_;          ///< guarded by mtx_
    std::optional<bool> cluster_;                 ///< guarded by mtx_
};

} // namespace icsbridge
