// File: publisher.cpp
// The publication sequence (publish.hpp): unchanged → only the time moves; otherwise swap into the served
// table, hand to the keeper, tell the subscribers; and restoring the kept copies at start-up.
#include <icsbridge/digest.hpp>
#include <icsbridge/publish.hpp>

#include <utility>

namespace icsbridge {

std::string_view to_string(Origin o) noexcept {
    switch (o) {
    case Origin::fetched:
        return "fetched";
    case Origin::patched:
        return "patched";
    case Origin::merged:
        return "merged";
    case Origin::adopted:
        return "adopted";
    case Origin::restored:
        return "restored";
    }
    return "?";
}

Publisher::Subscription& Publisher::Subscription::operator=(Subscription&& o) noexcept {
    if (this != &o) {
        if (publisher_)
            publisher_->unsubscribe(id_);
        publisher_ = std::exchange(o.publisher_, nullptr);
        id_ = o.id_;
    }
    return *this;
}

Publisher::Subscription::~Subscription() {
    if (publisher_)
        publisher_->unsubscribe(id_);
}

Publisher::Publisher(ServedFeeds& table, std::shared_ptr<SnapshotKeeper> keeper, Logger log, bool gzip)
    : table_(table)
    , keeper_(std::move(keeper))
    , log_(std::move(log))
    , gzip_(gzip) {}

Publisher::~Publisher() = default;

Publisher::Subscription Publisher::subscribe(Subscriber fn) {
    std::lock_guard lock(mtx_);
    auto const id = next_id_++;
    subscribers_.emplace_back(id, std::make_shared<Subscriber const>(std::move(fn)));
    return Subscription(this, id);
}

void Publisher::unsubscribe(std::size_t id) {
    std::lock_guard lock(mtx_);
    std::erase_if(subscribers_, [id](auto const& s) { return s.first == id; });
}

void Publisher::publish(
    std::string const& feed, std::string body, std::size_t items, Origin origin, sys_seconds at
) {
    submit(Job{feed, std::move(body), items, nullptr, origin, at});
}

void Publisher::adopt(std::string const& feed, std::shared_ptr<Snapshot const> snap, Origin origin) {
    if (!snap)
        return;
    auto const at = snap->fetched_at;
    submit(Job{feed, {}, snap->items, std::move(snap), origin, at});
}

void Publisher::submit(Job job) {
    {
        std::lock_guard lock(mtx_);
        queue_.push_back(std::move(job));
        // A subscriber publishing in turn, or another thread while this sequence runs: the one already
        // running takes it next, so publications never interleave and a merge follows its part.
        if (running_)
            return;
        running_ = true;
    }
    for (;;) {
        Job next;
        {
            std::lock_guard lock(mtx_);
            if (queue_.empty()) {
                running_ = false;
                return;
            }
            next = std::move(queue_.front());
            queue_.pop_front();
        }
        run_one(std::move(next));
    }
}

void Publisher::run_one(Job job) {
    auto const current = table_.get(job.feed);
    auto definition = table_.definition(job.feed);
    // A kept snapshot made under another definition of the feed (another question, or a private feed now
    // public) is never served: it waits for the new definition's first fetch.
    if (job.built && !job.built->definition.empty() && job.built->definition != definition) {
        log_.warn(
            "feed " + job.feed + ": the " + std::string(to_string(job.origin)) +
            " snapshot was made under another definition of the feed (its upstream question or who may " +
            "read it changed); not served until the feed is fetched"
        );
        return;
    }
    // Hashing and compressing happen here, on the publishing thread: readers never wait for them.
    std::string etag = job.built ? job.built->etag : make_etag(job.body);
    bool const changed = !current || current->etag != etag || current->items != job.items;
    std::shared_ptr<Snapshot const> snap = current;
    if (changed && job.built)
        snap = job.built;
    else if (changed)
        snap = make_snapshot(
            std::move(job.body),
            job.items,
            job.at,
            job.at,
            gzip_,
            std::move(etag),
            std::move(definition)
        );
    // 1-2. The served table: the new snapshot, or only the time of this success.
    // Made here (kept below); a refresh or a merge also counts as one (a patch reads one event only).
    bool const ours =
        job.origin == Origin::fetched || job.origin == Origin::merged || job.origin == Origin::patched;
    bool const refreshed = job.origin == Origin::fetched || job.origin == Origin::merged;
    if (!table_.put(job.feed, changed ? snap : nullptr, job.at, refreshed))
        return; // not a feed of the config in force (removed by a reload meanwhile)
    // 3. Kept for the next start. Unchanged bytes are kept again too: the kept fetched_at is what a restart
    // reports as the last success, and a feed that rarely changes would otherwise come back stale.
    if (keeper_ && ours)
        keeper_->keep(job.feed, snap, job.at);
    // 4. The subscribers, outside the lock: they read the table and may publish in turn.
    std::vector<std::shared_ptr<Subscriber const>> told;
    {
        std::lock_guard lock(mtx_);
        for (auto const& s : subscribers_)
            told.push_back(s.second);
    }
    Publication const p{job.feed, snap, changed, job.origin, job.at};
    for (auto const& fn : told)
        (*fn)(p);
}

bool adopt_kept(
    Publisher& publisher,
    std::string const& feed,
    SnapshotBackend& kept,
    bool gzip,
    Origin origin,
    Logger const& log
) {
    auto snap = load_kept(feed, kept, gzip, log);
    if (!snap)
        return false;
    publisher.adopt(feed, std::move(snap), origin);
    return true;
}

std::shared_ptr<Snapshot const>
load_kept(std::string const& feed, SnapshotBackend& kept, bool gzip, Logger const& log) {
    auto snap = kept.load(feed, gzip);
    if (!snap) {
        log.warn("feed " + feed + ": ignoring stored snapshot: " + snap.error().message);
        return nullptr;
    }
    return *snap;
}

std::size_t
restore_snapshots(Publisher& publisher, ServedFeeds const& table, SnapshotBackend& kept, Logger const& log) {
    std::size_t restored = 0;
    for (auto const& name : table.names())
        restored += adopt_kept(publisher, name, kept, publisher.gzip(), Origin::restored, log) ? 1 : 0;
    return restored;
}

} // namespace icsbridge
