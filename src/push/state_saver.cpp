// File: state_saver.cpp
// StateSaver: one map of the queued states (target -> newest), one of those being written, and the thread
// that takes all queued states at once and writes them as batches of files with one wait for the disk each.
#include "push/state_saver.hpp"

#include <icsbridge/files.hpp>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace icsbridge::push {

StateFiles state_files(std::string storage_dir) {
    return [dir = std::move(storage_dir)](std::string const& target, TargetState const& s) {
        return state_write(state_path(dir, target), s);
    };
}

namespace {

/// The most state files written with one wait for the disk. Each stays open until its batch is synced, and
/// its JSON is held until then: a thousand connections' batch would hold a thousand files and their text.
constexpr std::size_t files_per_sync = 32;

/// How many states may wait to be written before the saver says it is busy. A run saves about once a second
/// while it writes, and a save is a copy of its state: when the disk takes fewer states a second than the
/// runs save (a thousand connections, ~150 synced files a second on a slow disk), every run's copy waited
/// in the queue, a second state each beside the run's own (issue 39). Runs skip their saves while this many
/// wait, and save at their next write or their end.
constexpr std::size_t busy_at = 2 * files_per_sync;

} // namespace

struct StateSaver::Queue {
    struct Job {
        Persistence<KeptState> to;
        KeptState state;                         ///< the caller's own object: queued, not copied
        std::shared_ptr<StateFiles const> files; ///< null: saved by `to`
    };
    using Batch = std::vector<std::pair<std::string, Job>>;

    explicit Queue(Logger l)
        : log(std::move(l)) {}

    Logger log;
    std::mutex mtx;
    std::condition_variable work;    ///< something queued, or stopping
    std::condition_variable written; ///< a batch was written
    std::map<std::string, Job> queued;
    std::map<std::string, KeptState> writing;
    /// States whose write failed (a full or read-only disk), until one of the target's is written: a load
    /// sees them, so the next run goes on from what it wrote, not from an older file it would write again.
    std::map<std::string, KeptState> unwritten;
    bool stopping = false; ///< the thread ends once nothing is queued
    bool closed = false;   ///< the thread has ended: saves are written by their callers

    Result<void> save(std::string const& target, Job job) {
        {
            std::lock_guard lock(mtx);
            if (!closed) {
                queued.insert_or_assign(target, std::move(job));
                work.notify_one();
                return {};
            }
        }
        return job.to.save(job.state);
    }

    Result<KeptState> load(std::string const& target, Persistence<KeptState> const& from) {
        {
            std::lock_guard lock(mtx);
            if (auto it = queued.find(target); it != queued.end())
                return it->second.state;
            if (auto it = writing.find(target); it != writing.end())
                return it->second;
            if (auto it = unwritten.find(target); it != unwritten.end())
                return it->second;
        }
        return from.load();
    }

    bool busy() {
        std::lock_guard lock(mtx);
        return !closed && queued.size() + writing.size() >= busy_at;
    }

    void failed(std::string const& target, Error const& e) { log.error("push " + target + ": " + e.message); }

    /**
     * One part of a batch: its files written together; a save that is not a file's, on its own. Whether each
     * was written, in the part's order.
     */
    std::vector<bool> write_part(std::span<Batch::value_type const> part) {
        std::vector<bool> written(part.size(), false);
        std::vector<FileWrite> files;
        std::vector<std::size_t> whose;
        for (std::size_t i = 0; i < part.size(); ++i) {
            auto const& [target, job] = part[i];
            if (!job.files) {
                auto s = job.to.save(job.state);
                written[i] = s.has_value();
                if (!s)
                    failed(target, s.error());
                continue;
            }
            auto f = (*job.files)(target, *job.state);
            if (!f) {
                failed(target, f.error());
                continue;
            }
            files.push_back(std::move(*f));
            whose.push_back(i);
        }
        auto const results = write_files_atomically(files);
        for (std::size_t i = 0; i < results.size(); ++i) {
            written[whose[i]] = results[i].has_value();
            if (!results[i])
                failed(part[whose[i]].first, results[i].error());
        }
        return written;
    }

    /** Writes `batch` part by part, each part let go of (here and in `writing`) once it is on the disk. */
    void write_batch(Batch& batch) {
        std::span<Batch::value_type> rest(batch);
        while (!rest.empty()) {
            auto const part = rest.first(std::min(rest.size(), files_per_sync));
            auto const written = write_part(part);
            std::lock_guard lock(mtx);
            for (std::size_t i = 0; i < part.size(); ++i) {
                auto& [target, job] = part[i];
                if (written[i])
                    unwritten.erase(target);
                else
                    unwritten.insert_or_assign(target, job.state);
                job.state.reset(); // before flush() may see it done
                writing.erase(target);
            }
            rest = rest.subspan(part.size());
        }
    }

    void run() {
        for (;;) {
            Batch batch;
            {
                std::unique_lock lock(mtx);
                work.wait(lock, [this] { return stopping || !queued.empty(); });
                if (queued.empty())
                    return;
                for (auto& [target, job] : queued) {
                    writing[target] = job.state;
                    batch.emplace_back(target, std::move(job));
                }
                queued.clear();
            }
            write_batch(batch);
            written.notify_all();
        }
    }
};

StateSaver::StateSaver(Logger log)
    : queue_(std::make_shared<Queue>(std::move(log)))
    , thread_([q = queue_] { q->run(); }) {}

StateSaver::~StateSaver() {
    {
        std::lock_guard lock(queue_->mtx);
        queue_->stopping = true;
    }
    queue_->work.notify_one();
    thread_.join();
    Queue::Batch left; // queued while the thread was ending
    {
        std::lock_guard lock(queue_->mtx);
        queue_->closed = true;
        for (auto& [target, job] : queue_->queued)
            left.emplace_back(target, std::move(job));
        queue_->queued.clear();
    }
    queue_->write_batch(left);
}

PersistenceFor<KeptState> StateSaver::keeping(PersistenceFor<KeptState> inner, StateFiles files) const {
    auto shared = files ? std::make_shared<StateFiles const>(std::move(files)) : nullptr;
    return [q = queue_, inner = std::move(inner), shared](std::string const& target) {
        auto to = inner(target);
        return Persistence<KeptState>{
            [q, target, to] { return q->load(target, to); },
            [q, target, to, shared](KeptState const& s) {
                return q->save(target, Queue::Job{to, s, shared});
            },
            [q] { return q->busy(); }};
    };
}

void StateSaver::flush() const {
    std::unique_lock lock(queue_->mtx);
    queue_->written.wait(lock, [this] { return queue_->queued.empty() && queue_->writing.empty(); });
}

} // namespace icsbridge::push
