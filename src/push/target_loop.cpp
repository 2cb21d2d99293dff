// File: target_loop.cpp
// TargetLoop: LoopPolicy's steps carried out (the timer, the lease, the reconcile), and what the outcome
// leaves in the status registry and the log.
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
    , timer_(ex)
    // The state is not kept in memory between reconciles: a run loads it (the saver's queued state, or the
    // file) and the saver lets go of it once written. At a thousand connections, a state each held between
    // runs, and during a run beside the run's own copy, was a third of the peak heap (issue 39).
    , keeping_(deps_.keeping(target_.name))
    , policy_(period_, static_cast<bool>(deps_.lease_wait)) {
    if (deps_.gate)
        api_->client().set_gate(deps_.gate);
    if (deps_.tls)
        api_->client().share_tls(deps_.tls);
    if (deps_.lookups)
        api_->client().share_lookups(deps_.lookups);
}

bool TargetLoop::mirrors(std::string const& feed) const {
    return std::any_of(feeds_.begin(), feeds_.end(), [&](auto const& m) { return m.feed == feed; });
}

void TargetLoop::wake() {
    policy_.woken();
    timer_.cancel();
}

void TargetLoop::stop() {
    if (deps_.claims)
        deps_.claims->release(target_.name);
    policy_.stop();
    timer_.cancel();
}

net::awaitable<void> TargetLoop::run() {
    auto const self = shared_from_this(); // a reload may drop the table's reference meanwhile
    using Kind = LoopPolicy::Action::Kind;
    for (;;) {
        auto const step = policy_.next(steady_clock::now());
        switch (step.kind) {
        case Kind::done:
            co_return;
        case Kind::wait_until:
            timer_.expires_at(step.until);
            co_await timer_.async_wait(net::as_tuple(net::use_awaitable)); // wake() and stop() cut it short
            policy_.waited(steady_clock::now());
            break;
        case Kind::ask_lease: {
            auto ask = deps_.lease_wait(target_.name);
            auto const wait = co_await std::move(ask);
            policy_.lease_answered(wait, steady_clock::now());
            break;
        }
        case Kind::reconcile: {
            auto reconciling = once();
            auto const failure = co_await std::move(reconciling);
            policy_.reconciled(failure, steady_clock::now());
            break;
        }
        }
    }
}

net::awaitable<std::optional<errc>> TargetLoop::once() {
    std::vector<FeedCalendar> calendars;
    for (auto const& m : feeds_) {
        auto snap = deps_.store.get(m.feed);
        if (!snap) {
            // Mirroring a feed that has no calendar yet would delete its items: wait for its first one.
            note_waiting(m.feed);
            co_return std::nullopt;
        }
        calendars.push_back(FeedCalendar{m.feed, snap, snap->body, m.view});
    }
    RunOptions options;
    options.writer = target_.name;
    options.claims = deps_.claims.get();
    options.shared = deps_.shared_items.get();
    options.cancelled = [this] { return policy_.stopped(); };
    options.on_write = [this](Outcome const& o) {
        deps_.status.update(target_.name, [&](TargetStatus& s) {
            s.queue = o.writes_planned - std::min(o.writes_planned, o.created + o.updated + o.deleted);
        });
    };
    auto running = run_target(*api_, calendars, keeping_, options);
    auto const report = co_await std::move(running);
    record(report);
    if (report.outcome)
        co_return std::nullopt;
    co_return report.outcome.error().code;
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
        return; // a refusal waits for the next period: LoopPolicy::reconciled()
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
