// File: push_service.cpp
// PushService and its TargetLoops. Everything here runs on the push thread: publications and reloads are
// posted to it, so the loops' flags and the loop table need no lock. A loop reads the served snapshots
// (FeedStore is thread-safe) when it reconciles, never a copy taken at publication.
#include "push/push_service.hpp"

#include "push/reconcile.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace icsbridge::push {

namespace net = boost::asio;
using std::chrono::steady_clock;

namespace {

/** A feed mirrored into a target, and through which view. */
struct Mirrored {
    std::string feed;
    std::string view;
    friend bool operator==(Mirrored const&, Mirrored const&) = default;
};

std::vector<Mirrored> mirrored_into(Config const& cfg, std::string const& target) {
    std::vector<Mirrored> out;
    for (auto const& f : cfg.feeds)
        for (auto const& to : f.push)
            if (to.target == target)
                out.push_back(Mirrored{f.name, to.view});
    return out;
}

/** The drift repair period: the shortest refresh of the feeds mirrored (an hour when none). */
std::chrono::seconds period_of(Config const& cfg, std::vector<Mirrored> const& feeds) {
    std::chrono::seconds p = std::chrono::hours(1);
    for (auto const& m : feeds)
        if (auto const* f = cfg.find_feed(m.feed))
            p = std::min(p, std::chrono::duration_cast<std::chrono::seconds>(f->refresh));
    return std::max<std::chrono::seconds>(p, std::chrono::seconds(10));
}

sys_seconds now_seconds() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

} // namespace

class TargetLoop : public std::enable_shared_from_this<TargetLoop> {
  public:
    struct Deps {
        FeedStore const& store;
        PushStatus& status;
        PushService::Keeping keeping;
        Logger log;
        PushService::Turn turn;
        Authorizers authorizers;
    };

    TargetLoop(
        net::any_io_executor ex,
        TargetConfig target,
        std::vector<Mirrored> feeds,
        std::chrono::seconds period,
        Deps deps
    )
        : target_(std::move(target))
        , feeds_(std::move(feeds))
        , period_(period)
        , deps_(std::move(deps))
        , api_(calendar_api(
              ex,
              target_,
              deps_.log,
              deps_.authorizers && target_.type != TargetType::caldav ? deps_.authorizers(ex, target_)
                                                                      : Authorizer{}
          ))
        , timer_(ex) {
        auto const file = deps_.keeping(target_.name);
        // The state stays in memory between reconciles; the file is read once and written as writes land.
        keeping_.load = [this, file]() -> Result<TargetState> {
            if (!cached_) {
                auto s = file.load();
                if (!s)
                    return s;
                cached_ = std::move(*s);
            }
            return *cached_;
        };
        keeping_.save = [this, file](TargetState const& s) {
            cached_ = s;
            return file.save(s);
        };
    }

    bool same(TargetConfig const& t, std::vector<Mirrored> const& feeds, std::chrono::seconds period) const {
        return t == target_ && feeds == feeds_ && period == period_;
    }
    bool mirrors(std::string const& feed) const {
        return std::any_of(feeds_.begin(), feeds_.end(), [&](auto const& m) { return m.feed == feed; });
    }
    void wake() {
        dirty_ = true;
        timer_.cancel();
    }
    void stop() {
        stopping_ = true;
        timer_.cancel();
    }

    net::awaitable<void> run() {
        auto const self = shared_from_this(); // a reload may drop the table's reference meanwhile
        dirty_ = true;                        // a first reconcile at start repairs what drifted while down
        while (!stopping_) {
            if (!dirty_ || steady_clock::now() < blocked_until_) {
                timer_.expires_at(dirty_ ? blocked_until_ : steady_clock::now() + period_);
                co_await timer_.async_wait(net::as_tuple(net::use_awaitable));
                if (stopping_ || (dirty_ && steady_clock::now() < blocked_until_))
                    continue;
            }
            dirty_ = false;
            if (deps_.turn) {
                auto ask = deps_.turn(target_.name);
                auto const wait = co_await std::move(ask);
                if (wait.count() > 0) {
                    // Another replica holds the target: ask again when its lease may have ended.
                    blocked_until_ = steady_clock::now() + wait;
                    dirty_ = true;
                    continue;
                }
            }
            co_await once();
        }
    }

  private:
    net::awaitable<void> once() {
        // In a cluster another replica may have pushed since: its record, not ours, is the one to go on from.
        if (deps_.turn)
            cached_.reset();
        std::vector<FeedCalendar> calendars;
        for (auto const& m : feeds_) {
            auto snap = deps_.store.get(m.feed);
            if (!snap) {
                // Mirroring a feed that has no calendar yet would delete its items: wait for its first one.
                note_waiting(m.feed);
                co_return;
            }
            calendars.push_back(
                FeedCalendar{m.feed, std::shared_ptr<std::string const>(snap, &snap->body), m.view}
            );
        }
        ReconcileOptions options;
        options.today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
        options.cancelled = [this] { return stopping_; };
        options.on_write = [this](Outcome const& o) {
            deps_.status.update(target_.name, [&](TargetStatus& s) {
                s.queue = o.writes_planned - std::min(o.writes_planned, o.created + o.updated + o.deleted);
            });
        };
        auto& dav = api_->client();
        auto const requests_before = dav.requests();
        auto const conflicts_before = dav.conflicts();
        auto reconciling = reconcile(*api_, calendars, keeping_, options);
        auto outcome = co_await std::move(reconciling);
        record(outcome, dav.requests() - requests_before, dav.conflicts() - conflicts_before);
    }

    void record(Result<Outcome> const& outcome, std::size_t requests, std::size_t conflicts) {
        deps_.status.update(target_.name, [&](TargetStatus& s) {
            ++s.reconciles;
            s.requests += requests;
            s.conflicts += conflicts;
            s.queue = 0;
            if (outcome) {
                s.created += outcome->created;
                s.updated += outcome->updated;
                s.deleted += outcome->deleted;
                s.items = outcome->items;
            }
        });
        if (!outcome) {
            if (outcome.error().code != errc::shutdown)
                note_failure(outcome.error().message);
            // No retry storm: a refusal (credentials, rights, quota, throttling) waits for the next period.
            if (outcome.error().code == errc::upstream_auth || outcome.error().code == errc::not_connected ||
                outcome.error().code == errc::upstream_rate_limited ||
                outcome.error().code == errc::upstream_status)
                blocked_until_ = steady_clock::now() + period_;
            return;
        }
        if (outcome->skipped_todos > 0 && !warned_todos_) {
            warned_todos_ = true; // once: it stays so until the config changes
            deps_.log.warn(
                "push " + target_.name + ": " + std::to_string(outcome->skipped_todos) +
                " job posts left out: the calendar takes no tasks (VTODO); set jobs_as = \"vevent\" on the "
                "feed"
            );
        }
        if (!outcome->refused.empty()) {
            note_failure(
                "the server refused " + std::to_string(outcome->refused.size()) + " items, e.g. " +
                outcome->refused.front()
            );
            return;
        }
        deps_.status.update(target_.name, [&](TargetStatus& s) {
            s.last_success = now_seconds();
            s.last_error.clear();
        });
        if (outcome->created + outcome->updated + outcome->deleted > 0 || outcome->created_calendar)
            deps_.log.info(
                "push " + target_.name + ": created " + std::to_string(outcome->created) + ", updated " +
                std::to_string(outcome->updated) + ", deleted " + std::to_string(outcome->deleted) + ", " +
                std::to_string(outcome->items) + " items in the calendar (" + std::to_string(requests) +
                " requests)"
            );
    }

    void note_waiting(std::string const& feed) {
        std::string const why = "waiting for the first calendar of feed " + feed;
        bool changed = false;
        deps_.status.update(target_.name, [&](TargetStatus& s) {
            changed = s.last_error != why;
            s.last_error = why;
        });
        if (changed)
            deps_.log.info("push " + target_.name + ": " + why);
    }

    void note_failure(std::string const& why) {
        bool changed = false;
        deps_.status.update(target_.name, [&](TargetStatus& s) {
            changed = s.last_error != why;
            s.last_failure = now_seconds();
            s.last_error = why;
        });
        if (changed)
            deps_.log.warn("push " + target_.name + ": " + why);
    }

    TargetConfig target_;
    std::vector<Mirrored> feeds_;
    std::chrono::seconds period_;
    Deps deps_;
    std::unique_ptr<CalendarApi> api_;
    net::steady_timer timer_;
    StateKeeping keeping_;
    std::optional<TargetState> cached_;
    bool dirty_ = false;
    bool stopping_ = false;
    bool warned_todos_ = false;
    steady_clock::time_point blocked_until_{};
};

PushService::PushService(
    FeedStore const& store,
    PushStatus& status,
    Keeping keeping,
    Logger log,
    Turn turn,
    Authorizers authorizers
)
    : store_(store)
    , status_(status)
    , keeping_(std::move(keeping))
    , log_(std::move(log))
    , turn_(std::move(turn))
    , authorizers_(std::move(authorizers))
    , keep_(ioc_.get_executor())
    , thread_([this] { ioc_.run(); }) {}

PushService::~PushService() {
    try {
        stop();
        if (thread_.joinable())
            thread_.join();
    } catch (...) { // at exit: nothing is left to tell, and the thread must not outlive a join that threw
        if (thread_.joinable())
            thread_.detach();
    }
}

void PushService::configure(std::shared_ptr<Config const> cfg) {
    net::post(ioc_, [this, cfg = std::move(cfg)] { apply(cfg); });
}

void PushService::apply(std::shared_ptr<Config const> const& cfg) {
    if (stopping_)
        return;
    std::vector<std::string> names;
    for (auto const& [name, t] : cfg->targets)
        names.push_back(name);
    status_.set_targets(names);
    // A target whose settings or feeds changed starts anew (its state file carries over); one gone stops.
    for (auto it = loops_.begin(); it != loops_.end();) {
        auto const* t = cfg->find_target(it->first);
        auto const feeds = mirrored_into(*cfg, it->first);
        if (t && it->second->same(*t, feeds, period_of(*cfg, feeds))) {
            ++it;
            continue;
        }
        it->second->stop();
        it = loops_.erase(it);
    }
    for (auto const& [name, t] : cfg->targets) {
        if (loops_.contains(name))
            continue;
        auto feeds = mirrored_into(*cfg, name);
        auto const period = period_of(*cfg, feeds);
        auto loop = std::make_shared<TargetLoop>(
            ioc_.get_executor(),
            t,
            std::move(feeds),
            period,
            TargetLoop::Deps{store_, status_, keeping_, log_, turn_, authorizers_}
        );
        loops_.emplace(name, loop);
        ++running_;
        net::co_spawn(ioc_, loop->run(), [this, target = name](std::exception_ptr const& e) {
            if (e)
                log_.error("push " + target + ": the target's loop failed; it pushes again after a restart");
            if (--running_ == 0 && stopping_)
                ioc_.stop();
        });
    }
}

void PushService::published(std::string const& feed) {
    net::post(ioc_, [this, feed] {
        for (auto& [name, loop] : loops_)
            if (loop->mirrors(feed))
                loop->wake();
    });
}

void PushService::stop() {
    net::post(ioc_, [this] {
        if (stopping_)
            return;
        stopping_ = true;
        for (auto& [name, loop] : loops_)
            loop->stop();
        loops_.clear();
        keep_.reset();
        if (running_ == 0) {
            ioc_.stop();
            return;
        }
        // A write in flight to a slow target gets a few seconds; the state has what landed before it.
        auto grace = std::make_shared<net::steady_timer>(ioc_, std::chrono::seconds(3));
        grace->async_wait([this, grace](boost::system::error_code const&) { ioc_.stop(); });
    });
}

} // namespace icsbridge::push
