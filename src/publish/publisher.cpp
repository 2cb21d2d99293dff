// File: publisher.cpp
// The publication sequence (publish.hpp): unchanged → only the time moves; otherwise swap into the served
// table, hand to the keeper, tell the subscribers; each feed's heavy steps prepared before, on threads of
// their own in serve; and restoring the kept copies at start-up.
#include <icsbridge/digest.hpp>
#include <icsbridge/publish.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
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

/** The preparing threads: a pool, so that one large feed's gzip holds up no other feed's publication. */
class Publisher::Workers {
  public:
    explicit Workers(unsigned n)
        : pool_(n) {}
    void post(std::function<void()> fn) { boost::asio::post(pool_, std::move(fn)); }
    void post_in_order(std::function<void()> fn) { boost::asio::post(line_, std::move(fn)); }
    void stop() {
        pool_.stop();
        pool_.join();
    }

  private:
    boost::asio::thread_pool pool_;
    boost::asio::strand<boost::asio::thread_pool::executor_type> line_{boost::asio::make_strand(pool_)};
};

Publisher::Publisher(ServedFeeds& table, std::shared_ptr<SnapshotKeeper> keeper, Logger log, bool gzip)
    : table_(table)
    , keeper_(std::move(keeper))
    , log_(std::move(log))
    , gzip_(gzip) {}

Publisher::~Publisher() {
    stop_preparing();
}

void Publisher::prepare_with(Preparer fn) {
    std::lock_guard lock(mtx_);
    preparers_.push_back(std::make_shared<Preparer const>(std::move(fn)));
}

void Publisher::prepare_on(unsigned workers, Post post) {
    post_ = std::move(post);
    workers_ = std::make_unique<Workers>(std::max(workers, 1U));
}

void Publisher::stop_preparing() {
    if (workers_)
        workers_->stop();
}

void Publisher::post_in_order(std::function<void()> fn) {
    if (workers_)
        workers_->post_in_order(std::move(fn));
    else
        fn();
}

std::optional<sys_seconds> Publisher::refreshed_in_preparation(std::string const& feed) {
    std::lock_guard lock(mtx_);
    std::optional<sys_seconds> out;
    if (auto it = waiting_.find(feed); it != waiting_.end())
        for (auto const& job : it->second) // the one being prepared is moved from, its time is still there
            if (job.origin == Origin::fetched || job.origin == Origin::merged)
                out = out ? std::max(*out, job.at) : job.at;
    return out;
}

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
    submit(Job{feed, std::move(body), items, nullptr, origin, at, table_.definition(feed)});
}

void Publisher::adopt(std::string const& feed, std::shared_ptr<Snapshot const> snap, Origin origin) {
    if (!snap)
        return;
    auto const at = snap->fetched_at;
    submit(Job{feed, {}, snap->items, std::move(snap), origin, at, table_.definition(feed)});
}

void Publisher::submit(Job job) {
    if (workers_) {
        queue_for(std::move(job));
        return;
    }
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
        run_one(prepare(std::move(next)));
    }
}

void Publisher::queue_for(Job job) {
    auto const feed = job.feed;
    auto const bytes = job.built ? job.built->body.size() : job.body.size();
    bool follows = false;
    {
        std::lock_guard lock(mtx_);
        auto& waiting = waiting_[feed];
        waiting.push_back(std::move(job));
        // The feed's publication before it is being prepared: this one follows it.
        follows = waiting.size() > 1;
    }
    // From here refreshed_in_preparation() sees it (a reload's test waits for this line).
    log_.debug("feed " + feed + ": a publication of " + std::to_string(bytes) + " bytes is being prepared");
    if (!follows)
        workers_->post([this, feed] { prepare_next(feed); });
}

void Publisher::prepare_next(std::string const& feed) {
    Job job;
    {
        std::lock_guard lock(mtx_);
        job = std::move(waiting_[feed].front()); // stays in place (moved from) until it takes effect
    }
    auto prepared = std::make_shared<Prepared>(prepare(std::move(job)));
    post_([this, prepared, feed] {
        run_one(*prepared);
        // In effect: the feed's next publication may be prepared now, against what this one serves.
        std::lock_guard lock(mtx_);
        auto it = waiting_.find(feed);
        it->second.pop_front();
        if (it->second.empty())
            waiting_.erase(it);
        else
            workers_->post([this, feed] { prepare_next(feed); });
    });
}

Publisher::Prepared Publisher::prepare(Job job) {
    auto compared = table_.get(job.feed);
    Prepared out{std::move(job), std::move(compared), nullptr};
    auto& j = out.job;
    // A kept snapshot made under another definition of the feed (another question, or a private feed now
    // public) is never served: it waits for the new definition's first fetch.
    if (j.built && !j.built->definition.empty() && j.built->definition != j.definition) {
        log_.warn(
            "feed " + j.feed + ": the " + std::string(to_string(j.origin)) +
            " snapshot was made under another definition of the feed (its upstream question or who may " +
            "read it changed); not served until the feed is fetched"
        );
        return out;
    }
    // Hashing and compressing happen here, before the table has it: readers never wait for them.
    std::string etag = j.built ? j.built->etag : make_etag(j.body);
    auto const& current = out.compared;
    bool const changed = !current || current->etag != etag || current->items != j.items;
    if (!changed)
        out.snap = current;
    else if (j.built)
        out.snap = j.built;
    else
        out.snap = make_snapshot(
            std::move(j.body),
            j.items,
            j.at,
            j.at,
            gzip_,
            std::move(etag),
            j.definition,
            table_.files().get()
        );
    if (!changed)
        return out;
    std::vector<std::shared_ptr<Preparer const>> preparers;
    {
        std::lock_guard lock(mtx_);
        preparers = preparers_;
    }
    for (auto const& fn : preparers)
        (*fn)(j.feed, out.snap);
    return out;
}

void Publisher::run_one(Prepared const& p) {
    auto const& job = p.job;
    if (!p.snap)
        return;
    // A reload meanwhile gave the feed another definition: what was made under the old one is not served.
    if (table_.definition(job.feed) != job.definition) {
        log_.info("feed " + job.feed + ": a publication made before a reload redefined the feed is dropped");
        return;
    }
    // Compared with what is served now (the same, unless a reload dropped it meanwhile).
    auto const current = table_.get(job.feed);
    bool const changed = current != p.compared
                             ? !current || current->etag != p.snap->etag || current->items != p.snap->items
                             : p.snap != current;
    auto const& snap = changed ? p.snap : current;
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
    Publication const pub{job.feed, snap, changed, job.origin, job.at};
    for (auto const& fn : told)
        (*fn)(pub);
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
