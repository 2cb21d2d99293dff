// File: state_saver.cpp
// StateSaver: one map of the queued states (target -> newest), one of those being written, and the thread
// that takes all queued states at once and writes them in turn.
#include "push/state_saver.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace icsbridge::push {

struct StateSaver::Queue {
    struct Job {
        Persistence<KeptState> to;
        KeptState state; ///< the caller's own object: queued, not copied
    };

    explicit Queue(Logger l)
        : log(std::move(l)) {}

    Logger log;
    std::mutex mtx;
    std::condition_variable work;    ///< something queued, or stopping
    std::condition_variable written; ///< a batch was written
    std::map<std::string, Job> queued;
    std::map<std::string, KeptState> writing;
    bool stopping = false; ///< the thread ends once nothing is queued
    bool closed = false;   ///< the thread has ended: saves are written by their callers

    Result<void> save(std::string const& target, Persistence<KeptState> const& to, KeptState const& s) {
        {
            std::lock_guard lock(mtx);
            if (!closed) {
                queued.insert_or_assign(target, Job{to, s});
                work.notify_one();
                return {};
            }
        }
        return to.save(s);
    }

    Result<KeptState> load(std::string const& target, Persistence<KeptState> const& from) {
        {
            std::lock_guard lock(mtx);
            if (auto it = queued.find(target); it != queued.end())
                return it->second.state;
            if (auto it = writing.find(target); it != writing.end())
                return it->second;
        }
        return from.load();
    }

    void write(std::string const& target, Job const& job) {
        if (auto s = job.to.save(job.state); !s)
            log.error("push " + target + ": " + s.error().message);
    }

    void run() {
        for (;;) {
            std::map<std::string, Job> batch;
            {
                std::unique_lock lock(mtx);
                work.wait(lock, [this] { return stopping || !queued.empty(); });
                if (queued.empty())
                    return;
                batch.swap(queued);
                for (auto const& [target, job] : batch)
                    writing[target] = job.state;
            }
            for (auto& [target, job] : batch) {
                write(target, job);
                job.state.reset(); // written: no longer held here, before flush() may see it done
                std::lock_guard lock(mtx);
                writing.erase(target);
            }
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
    std::map<std::string, Queue::Job> left; // queued while the thread was ending
    {
        std::lock_guard lock(queue_->mtx);
        queue_->closed = true;
        left.swap(queue_->queued);
    }
    for (auto const& [target, job] : left)
        queue_->write(target, job);
}

PersistenceFor<KeptState> StateSaver::keeping(PersistenceFor<KeptState> inner) const {
    return [q = queue_, inner = std::move(inner)](std::string const& target) {
        auto to = inner(target);
        return Persistence<KeptState>{
            [q, target, to] { return q->load(target, to); },
            [q, target, to](KeptState const& s) { return q->save(target, to, s); }};
    };
}

void StateSaver::flush() const {
    std::unique_lock lock(queue_->mtx);
    queue_->written.wait(lock, [this] { return queue_->queued.empty() && queue_->writing.empty(); });
}

} // namespace icsbridge::push
