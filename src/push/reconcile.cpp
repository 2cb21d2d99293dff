// File: reconcile.cpp
// reconcile(): state → calendar → listing → plan → writes. The writes run as max_concurrency workers
// taking ops in turn on one executor (no locks: coroutines of one thread); the state is saved every
// second or so while they run and once at the end.
#include "push/reconcile.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <deque>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace icsbridge::push {

namespace net = boost::asio;
using std::chrono::steady_clock;

Persistence<KeptState> state_file(std::string const& storage_dir, std::string const& target) {
    auto const path = state_path(storage_dir, target);
    return Persistence<KeptState>{
        [path] { return kept(load_state(path)); },
        [path](KeptState const& s) { return save_state(path, *s); }};
}

namespace {

/** One reconcile's working set. */
struct Run {
    Run(CalendarApi& a, Persistence<KeptState> const& k, ReconcileOptions const& o)
        : api(a)
        , dav(a.client())
        , keeping(k)
        , options(o) {}

    CalendarApi& api;
    TargetClient& dav;
    Persistence<KeptState> const& keeping;
    ReconcileOptions const& options;
    TargetState state;
    Outcome outcome;
    std::shared_ptr<ShapedItems const> shaped; ///< the items every writer of these feeds shares
    /// The plan's writes not taken yet, each with its shared item (null for a delete): a worker takes the
    /// first, and its memory goes with it (a deque frees as it is emptied; a vector would keep every op's
    /// place until the run ends). The item rides with its op: a map of names to items beside the ops was a
    /// third of what a thousand connections' plans held (issue 39).
    std::deque<std::pair<Op, Resource const*>> ops;
    std::size_t waiting_turns = 0; ///< workers waiting for a turn to take one
    std::optional<Error> stopped;  ///< the first error that ends the run
    /// Since when writes that landed are not saved: a kill loses at most a second of them (more while the
    /// saver is behind the disk, when a state waiting in its queue would be lost to a kill all the same)
    std::optional<steady_clock::time_point> unsaved_since;

    void save_now() {
        // The one copy a save makes, held by the saver until it is written.
        save(std::make_shared<TargetState const>(state));
    }
    /** The last save: the state itself, not a copy (the run is over). */
    void save_last() { save(std::make_shared<TargetState const>(std::move(state))); }
    void save(KeptState const& s) {
        if (auto saved = keeping.save(s); !saved)
            dav.log().error("push " + dav.name() + ": " + saved.error().message);
        unsaved_since.reset();
    }
    void save_soon() {
        // Not at the first write: a reconcile of one or two writes (a webhook's change) saves once, at its
        // end, and a thousand connections' reconciles do not wait on twice the disk syncs. Not while the
        // saver is behind either: the copy would only wait in its queue (the next write tries again).
        if (unsaved_since && steady_clock::now() - *unsaved_since > std::chrono::seconds(1) &&
            !(keeping.busy && keeping.busy()))
            save_now();
    }
    void unsaved() {
        if (!unsaved_since)
            unsaved_since = steady_clock::now();
    }

    void landed(Op const& op, WriteAnswer const& a) {
        unsaved();
        state.items[op.uid] = Written{op.name, a.etag, op.hash};
        state.listing[op.name] = a.etag;
        if (!a.id.empty())
            state.ids[op.name] = a.id;
        ++(op.kind == OpKind::create ? outcome.created : outcome.updated);
    }
    void removed(Op const& op) {
        unsaved();
        if (!op.uid.empty())
            state.items.erase(op.uid);
        state.listing.erase(op.name);
        state.ids.erase(op.name);
        ++outcome.deleted;
    }
};

/**
 * One op to its end: written, or refused (recorded in the outcome), or an error that stops the run. Its 412s
 * count as conflicts resolved only once the item is as the feed wants it (written, or gone as asked): a 412
 * after which nothing lands resolved nothing.
 */
net::awaitable<Result<void>> carry_out(Run& run, Op op, Resource const* item) {
    using Kind = WriteAnswer::Kind;
    std::size_t conflicts = 0;
    auto const resolved = [&] {
        run.dav.conflicts() += conflicts;
        return Result<void>{};
    };
    for (int round = 0; round < 4; ++round) {
        Resource const* resource = op.kind == OpKind::remove ? nullptr : item;
        auto writing = run.api.write(run.state, op, resource);
        auto a = co_await std::move(writing);
        if (!a)
            co_return a.error();
        switch (a->kind) {
        case Kind::done:
            op.kind == OpKind::remove ? run.removed(op) : run.landed(op, *a);
            co_return resolved();
        case Kind::gone:
            if (op.kind == OpKind::remove) {
                run.removed(op);
                co_return resolved();
            }
            op = Op{OpKind::create, op.uid, op.name, "", op.hash};
            continue;
        case Kind::conflict: {
            // Changed or created behind our back (or our own earlier write whose answer was lost): the
            // feed wins, against what is there now.
            ++conflicts;
            auto reading = run.api.version_now(run.state, op.name);
            auto now = co_await std::move(reading);
            if (!now)
                co_return now.error();
            auto again = after_conflict(op, *now);
            if (!again) {
                run.removed(op);
                co_return resolved();
            }
            op = std::move(*again);
            continue;
        }
        case Kind::refused:
            run.outcome.refused.push_back(op.uid + ": " + a->why.message);
            co_return Result<void>{};
        case Kind::stop:
            co_return a->why;
        }
    }
    run.outcome.refused.push_back(op.uid + ": still changing under us after 4 tries");
    co_return Result<void>{};
}

/**
 * Whether another worker may wait for a turn: an op is left that no worker has taken or waits a turn for
 * (a turn waited for with nothing left to write would be a shared budget's slot lost).
 */
bool op_unclaimed(Run const& run) {
    return !run.stopped && run.waiting_turns < run.ops.size();
}

net::awaitable<void> worker(Run& run) {
    while (op_unclaimed(run)) {
        if (run.options.cancelled && run.options.cancelled()) {
            run.stopped = fail(errc::shutdown, run.dav.name() + ": stopped before every write was made");
            break;
        }
        // The turn first, then the op: a write waiting for the shared budget is this small frame, not its
        // request with the body, and the op leaves the plan (its strings with it) only when it is sent.
        ++run.waiting_turns;
        auto turn = run.dav.hold_turn();
        bool const held = co_await std::move(turn);
        --run.waiting_turns;
        if (!held) {
            if (!run.stopped)
                run.stopped = fail(
                    errc::shutdown,
                    run.dav.name() + ": stopped while waiting for the shared request budget"
                );
            break;
        }
        if (run.stopped || run.ops.empty()) {
            run.dav.drop_turn();
            break;
        }
        auto [op, item] = std::move(run.ops.front());
        run.ops.pop_front();
        auto done = co_await carry_out(run, std::move(op), item);
        if (!done && !run.stopped)
            run.stopped = done.error();
        if (run.options.on_write)
            run.options.on_write(run.outcome);
        run.save_soon();
    }
}

net::awaitable<void> carry_out_all(Run& run, int concurrency) {
    auto ex = co_await net::this_coro::executor;
    using Spawned = decltype(net::co_spawn(ex, worker(run), net::deferred));
    std::vector<Spawned> workers;
    auto const n = std::max<std::size_t>(
        1,
        std::min<std::size_t>(static_cast<std::size_t>(concurrency), run.ops.size())
    );
    for (std::size_t i = 0; i < n; ++i)
        workers.push_back(net::co_spawn(ex, worker(run), net::deferred));
    auto group = net::experimental::make_parallel_group(std::move(workers));
    auto all = group.async_wait(net::experimental::wait_for_all(), net::use_awaitable);
    co_await std::move(all);
    // A turn whose write ended before it was sent (its URL refused, no credentials) is not the next run's.
    while (run.dav.turns_held() > 0)
        run.dav.drop_turn();
}

/** The calendar and our listing in it; a calendar gone since the last run is looked for again, once. */
net::awaitable<Result<void>> read_calendar(Run& run) {
    for (int pass = 0; pass < 2; ++pass) {
        if (run.state.collection.empty()) {
            auto finding = run.api.find_calendar(!run.options.dry_run);
            auto found = co_await std::move(finding);
            if (!found)
                co_return found.error();
            if (found->missing) { // a dry run: nothing there to list, everything to create
                run.outcome.created_calendar = true;
                run.state = TargetState{};
                run.state.collection = found->url;
                co_return Result<void>{};
            }
            run.state.collection = found->url;
            run.state.todos = found->todos;
            run.state.created = found->created;
            run.state.sync_token.clear();
            run.state.listing.clear();
            run.state.ids.clear();
            run.outcome.created_calendar = found->created;
        }
        auto listing = run.api.list_ours(run.state);
        auto update = co_await std::move(listing);
        if (!update && update.error().code == errc::upstream_not_found && pass == 0) {
            run.state.collection.clear();
            continue;
        }
        if (!update)
            co_return update.error();
        apply_update(*update, run.state.listing);
        run.state.sync_token = update->sync_token;
        co_return Result<void>{};
    }
    co_return fail(
        errc::upstream_not_found,
        run.dav.name() + ": the calendar vanished while it was being found"
    );
}

/**
 * The plan; unless it is a dry run, its ops are moved into run.ops, each with its shared item (found by
 * name while this writer's names are here: they are needed for the plan only, not during the writes).
 */
Plan plan_writes(Run& run) {
    auto const desired =
        writer_items(*run.shaped, run.api, run.options.writer, run.state.items, run.state.listing);
    auto planned = plan(desired, run.state.items, run.state.listing, run.options.writer);
    if (run.options.dry_run)
        return planned;
    std::unordered_map<std::string_view, Resource const*> items;
    for (std::size_t i = 0; i < desired.size(); ++i)
        items.emplace(desired[i].name, &run.shaped->resources[i]);
    for (auto& op : planned.ops) {
        auto const it = items.find(op.name);
        run.ops.emplace_back(std::move(op), it == items.end() ? nullptr : it->second);
    }
    planned.ops = {};
    return planned;
}

} // namespace

net::awaitable<Result<Outcome>> reconcile(
    CalendarApi& api,
    std::vector<FeedCalendar> const& feeds,
    Persistence<KeptState> const& keeping,
    ReconcileOptions const& options
) {
    auto& dav = api.client();
    Run run(api, keeping, options);
    if (auto loaded = keeping.load(); loaded)
        run.state = **loaded; // the run's own, to change; the kept one stays as it was saved
    else
        dav.log().warn(
            "push " + dav.name() + ": " + loaded.error().message +
            "; starting from the calendar's own listing"
        );
    // A state from before identities were kept is taken as the same calendar's.
    if (!run.state.identity.empty() && run.state.identity != api.calendar_identity()) {
        dav.log().info("push " + dav.name() + ": the target names another calendar now; finding it");
        run.state = TargetState{};
    }
    run.state.identity = api.calendar_identity();
    auto const allowed = [&dav](std::string_view url) { return dav.may_send_to(url); };
    if (auto kept = check_kept_urls(run.state, allowed); !kept)
        co_return kept.error();
    auto const requests_before = dav.requests();
    auto const conflicts_before = dav.conflicts();
    if (auto read = co_await read_calendar(run); !read)
        co_return read.error();
    if (options.claim)
        if (auto claimed = options.claim(run.state.collection); !claimed)
            co_return claimed.error();
    auto shared = shared_items(options.shared, feeds, api.takes_todos(run.state), options.today, api);
    if (!shared)
        co_return fail(shared.error().code, dav.name() + ": " + shared.error().message);
    run.shaped = std::move(*shared);
    run.outcome.skipped_todos = run.shaped->skipped_todos;
    auto p = plan_writes(run);
    run.outcome.unchanged = p.unchanged;
    if (options.dry_run) {
        run.outcome.planned = std::move(p.ops);
        run.outcome.requests = dav.requests() - requests_before;
        co_return std::move(run.outcome);
    }
    for (auto const& uid : p.forget)
        run.state.items.erase(uid);
    p = {}; // the plan lives in this frame until the run ends: let go of what it held now
    run.outcome.writes_planned = run.ops.size();
    co_await carry_out_all(run, dav.max_concurrency());
    run.outcome.items = run.state.items.size();
    run.save_last();
    run.outcome.requests = dav.requests() - requests_before;
    run.outcome.conflicts = dav.conflicts() - conflicts_before;
    if (run.stopped)
        co_return *run.stopped;
    co_return std::move(run.outcome);
}

} // namespace icsbridge::push
