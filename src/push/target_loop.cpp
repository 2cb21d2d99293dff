// File: target_loop.cpp
// TargetLoop: when to reconcile (woken, periodic, blocked after a refusal, another replica's turn) and what
// the outcome leaves in the status registry and the log.
#include "push/target_loop.hpp"

#include "push/run_target.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace icsbridge::push {

namespace net = boost::asio;
using std::chrono::steady_clock;

namespace {

sys_seconds now_seconds() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

} // namespace

TargetLoop::TargetLoop(
    net::any_io_executor ex,
    TargetConfig target,
    std::vector<Mirrored> feeds,
    std::chrono::seconds period,
    Deps deps,
    Authorizer auth
)
    : target_(std::move(target))
    , feeds_(std::move(feeds))
    , period_(period)
    , deps_(std::move(deps))
    , api_(calendar_api(ex, target_, deps_.log, std::move(auth)))
    , timer_(ex) {
    if (deps_.gate)
        api_->client().set_gate(deps_.gate);
    if (deps_.tls)
        api_->client().share_tls(deps_.tls);
    if (deps_.lookups)
        api_->client().share_lookups(deps_.lookups);
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

bool TargetLoop::mirrors(std::string const& feed) const {
    return std::any_of(feeds_.begin(), feeds_.end(), [&](auto const& m) { return m.feed == feed; });
}

void TargetLoop::wake() {
    dirty_ = true;
    timer_.cancel();
}

void TargetLoop::stop() {
    if (deps_.claims)
        deps_.claims->release(target_.name);
    stopping_ = true;
    timer_.cancel();
}

net::awaitable<void> TargetLoop::run() {
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
        if (deps_.lease_wait) {
            auto ask = deps_.lease_wait(target_.name);
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

net::awaitable<void> TargetLoop::once() {
    // In a cluster another replica may have pushed since: its record, not ours, is the one to go on from.
    if (deps_.lease_wait)
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
    RunOptions options;
    options.writer = target_.name;
    options.claims = deps_.claims.get();
    options.shared = deps_.shared_items.get();
    options.cancelled = [this] { return stopping_; };
    options.on_write = [this](Outcome const& o) {
        deps_.status.update(target_.name, [&](TargetStatus& s) {
            s.queue = o.writes_planned - std::min(o.writes_planned, o.created + o.updated + o.deleted);
        });
    };
    auto running = run_target(*api_, calendars, keeping_, options);
    record(co_await std::move(running));
}

void TargetLoop::record(Report const& report) {
    auto const& outcome = report.outcome;
    deps_.status.update(target_.name, [&](TargetStatus& s) {
        ++s.reconciles;
        s.requests += report.requests;
        s.conflicts += report.conflicts;
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
            note_failure(report.failure);
        // No retry storm: a refusal (credentials, rights, quota, throttling) waits for the next period.
        if (outcome.error().code == errc::upstream_auth || outcome.error().code == errc::not_connected ||
            outcome.error().code == errc::upstream_rate_limited ||
            outcome.error().code == errc::config_invalid || outcome.error().code == errc::upstream_status)
            blocked_until_ = steady_clock::now() + period_;
        return;
    }
    if (!report.todos_note.empty() && !warned_todos_) {
        warned_todos_ = true; // once: it stays so until the config changes
        deps_.log.warn("push " + target_.name + ": " + report.todos_note);
    }
    if (!report.ok()) {
        note_failure(report.failure);
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
            std::to_string(outcome->items) + " items in the calendar (" + std::to_string(report.requests) +
            (report.requests == 1 ? " request)" : " requests)")
        );
}

void TargetLoop::note_waiting(std::string const& feed) {
    std::string const why = "waiting for the first calendar of feed " + feed;
    bool changed = false;
    deps_.status.update(target_.name, [&](TargetStatus& s) {
        changed = s.last_error != why;
        s.last_error = why;
    });
    if (changed)
        deps_.log.info("push " + target_.name + ": " + why);
}

void TargetLoop::note_failure(std::string const& why) {
    bool changed = false;
    deps_.status.update(target_.name, [&](TargetStatus& s) {
        changed = s.last_error != why;
        s.last_failure = now_seconds();
        s.last_error = why;
    });
    if (changed)
        deps_.log.warn("push " + target_.name + ": " + why);
}

} // namespace icsbridge::push
