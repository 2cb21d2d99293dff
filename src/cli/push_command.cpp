// File: push_command.cpp
// push_command(): the feeds each chosen target mirrors are run once (each feed once, however many targets
// it feeds), then the targets are reconciled one after another and reported a line each. A target whose
// feed could not be read is not touched: mirroring a missing calendar would delete its items. In a cluster
// each target is pushed under its lease push:NAME (not at all while a replica of serve holds it) and from
// its state row, as the replicas push it.
#include "cli/push_command.hpp"

#include "app/backends.hpp"
#include "app/push_persistence.hpp"
#include "cli/check_command.hpp"
#include "cli/feed_run.hpp"
#include "cli/terminal_text.hpp"
#include "push/run_target.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace icsbridge::cli {

namespace net = boost::asio;

namespace {

bool pushed_into(Config const& cfg, std::string const& target) {
    return std::any_of(cfg.feeds.begin(), cfg.feeds.end(), [&](FeedConfig const& f) {
        return std::any_of(f.push.begin(), f.push.end(), [&](PushTo const& to) {
            return to.target == target;
        });
    });
}

/**
 * The targets the command works on: the one named, or all that a feed pushes into (an unused one is left
 * alone, as serve leaves it: `check` warns of it); nullopt (after the message) if unknown.
 */
std::optional<std::vector<TargetConfig const*>> chosen_targets(Config const& cfg, Args const& args) {
    std::vector<TargetConfig const*> out;
    if (args.target.empty()) {
        for (auto const& [name, t] : cfg.targets)
            if (pushed_into(cfg, name))
                out.push_back(&t);
        return out;
    }
    if (auto const* t = cfg.find_target(args.target)) {
        if (pushed_into(cfg, t->name))
            out.push_back(t);
        else
            print_err("icsbridge: push: " + t->name + ": no feed pushes into it; its calendar is left alone");
        return out;
    }
    std::string names;
    for (auto const& [name, t] : cfg.targets)
        names += (names.empty() ? "" : ", ") + name;
    print_err(
        "icsbridge: push: unknown target '" + args.target + "' (targets in " + cfg.path + ": " +
        (names.empty() ? "none defined" : names) + ")"
    );
    return std::nullopt;
}

/** The tables whose secrets pushing `targets` uses: theirs, their feeds' sources, and [cluster]. */
std::vector<std::string>
push_secret_owners(Config const& cfg, std::vector<TargetConfig const*> const& targets) {
    std::vector<std::string> out;
    if (cfg.cluster)
        out.emplace_back("[cluster]"); // the state rows, and the leases of a real run
    for (auto const* t : targets)
        out.push_back("[targets." + t->name + "]");
    for (auto const& feed : cfg.feeds)
        for (auto const& to : feed.push)
            if (std::any_of(targets.begin(), targets.end(), [&](auto const* t) {
                    return t->name == to.target;
                })) {
                auto const sources = secret_owners_of_feed(cfg, feed);
                out.insert(out.end(), sources.begin(), sources.end());
            }
    return out;
}

/** Each feed that pushes into one of `targets`, read once: its calendar, or why there is none. */
using FeedResults = std::map<std::string, Result<std::shared_ptr<std::string const>>>;

net::awaitable<FeedResults>
read_feeds(Pipeline& p, Config const& cfg, std::vector<TargetConfig const*> const& targets, sys_seconds now) {
    FeedResults out;
    for (auto const& feed : cfg.feeds)
        for (auto const& to : feed.push) {
            bool const wanted = std::any_of(targets.begin(), targets.end(), [&](auto const* t) {
                return t->name == to.target;
            });
            if (!wanted || out.contains(feed.name))
                continue;
            auto run = run_feed_once(p, cfg, feed, now);
            auto got = co_await std::move(run);
            if (got)
                out.emplace(feed.name, std::make_shared<std::string const>(std::move(got->ics)));
            else
                out.emplace(feed.name, got.error());
        }
    co_return out;
}

std::string uid_or_name(push::Op const& op) {
    return op.uid.empty() ? op.name + " (ours, unknown to the state)" : op.uid;
}

void print_outcome(TargetConfig const& t, push::Outcome const& o, bool dry_run) {
    if (dry_run) {
        if (o.created_calendar)
            std::printf("%s: would create the calendar \"%s\"\n", t.name.c_str(), t.calendar.c_str());
        auto const planned = [&](push::OpKind k) {
            return static_cast<std::size_t>(std::count_if(
                o.planned.begin(),
                o.planned.end(),
                [k](auto const& op) { return op.kind == k; }
            ));
        };
        std::printf(
            "%s: would create %zu, update %zu, delete %zu; %zu unchanged\n",
            t.name.c_str(),
            planned(push::OpKind::create),
            planned(push::OpKind::update),
            planned(push::OpKind::remove),
            o.unchanged
        );
        for (auto const& op : o.planned) {
            char const* verb = op.kind == push::OpKind::create   ? "create"
                               : op.kind == push::OpKind::update ? "update"
                                                                 : "delete";
            // Upstream text: escaped, so a UID can neither add a line nor send terminal escapes.
            std::printf("  %s %s\n", verb, terminal_field(uid_or_name(op)).c_str());
        }
        return;
    }
    // A conflict (412: the item changed between our read and our write) is resolved, read again and written
    // over, but worth seeing: a person or another program is editing our items.
    std::string const conflicts = o.conflicts == 0
                                      ? std::string()
                                      : ", " + std::to_string(o.conflicts) +
                                            (o.conflicts == 1 ? " conflict" : " conflicts") + " resolved";
    std::printf(
        "%s: created %zu, updated %zu, deleted %zu, unchanged %zu (%zu %s%s)\n",
        t.name.c_str(),
        o.created,
        o.updated,
        o.deleted,
        o.unchanged,
        o.requests,
        o.requests == 1 ? "request" : "requests",
        conflicts.c_str()
    );
}

/** How the command pushes: the state's keeping of every target, and the leases held (cluster mode). */
struct Pushing {
    PersistenceFor<push::KeptState> keeping;
    push::Authorizers authorizers; ///< the OAuth targets' (one token store for them all)
    PushLeases* leases = nullptr;
    bool dry_run = false;
    push::CalendarClaims* claims = nullptr; ///< the calendars the targets resolved to, so far
};

/** One target: its feeds' calendars, the reconcile, the report. False when it failed. */
net::awaitable<bool>
push_target(Config const& cfg, TargetConfig const& t, FeedResults const& feeds, Pushing const& how) {
    bool const dry_run = how.dry_run;
    std::vector<push::FeedCalendar> calendars;
    for (auto const& feed : cfg.feeds)
        for (auto const& to : feed.push) {
            if (to.target != t.name)
                continue;
            auto const& got = feeds.at(feed.name);
            if (!got) {
                print_err(
                    "icsbridge: push: " + t.name + ": feed " + feed.name + ": " + got.error().message +
                    "; nothing written"
                );
                co_return false;
            }
            calendars.push_back(push::FeedCalendar{feed.name, *got, **got, to.view});
        }
    auto const ex = co_await net::this_coro::executor;
    auto api = push::calendar_api(
        ex,
        t,
        command_logger(),
        t.type == TargetType::caldav ? push::Authorizer{} : how.authorizers(ex, t)
    );
    push::RunOptions options;
    options.writer = t.name;
    options.dry_run = dry_run;
    options.claims = how.claims;
    // A lease lost while writing (not renewed in time) ends the writes: a replica may be pushing now.
    options.cancelled = [&how, &t] { return how.leases && how.leases->lost(t.name); };
    auto const keeping = how.keeping(t.name); // outlives the coroutine, which holds a reference
    auto running = push::run_target(*api, calendars, keeping, options);
    auto const report = co_await std::move(running);
    if (!report.outcome) {
        if (options.cancelled())
            print_err(
                "icsbridge: push: " + t.name + ": lost the lease " + push_lease_name(t.name) +
                " while writing (the database did not renew it); stopped, a replica may go on"
            );
        else
            print_err("icsbridge: push: " + report.failure);
        co_return false;
    }
    print_outcome(t, *report.outcome, dry_run);
    if (!report.todos_note.empty())
        print_err("icsbridge: push: " + t.name + ": " + report.todos_note);
    if (!report.ok()) {
        print_err("icsbridge: push: " + t.name + ": " + report.failure);
        co_return false;
    }
    co_return true;
}

/** The targets whose lease this process got (all without [cluster], or in a dry run); the others said. */
std::vector<TargetConfig const*>
take_leases(std::vector<TargetConfig const*> const& targets, PushLeases* leases, int& refused) {
    std::vector<TargetConfig const*> out;
    for (auto const* t : targets) {
        if (leases)
            if (auto taken = leases->take(t->name); !taken) {
                print_err("icsbridge: push: " + t->name + ": " + taken.error().message);
                ++refused;
                continue;
            }
        out.push_back(t);
    }
    return out;
}

} // namespace

int push_command(Config const& cfg, Args const& args) {
    auto targets = chosen_targets(cfg, args);
    if (!targets)
        return exit_code(errc::feed_unknown);
    if (cfg.targets.empty()) {
        print_err("icsbridge: push: " + cfg.path + " defines no [targets.NAME]; nothing to push");
        return exit_code(errc::usage);
    }
    if (targets->empty()) {
        if (args.target.empty())
            print_err("icsbridge: push: no feed pushes into any target (push = [...]); nothing to push");
        return 0;
    }
    if (int const rc = missing_secrets_status(require_secrets(cfg, push_secret_owners(cfg, *targets)));
        rc != 0)
        return rc;
    // A dry run writes nothing: it reads the state (the row in a cluster) without the lease.
    std::optional<PushLeases> leases;
    if (cfg.cluster && !args.dry_run)
        leases.emplace(*cfg.cluster);
    int failed = 0;
    auto const ours = take_leases(*targets, leases ? &*leases : nullptr, failed);
    auto backends = make_backends(cfg, command_logger());
    push::CalendarClaims claims;
    Pushing const how{
        backends.push_state,
        oauth_authorizers(backends.tokens, cfg.path, command_logger()),
        leases ? &*leases : nullptr,
        args.dry_run,
        &claims};
    auto const now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    auto pushed = run_sync<int>(
        [&](Pipeline& p) -> net::awaitable<Result<int>> {
            if (how.leases)
                net::co_spawn(co_await net::this_coro::executor, how.leases->keep(), net::detached);
            // The renewals end with the pushes, however these end.
            struct StopKeeping {
                PushLeases* leases;
                ~StopKeeping() {
                    if (leases)
                        leases->stop();
                }
            } const stop_keeping{how.leases};
            auto read = read_feeds(p, cfg, ours, now);
            FeedResults const feeds = co_await std::move(read);
            int bad = 0;
            for (auto const* t : ours) {
                auto one = push_target(cfg, *t, feeds, how);
                bad += (co_await std::move(one)) ? 0 : 1;
            }
            co_return bad;
        },
        cfg,
        command_logger()
    );
    if (leases)
        leases->release_all();
    std::fflush(stdout);
    return failed == 0 && pushed && *pushed == 0 ? 0 : 1;
}

} // namespace icsbridge::cli
